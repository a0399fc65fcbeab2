#include "scaffold/loop_accesses.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// baidu-research/baidu-allreduce's AllgatherInputLengths and taufique71/nystrom-distributed's matmul:
// host arrays of counts a helper declares, fills with an MPI_Allgather and drops, are temporaries; what
// it returns, stores through a parameter, or names through its parameters, members and aliases is not.
TEST(HelperTemporariesTest, LocalsTheHelperMakesAndDropsAreTemporaries) {
  const std::string body =
      "{\n  std::vector<size_t> lengths(size);\n  int* nColToSend = new int[commSize];\n"
      "  ParMat C(A.nRowGlobal, B.nColGlobal, grid, 'C');\n  float* output;\n  float* buffer = nullptr;\n"
      "  double* cblas_c = multC;\n  int n = 4;\n  return lengths;\n}\n";
  const std::set<std::string> t = HelperTemporaries(body, {{"cblas_c", "multC"}});
  EXPECT_EQ(t.count("lengths"), 0u) << "returned";
  EXPECT_EQ(t.count("nColToSend"), 1u);
  EXPECT_EQ(t.count("C"), 1u);
  EXPECT_EQ(t.count("output"), 1u);
  EXPECT_EQ(t.count("cblas_c"), 0u) << "an alias of the caller's buffer";
  EXPECT_EQ(t.count("n"), 1u);
  // A value read through it and stored is no escape; a declaration giving it to another local neither.
  const std::set<std::string> values = HelperTemporaries(
      "{\n  int* nColToSend = new int[commSize];\n  nValToSend[i] = nColToSend[i] * n;\n  double* recvA = NULL;\n"
      "  double* cblas_a = recvA;\n}\n", {{"cblas_a", "recvA"}});
  EXPECT_EQ(values.count("nColToSend"), 1u);
  EXPECT_EQ(values.count("recvA"), 1u);
  // A struct copied from what the caller hands (llm.c's `ParameterTensors params = model->params;`) holds
  // the caller's buffers; a number read from it does not (taufique71's `int nColToSend = A.nColLocal;`).
  const std::set<std::string> copies = HelperTemporaries(
      "{\n  ParameterTensors params = model->params;\n  int nColToSend = A.nColLocal;\n  float* w = buf.get();\n}\n",
      {{"model", "&model"}, {"A", "A"}, {"buf", "buf"}});
  EXPECT_EQ(copies.count("params"), 0u);
  EXPECT_EQ(copies.count("nColToSend"), 1u);
  EXPECT_EQ(copies.count("w"), 0u);
  const std::set<std::string> arrays = HelperTemporaries(
      "{\n  float* d_sendbufs[2] = { d_sendbuf_k, d_sendbuf_v };\n  float* own[2];\n  float* made = new float[n];\n}\n",
      {{"d_sendbuf_k", "k"}, {"d_sendbuf_v", "v"}, {"n", "n"}});
  EXPECT_EQ(arrays.count("d_sendbufs"), 0u) << "an array of the caller's buffers";
  EXPECT_EQ(arrays.count("own"), 1u);
  EXPECT_EQ(arrays.count("made"), 1u) << "made there, though sized by a parameter";
  const std::set<std::string> stored =
      HelperTemporaries("{\n  float* buffer;\n  cudaMalloc(&buffer, n);\n  *output_ptr = buffer;\n  float* w;\n  s->w = w;\n"
                        "  ParMat C(m, n);\n  return std::move(C);\n  float* p1;\n  float* p2;\n  *o1 = p1; *o2 = p2;\n}\n",
                        {});
  EXPECT_TRUE(stored.empty()) << "stored where the caller sees it, or returned";
  // Statements a keyword starts declare nothing.
  EXPECT_TRUE(HelperTemporaries("{\n  return x;\n  delete[] p;\n  else y = 2;\n}\n", {}).empty());
}

}  // namespace
}  // namespace cuco::scaffold_internal
