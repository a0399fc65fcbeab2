#include "scaffold/clock_counts.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// kopernik278/nccl-network-benchmark's DDP pipeline: the compute per stage is calibrated from a
// timing helper's result around the communication, and the iteration (the lambda's body) reads it.
const char* kCalibrated = R"(#include <chrono>
template <typename F>
static double timeUs(F&& body, int iters) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) body();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}
int main() {
  double usPerRep = 3.0;
  auto repsFor = [&](double targetUs) { return (int)(targetUs / usPerRep); };
  for (int nb = 1; nb < 4; ++nb) {
    double tCommAll = timeUs([&]() { launchComm(); }, 3);
    const int repsPerStage = repsFor(tCommAll / nb);
    int fixed = 4;
    double tOv = timeUs([&]() {
      for (int b = 0; b < nb; ++b) { launchCompute(repsPerStage, fixed); launchComm(); }
    }, 10);
  }
}
)";

TEST(ClockDerivedCounts, ACountCalibratedFromATimingHelpersResultIsNamed) {
  const std::vector<std::string> c =
      ClockDerivedCounts("bench.cu", kCalibrated, "main", 16, "{ launchCompute(repsPerStage, fixed); launchComm(); }");
  ASSERT_EQ(c.size(), 1u) << ::testing::PrintToString(c);
  EXPECT_EQ(c[0].rfind("`repsPerStage` (bench.cu:14), which the iteration reads, is set from a time the program "
                       "measures (`tCommAll`, bench.cu:13)", 0), 0u) << c[0];
}

// A count the iteration does not read, and a time it reads (its own timing), are not counts of its work.
TEST(ClockDerivedCounts, OnlyIntegersTheIterationReadsAreCounts) {
  EXPECT_TRUE(ClockDerivedCounts("bench.cu", kCalibrated, "main", 16, "{ launchCompute(fixed); launchComm(); }").empty());
  EXPECT_TRUE(ClockDerivedCounts("bench.cu", kCalibrated, "main", 16, "{ launchCompute(tCommAll); }").empty());
}

// An event's elapsed time, assigned to a count declared earlier.
TEST(ClockDerivedCounts, AnEventsElapsedTimeAssignedToACountDeclaredEarlier) {
  const char* text = R"(int main() {
  float ms = 0;
  int iters;
  cudaEventElapsedTime(&ms, a, b);
  iters = 100.0f / ms;
  for (int i = 0; i < 5; ++i) {
    step(iters);
  }
}
)";
  const std::vector<std::string> c = ClockDerivedCounts("t.cu", text, "main", 6, "{ step(iters); }");
  ASSERT_EQ(c.size(), 1u) << ::testing::PrintToString(c);
  EXPECT_NE(c[0].find("`iters` (t.cu:5)"), std::string::npos) << c[0];
  EXPECT_NE(c[0].find("(`ms`, t.cu:4)"), std::string::npos) << c[0];
}

}  // namespace
}  // namespace cuco::scaffold_internal
