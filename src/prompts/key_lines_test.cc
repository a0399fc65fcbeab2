#include "prompts/key_lines.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
namespace {

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kSeed =
    "#include <cuco/harness.h>\n"                               // 1
    "// EVOLVE-BLOCK-START\n"                                   // 2
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"         // 3
    "__global__ void Scale(float* x) { x[threadIdx.x] *= 2; }\n"  // 4
    "// EVOLVE-BLOCK-END\n"                                     // 5
    "int frozen;\n"                                             // 6
    "// EVOLVE-BLOCK-START\n"                                   // 7
    "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"  // 8
    "  Scale<<<1, 256, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr));\n"         // 9
    "  return cuco::Status::Ok();\n"                            // 10
    "}\n"                                                       // 11
    "// EVOLVE-BLOCK-END\n";                                    // 12

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
