#include "scaffold/host_clocks.h"

#include <gtest/gtest.h>

#include "workload/deny_list.h"

namespace cuco::scaffold_internal {
namespace {

TEST(HostClocks, EveryClockSpellingReadsTheTickingClock) {
  const std::string in =
      "auto t0 = std::chrono::steady_clock::now();  // std::chrono in a comment stays\n"
      "double ms = std::chrono::duration<double, std::milli>(t1 - t0).count();\n"
      "auto us = chrono::duration_cast<chrono::microseconds>(d).count();\n"
      "{ using namespace std::chrono; }\n"
      "clock_gettime(CLOCK_MONOTONIC, &ts); ::gettimeofday(&tv, NULL);\n"
      "printf(\"chrono %d\\n\", mine::chrono::x + other::clock_gettime(1));\n";
  const std::string out = TickingClockSpellings(in);
  EXPECT_EQ(out,
            "auto t0 = cuco_program::host_time::steady_clock::now();  // std::chrono in a comment stays\n"
            "double ms = cuco_program::host_time::duration<double, std::milli>(t1 - t0).count();\n"
            "auto us = cuco_program::host_time::duration_cast<cuco_program::host_time::microseconds>(d).count();\n"
            "{ using namespace cuco_program::host_time; }\n"
            "cuco_program::host_time::ticking_clock_gettime(CLOCK_MONOTONIC, &ts); ::cuco_program::host_time::ticking_gettimeofday(&tv, NULL);\n"
            "printf(\"chrono %d\\n\", mine::chrono::x + other::clock_gettime(1));\n");
}

// Only the blocks change, and what the blocks then hold passes the deny list that refused them.
TEST(HostClocks, TheBlocksOnlyAndTheyPassTheDenyList) {
  const std::string seed =
      "static double since(std::chrono::steady_clock::time_point t) { return 0; }\n"
      "// EVOLVE-BLOCK-START\n"
      "void step() {\n"
      "  auto t0 = std::chrono::steady_clock::now();\n"
      "  work();\n"
      "  timeval tv;\n"
      "  gettimeofday(&tv, nullptr);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  EXPECT_FALSE(CheckDenyList(seed, "seed.cu").ok());
  Result<std::string> out = TickingClocksInBlocks(seed, "seed.cu");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->substr(0, out->find('\n')), seed.substr(0, seed.find('\n')));  // frozen text as it was
  EXPECT_NE(out->find("auto t0 = cuco_program::host_time::steady_clock::now();"), std::string::npos) << *out;
  const Status scan = CheckDenyList(*out, "seed.cu");
  EXPECT_TRUE(scan.ok()) << scan.ToString();
}

}  // namespace
}  // namespace cuco::scaffold_internal
