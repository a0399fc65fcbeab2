#include "scaffold/host_buffers.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

AnalyzedOp Op(const std::string& kind, const std::string& api, const std::string& function, int line,
              std::vector<std::string> args) {
  AnalyzedOp op;
  op.kind = kind, op.api = api, op.function = function, op.file = "/src/mm.cu", op.line = line;
  op.args = std::move(args);
  return op;
}

// perflab's multi-GPU SGEMM: a helper makes its device buffers each call, copies main's h_B in and
// the all-reduced result out to main's h_C. A local staging vector (A_shard) is no variable of main.
Analysis Sgemm() {
  Analysis a;
  a.functions = {{"multi_gpu_sgemm", "/src/mm.cu", 130, {"M", "N", "K", "h_A", "h_B", "h_C", "comms"}, ""},
                 {"main", "/src/mm.cu", 254, {"argc", "argv"}, ""}};
  a.ops = {Op("copy", "cudaMemcpy", "multi_gpu_sgemm", 166, {"d_A[i]", "A_shard.data()", "sA", "cudaMemcpyHostToDevice"}),
           Op("copy", "cudaMemcpyAsync", "multi_gpu_sgemm", 171,
              {"d_B[i]", "&h_B[static_cast<size_t>(offset) * N]", "sB", "cudaMemcpyHostToDevice", "streams[i]"}),
           Op("copy", "cudaMemcpy", "multi_gpu_sgemm", 205, {"h_C.data()", "d_C[0]", "bytes", "cudaMemcpyDeviceToHost"}),
           Op("call", "multi_gpu_sgemm", "main", 299, {"M", "N", "K", "h_A", "h_B", "h_C", "comms.data()"}),
           Op("call", "multi_gpu_sgemm", "main", 307, {"M", "N", "K", "h_A", "h_B", "h_C", "comms.data()"})};
  return a;
}

TEST(HostBuffers, TheHelpersHostCopiesAreFollowedToTheLoopsCall) {
  const std::vector<HostCopy> copies = HostCopiesOfIteration(Sgemm(), "main", "mm.cu", 303, 312);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].name, "h_B");
  EXPECT_FALSE(copies[0].to_host);
  EXPECT_EQ(copies[0].line, 307);  // the call in the loop, not the warm-up's
  EXPECT_EQ(copies[1].name, "h_C");
  EXPECT_TRUE(copies[1].to_host);
  EXPECT_TRUE(HostCopiesOfIteration(Sgemm(), "main", "mm.cu", 320, 330).empty());  // the loop calls no helper
}

TEST(HostBuffers, BindArgumentsGiveTheSizeWhereMainMakesIt) {
  EXPECT_EQ(HostBindArguments("h_C", "std::vector<float> h_A(n), h_C(static_cast<size_t>(M) * N, 0.0f);"), "h_C");
  EXPECT_EQ(HostBindArguments("h_C", "std::vector<std::vector<float>> rows(h_C);"), "");  // an argument, not a declarator
  EXPECT_EQ(HostBindArguments("h_C", "std::vector<float> h_C(n);"), "h_C");
  EXPECT_EQ(HostBindArguments("h_C", "float* h_C = new float[m * n];"), "h_C, m * n");
  EXPECT_EQ(HostBindArguments("h_C", "float *h_C = (float*)malloc(n * sizeof(float));"),
            "h_C, (n * sizeof(float)) / sizeof(*h_C)");
  EXPECT_EQ(HostBindArguments("h_C", "double *h_C; h_C = (double *)calloc(n, sizeof(double));"),
            "h_C, (n) * ( sizeof(double)) / sizeof(*h_C)");
  EXPECT_EQ(HostBindArguments("h_C", "float h_C[1024];"), "h_C, sizeof(h_C) / sizeof(h_C[0])");
  EXPECT_EQ(HostBindArguments("h_C", "float* h_C = get_result();"), "");  // no size known
  EXPECT_EQ(HostBindArguments("h_C[0]", "std::vector<float> h_C(n);"), "");
}

// What main gives host memory (the host end of a copy of no spelled direction, never a device
// buffer to bind): any declarator of a std::vector, new, malloc and its kin; not cudaMalloc'd memory.
TEST(HostBuffers, HostMemoryOfAnyDeclaratorAndAllocator) {
  EXPECT_TRUE(HostMemoryOf("h_b", "std::vector<float> h_a(n), h_b(n);"));
  EXPECT_TRUE(HostMemoryOf("x", "vector<int> x;"));
  EXPECT_TRUE(HostMemoryOf("p", "float* p = new float[n];"));
  EXPECT_TRUE(HostMemoryOf("p", "p = (float*)aligned_alloc(64, bytes);"));
  EXPECT_TRUE(HostMemoryOf("p", "p = static_cast<float*>(std::malloc(bytes));"));
  EXPECT_TRUE(HostMemoryOf("n", "real* n; cudaMallocHost(&n, sizeof(real));"));  // pinned
  EXPECT_TRUE(HostMemoryOf("n", "cudaHostAlloc((void**)&n, bytes, cudaHostAllocDefault);"));
  EXPECT_FALSE(HostMemoryOf("d", "float* d; cudaMalloc(&d, bytes);"));
  EXPECT_FALSE(HostMemoryOf("h_b[0]", "std::vector<float> h_b(n);"));
}

TEST(HostBuffers, BindsOnlyWhereTheResultIsHostMemory) {
  const std::string before = "std::vector<float> h_A(M * K), h_B(K * N), h_C(M * N, 0.0f);";
  std::vector<HostBind> binds = HostBinds(Sgemm(), "main", "mm.cu", 303, 312, before);
  ASSERT_EQ(binds.size(), 2u);
  EXPECT_EQ(binds[0].statement, "cuco_bind.host_input(\"h_B\", h_B);");
  EXPECT_EQ(binds[1].statement, "cuco_bind.host_output(\"h_C\", h_C);");
  EXPECT_TRUE(binds[1].out && !binds[1].in);
  EXPECT_NE(binds[1].guess.find("cudaMemcpy in multi_gpu_sgemm (mm.cu:205) copies into it"), std::string::npos);
  Analysis inputs_only = Sgemm();
  inputs_only.ops.erase(inputs_only.ops.begin() + 2);
  EXPECT_TRUE(HostBinds(inputs_only, "main", "mm.cu", 303, 312, before).empty());  // no result there
  EXPECT_TRUE(HostBinds(Sgemm(), "main", "mm.cu", 303, 312, "float* h_C = get();").empty());  // no size known
}

}  // namespace
}  // namespace cuco::scaffold_internal
