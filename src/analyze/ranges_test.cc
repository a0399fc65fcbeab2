#include "analyze/ranges.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "analyze/analysis.h"

namespace cuco {
namespace {

TEST(Ranges, DisjointOnlyWhenProvable) {
  // A stencil's interior rows and its first and last interior row, sent as halos.
  const ElemRange interior{"(iy_start + 1) * nx", "(iy_end - 1) * nx"};
  EXPECT_TRUE(ProvablyDisjoint(interior, *RangeOfArgument("a_new + iy_start * nx", "nx")));
  EXPECT_TRUE(ProvablyDisjoint(interior, *RangeOfArgument("a_new + (iy_end - 1) * nx", "nx")));
  EXPECT_TRUE(ProvablyDisjoint(interior, *RangeOfArgument("a_new", "nx")));  // row 0, a halo row
  // Rows that may meet, or a range not read as base + offset, are not disjoint.
  EXPECT_FALSE(ProvablyDisjoint(interior, *RangeOfArgument("a_new + (iy_start + 2) * nx", "nx")));
  EXPECT_FALSE(ProvablyDisjoint(interior, {"k * nx", "(k + 1) * nx"}));
  EXPECT_FALSE(RangeOfArgument("(char*)buf + off", "n").has_value());
  // An element's address (a CUDA-aware MPI halo receive, `&d_life[(myN+1)*(N+2)+0]`) is base + offset.
  const auto element = RangeOfArgument("&d_life[(myN+1)*(N+2)+0]", "N+2");
  ASSERT_TRUE(element.has_value());
  EXPECT_EQ(element->lo, "(myN+1)*(N+2)+0");
  EXPECT_TRUE(ProvablyDisjoint(*RangeOfArgument("&d_life[0*(N+2)+0]", "N+2"), {"(N+2)", "(myN+1)*(N+2)"}));
  EXPECT_FALSE(ProvablyDisjoint({"0", "n / 2"}, {"n / 2", "n"}));  // division: not read
  EXPECT_EQ(SubstituteNames("(lo + 1) * w", {{"lo", "iy_start"}, {"w", "nx"}}), "((iy_start) + 1) * (nx)");
}

TEST(Ranges, AKernelsRowsFromItsIndexing) {
  const std::string text =
      "__global__ void jacobi(float* __restrict__ const a_new, const float* __restrict__ const a, const int iy_start,\n"
      "                       const int iy_end, const int nx) {\n"
      "  int iy = blockIdx.y * blockDim.y + threadIdx.y + iy_start;\n"
      "  int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
      "  if (iy < iy_end && ix < (nx - 1)) {\n"
      "    a_new[iy * nx + ix] = 0.25f * (a[iy * nx + ix + 1] + a[iy * nx + ix - 1] + a[(iy + 1) * nx + ix] +\n"
      "                                   a[(iy - 1) * nx + ix]);\n"
      "  }\n}\n";
  const std::vector<std::string> params = {"a_new", "a", "iy_start", "iy_end", "nx"};
  auto w = KernelParamRange(text, 0, text.size(), "a_new", params, true);
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->lo, "(iy_start) * nx");
  EXPECT_EQ(w->hi, "(iy_end) * nx");
  auto r = KernelParamRange(text, 0, text.size(), "a", params, false);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->lo, "(iy_start - 1) * nx");
  EXPECT_EQ(r->hi, "(iy_end + 1) * nx");
  // An index not row-major (or a column past the width) is not read.
  const std::string other = "__global__ void k(float* p, int n) {\n  int i = threadIdx.x + 0;\n  p[i * 2] = 1;\n}\n";
  EXPECT_FALSE(KernelParamRange(other, 0, other.size(), "p", {"p", "n"}, true).has_value());
}

// The halo exchange of a stencil overlapping its interior: the interior kernel on one stream
// writes rows the sends on the other stream never read. No race (cuco analyze said there was one).
TEST(Ranges, DisjointRowsOnTwoStreamsAreNoRace) {
  const std::string path = (std::filesystem::temp_directory_path() / ("cuco_ranges_" + std::to_string(::getpid()) + ".cu")).string();
  std::ofstream(path)
      << "#include <nccl.h>\n#include <cuda_runtime.h>\n"
         "__global__ void jacobi(float* __restrict__ const a_new, const float* __restrict__ const a, const int iy_start,\n"
         "                       const int iy_end, const int nx) {\n"
         "  int iy = blockIdx.y * blockDim.y + threadIdx.y + iy_start;\n"
         "  int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;\n"
         "  if (iy < iy_end && ix < (nx - 1)) a_new[iy * nx + ix] = a[iy * nx + ix];\n}\n"
         "void step(float* a_new, float* a, int iy_start, int iy_end, int nx, ncclComm_t c, cudaStream_t comp,\n"
         "          cudaStream_t push) {\n"
         "  jacobi<<<1, 1, 0, push>>>(a_new, a, iy_start, iy_start + 1, nx);\n"
         "  jacobi<<<1, 1, 0, push>>>(a_new, a, iy_end - 1, iy_end, nx);\n"
         "  jacobi<<<1, 1, 0, comp>>>(a_new, a, iy_start + 1, iy_end - 1, nx);\n"
         "  ncclGroupStart();\n"
         "  ncclSend(a_new + iy_start * nx, nx, ncclFloat, 0, c, push);\n"
         "  ncclSend(a_new + (iy_end - 1) * nx, nx, ncclFloat, 1, c, push);\n"
         "  ncclGroupEnd();\n}\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> a = AnalyzeFile(path, o);
  std::filesystem::remove(path);
  ASSERT_TRUE(a.ok()) << a.status().message();
  for (const auto& w : a->warnings) EXPECT_EQ(w.find("a race"), std::string::npos) << w;
  int producers = 0;  // the boundary kernels on the sends' stream still produce what they send
  for (const auto& e : a->edges) producers += e.role == "producer" && e.via == "stream";
  EXPECT_GE(producers, 2);
}

}  // namespace
}  // namespace cuco
