#include "scaffold/iteration_io.h"

#include <gtest/gtest.h>

#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

AnalyzedOp Sgemm(const std::string& beta) {
  AnalyzedOp op;
  op.api = "cublasSgemm";
  op.kind = "gemm";
  op.args = {"h", "CUBLAS_OP_N", "CUBLAS_OP_N", "m", "n", "k", "&alpha", "a", "m", "b", "k", beta, "c", "m"};
  return op;
}

// A SUMMA's panels accumulate into C (beta 1): C is read as well as written. Beta zero, a beta set
// to what cannot be known, or another op: C only written, as before.
TEST(IterationIo, AGemmWithBetaNotZeroAccumulatesIntoC) {
  const std::string summa = "float alpha = 1.0f, beta = 1.0f; // C = alpha * A * B + beta * C\n";
  EXPECT_TRUE(GemmAccumulates(Sgemm("&beta"), summa));
  EXPECT_FALSE(GemmAccumulates(Sgemm("&beta"), "const float alpha = 1.0f, beta = 0.0f;\n"));
  EXPECT_FALSE(GemmAccumulates(Sgemm("&zero"), "const float one = 1.f, zero = 0.f;\nif (zero == 0) {}\n"));
  EXPECT_TRUE(GemmAccumulates(Sgemm("&b"), "float b{1.0f};\n"));
  EXPECT_FALSE(GemmAccumulates(Sgemm("&beta"), "float beta = cfg.accumulate ? 1.0f : 0.0f;\n"));
  EXPECT_FALSE(GemmAccumulates(Sgemm("&beta"), BlankComments("// beta = 1 would add to C\nfloat beta = 0.0f;\n")));
  EXPECT_FALSE(GemmAccumulates(Sgemm("&p.beta"), "p.beta = 1.0f;\n"));
  AnalyzedOp kernel = Sgemm("&beta");
  kernel.api = "scale";
  EXPECT_FALSE(GemmAccumulates(kernel, summa));
}

}  // namespace
}  // namespace cuco::scaffold_internal
