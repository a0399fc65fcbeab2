#include "prompts/key_lines.h"

#include <gtest/gtest.h>

#include "prompts/test_seed_text.h"
#include "util/testutil.h"

#include <string>

namespace cuco {
using testutil::Has;
namespace {

using test_seed::kSeed;

TEST(KeyLines, NamedLinesThenChangedLines) {
  std::string code = kSeed;
  code.replace(code.find("x[threadIdx.x] *= 2;"), 20, "x[threadIdx.x] *= 3;");
  const std::string k = KeyLines(code, "cand.cu:9: error: bad launch\n", kSeed, 10000);
  EXPECT_TRUE(Has(k, "  8: cuco::Status cuco_candidate_run")) << k;
  EXPECT_TRUE(Has(k, "  9:   Scale<<<1, 256")) << k;
  EXPECT_TRUE(Has(k, "  10:   return")) << k;
  EXPECT_TRUE(Has(k, "lines that differ from the parent/seed:\n  4: __global__ void Scale(float* x) { x[threadIdx.x] *= 3; }"))
      << k;
  EXPECT_LE(KeyLines(code, "f:9: e", kSeed, 30).size(), 30u + 6u);
  EXPECT_EQ(KeyLines(kSeed, "", kSeed, 1000), "");
  EXPECT_EQ(KeyLines("no blocks here", "x:99999999:", "", 1000), "");
}

}  // namespace
}  // namespace cuco
