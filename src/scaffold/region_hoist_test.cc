#include "scaffold/region_hoist.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// `ncclResult_t r = ncclGroupEnd();` ends the region and main checks r after it: r is declared
// before the serve call and assigned in the region. What the rest does not use stays as written.
TEST(HoistDeclarations, AVariableUsedAfterTheRegionIsDeclaredBeforeIt) {
  const std::string region =
      "ncclGroupStart();\n  int local = 3;\n  float* p;\n  ncclAllReduce(a, b, n, t, o, c, s);\n"
      "  ncclResult_t r = ncclGroupEnd();";
  HoistedRegion h = HoistDeclarations(region, "\n  if (r != ncclSuccess) return 1;\n  use(p);\n");
  EXPECT_EQ(h.declarations, "float* p{};\n  ncclResult_t r{};\n  ");
  EXPECT_EQ(h.region, "ncclGroupStart();\n  int local = 3;\n  \n  ncclAllReduce(a, b, n, t, o, c, s);\n"
                      "  r = ncclGroupEnd();");
}

// A number as the first value (`int iters = 20;`): the scan keeps no numbers, and it is hoisted all
// the same.
TEST(HoistDeclarations, ANumberAsTheFirstValue) {
  HoistedRegion h = HoistDeclarations("int iters = 20;\n  run(iters);", "\n  report(iters);\n");
  EXPECT_EQ(h.declarations, "int iters{};\n  ");
  EXPECT_EQ(h.region, "iters = 20;\n  run(iters);");
}

// Events declared together in the region and read after it (`cudaEvent_t a, b;`, a benchmark's
// timing): the declaration moves in front as written; one whose names the rest never uses stays, and
// `x, y;` (an expression) is none.
TEST(HoistDeclarations, SeveralNamesDeclaredTogetherMoveWhole) {
  const std::string region = "cudaEvent_t a, b;\n  float *p, *q;\n  x, y;\n  cudaEventRecord(a, s);";
  HoistedRegion h = HoistDeclarations(region, "\n  cudaEventElapsedTime(&ms, a, b);\n  x; y;\n");
  EXPECT_EQ(h.declarations, "cudaEvent_t a, b;\n  ");
  EXPECT_EQ(h.region, "\n  float *p, *q;\n  x, y;\n  cudaEventRecord(a, s);");
}

// Several variables initialised together (`float alpha = 1.0f, beta = 1.0f;` before a SUMMA's panel
// loop, both read by its check after): each declared in front, the statement their assignments.
// Before, the first alone was hoisted and `beta` left undeclared.
TEST(HoistDeclarations, SeveralInitialisedNamesAreEachDeclared) {
  const std::string region = "float alpha = 1.0f, beta = 1.0f; // C = A B + C\n  float *p = q + 4, *r = f(a, b);\n  g(p, r);";
  HoistedRegion h = HoistDeclarations(region, "\n  use(&beta, p);\n");
  EXPECT_EQ(h.declarations, "float alpha{};\n  float beta{};\n  float *p{};\n  float *r{};\n  ");
  EXPECT_EQ(h.region, "alpha = 1.0f, beta = 1.0f; // C = A B + C\n  p = q + 4, r = f(a, b);\n  g(p, r);");
  HoistedRegion unused = HoistDeclarations(region, "\n  other();\n");
  EXPECT_EQ(unused.declarations, "");
  EXPECT_EQ(unused.region, region);
}

// Statements that only look like declarations, and declarations that cannot be split, stay.
TEST(HoistDeclarations, OnlyPlainDeclarations) {
  const std::string region =
      "auto x = f();\n const int y = 2;\n return z;\n a::b = c;\n w == v;\n static int q = 1;\n"
      "for (int i = 0; i < 2; ++i) k = i;\n";
  HoistedRegion h = HoistDeclarations(region, "x y z b w v q i k;");
  EXPECT_EQ(h.declarations, "");
  EXPECT_EQ(h.region, region);
  EXPECT_EQ(h.kept, "x");  // the first declared name the rest uses, kept where it stood
  EXPECT_EQ(HoistDeclarations(region, "y q;").kept, "y");
  EXPECT_EQ(HoistDeclarations("int n = 4;\n auto m = n;", "n;").kept, "");  // n hoisted; m unused
}

}  // namespace
}  // namespace cuco::scaffold_internal
