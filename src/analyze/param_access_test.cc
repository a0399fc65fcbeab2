#include "analyze/param_access.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

// The access of the first `p` in `code` (a whole-word match).
ParamAccess First(const std::string& code) {
  size_t at = 0;
  while ((at = code.find('p', at)) != std::string::npos) {
    const bool start = at == 0 || !(std::isalnum(static_cast<unsigned char>(code[at - 1])) || code[at - 1] == '_');
    const bool stop = at + 1 >= code.size() || !(std::isalnum(static_cast<unsigned char>(code[at + 1])) || code[at + 1] == '_');
    if (start && stop) break;
    ++at;
  }
  return AccessAt(code, at, at + 1);
}

void Expect(const std::string& code, bool read, bool write) {
  ParamAccess a = First(code);
  EXPECT_EQ(a.read, read) << code;
  EXPECT_EQ(a.write, write) << code;
}

TEST(ParamAccess, StoresLoadsAndReadModifyWrites) {
  Expect("p[i] = acc;", false, true);
  Expect("p[row * n + col] = a[i] * b[i];", false, true);
  Expect("*p = 0;", false, true);
  Expect("x = p[i] + 1;", true, false);
  Expect("if (p[i] == 0) return;", true, false);
  Expect("y = *p;", true, false);
  Expect("p[i] += bias;", true, true);
  Expect("p[i] <<= 1;", true, true);
  Expect("p[i]++;", true, true);
  Expect("++p[i];", true, true);
  Expect("p[i].x = 1.f;", false, true);
  Expect("s = p[i].x;", true, false);
  Expect("out = a * p[i];", true, false);   // a binary *, not a dereference
  Expect("out = a & p[i];", true, false);   // a binary &
}

TEST(ParamAccess, UsesTheTextCannotSettleAreBoth) {
  Expect("float* row = p + r * n;", true, true);
  Expect("atomicAdd(&p[i], v);", true, true);
  Expect("store(p, v);", true, true);
  Expect("q = &p;", true, true);
}

// A template stencil kernel whose launch clang could not resolve (its file's CUB headers half-parse):
// read from the text, it writes a_new and the norm, reads a, and takes a_new's neighbours nowhere.
TEST(ParamAccess, AKernelFromItsTextAlone) {
  const std::string text =
      "template <int BX, int BY>\n__global__ void jacobi_kernel(float* __restrict__ const a_new,\n"
      "    const float* __restrict__ const a, float* __restrict__ const l2, const int iy_start, const int nx) {\n"
      "  int iy = blockIdx.y + iy_start;\n  a_new[iy * nx + 1] = 0.25f * (a[iy * nx] + a[iy * nx + 2]);\n"
      "  atomicAdd(l2, 1.f);\n}\nvoid f() { jacobi_kernel<32, 4><<<1, 1>>>(x, y, z, 1, 2); }\n";
  KernelParams k;
  ASSERT_TRUE(KernelParamsFromText(text, "jacobi_kernel", &k));
  EXPECT_EQ(k.pointers, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(k.const_pointers, (std::vector<int>{1}));
  EXPECT_EQ(k.read, (std::vector<int>{1, 2}));     // a; l2 (passed whole to atomicAdd: both)
  EXPECT_EQ(k.written, (std::vector<int>{0, 2}));  // a_new; l2
  EXPECT_FALSE(KernelParamsFromText(text, "f", &k));  // not a kernel
}

}  // namespace
}  // namespace cuco
