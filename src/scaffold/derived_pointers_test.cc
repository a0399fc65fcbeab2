#include "scaffold/derived_pointers.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// SadreevAmir/hpc_final_project's ViT: per-tensor pointers into flat buffers, filled by a helper.
const char* kProgram = R"(static void assign_pointers(float **ptrs, float *base, const size_t *sz, int n) {
  float *cur = base;
  for (int i = 0; i < n; i++) { ptrs[i] = cur; cur += sz[i]; }
}
static void reduce_max(float *in, int n, float *out_scalar) {
  float h_max = 0;
  cudaMemcpy(&h_max, in, sizeof(float), cudaMemcpyDeviceToHost);
  *out_scalar = h_max;
}
static void init_params(float *d_params, const size_t *sizes, size_t total) {
  std::vector<float> host(total);
  cudaMemcpy(d_params, host.data(), total * sizeof(float), cudaMemcpyHostToDevice);
}
)";

TEST(DerivedPointers, AHelperStoringPointersIntoTheBufferMakesItBoundByCopy) {
  const std::string before = "  cudaMalloc(&d_params, n);\n  init_params(d_params, sz, n);\n"
                             "  assign_pointers(params, d_params, sz, N);\n  cudaMalloc(&d_x, n);\n";
  std::string why;
  EXPECT_TRUE(PointersDerivedBeforeLoop(before, kProgram, "d_params", &why));
  EXPECT_NE(why.find("assign_pointers, which stores through its parameter `ptrs`"), std::string::npos) << why;
  EXPECT_FALSE(PointersDerivedBeforeLoop(before, kProgram, "d_x", &why));  // only allocated
  // init_params alone fills the buffer and keeps nothing.
  EXPECT_FALSE(PointersDerivedBeforeLoop("  init_params(d_params, sz, n);\n", kProgram, "d_params", &why));
  // A helper storing a value it read from the buffer, not a pointer into it (Blink-GPU's reduce).
  EXPECT_FALSE(PointersDerivedBeforeLoop("  reduce_max(d_x, n, &check);\n", kProgram, "d_x", &why));
}

TEST(DerivedPointers, AnOffsetKeptInAVariableArrayOrMember) {
  std::string why;
  EXPECT_TRUE(PointersDerivedBeforeLoop("  float* w2 = d_w + n1;\n", "", "d_w", &why));
  EXPECT_TRUE(PointersDerivedBeforeLoop("  for (int i = 0; i < L; ++i) layer[i].w = &d_w[i * n];\n", "", "d_w", &why));
  EXPECT_TRUE(PointersDerivedBeforeLoop("  half* h = reinterpret_cast<half*>(d_w);\n", "", "d_w", &why));
  EXPECT_FALSE(PointersDerivedBeforeLoop("  d_w = nullptr;\n  cudaMalloc(&d_w, n);\n", "", "d_w", &why));
  EXPECT_FALSE(PointersDerivedBeforeLoop("  double *d_a = NULL, *d_b = NULL, *d_w;\n", "", "d_w", &why));  // declarators
  EXPECT_FALSE(PointersDerivedBeforeLoop("  size_t bytes = n * sizeof(*d_w);\n  bool same = d_w == d_v;\n", "", "d_w", &why));
  EXPECT_FALSE(PointersDerivedBeforeLoop("  float s = sum(d_w, n);\n", "", "d_w", &why));  // what a call returns
}

}  // namespace
}  // namespace cuco::scaffold_internal
