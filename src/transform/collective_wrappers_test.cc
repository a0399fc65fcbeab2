#include "transform/collective_wrappers.h"

#include <gtest/gtest.h>

#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {
namespace {

std::vector<CollectiveWrapper> Wrappers(const std::string& text) {
  return FindCollectiveWrappers(text, "comm.h", {"ncclAllReduce", "ncclReduceScatter"}, [](size_t) { return false; });
}

// A class wrapping its communicator (qingyunqu/Learn-Programming's NCCLOverlap, held out in stop 72):
// the method's parameter is what the all-reduce reads, inside a group and a check macro.
TEST(CollectiveWrappers, AMethodAllReducingItsParameter) {
  const std::vector<CollectiveWrapper> w = Wrappers(
      "class Comm {\n"
      " public:\n"
      "  void allReduce(void* data, size_t count, ncclDataType_t t, ncclRedOp_t op) const {\n"
      "    NCCLCHECK(ncclGroupStart());\n"
      "    NCCLCHECK(ncclAllReduce(data, data, count, t, op, this->m_comm, this->m_stream));\n"
      "    NCCLCHECK(ncclGroupEnd());\n"
      "  }\n"
      "  ncclComm_t m_comm;\n  cudaStream_t m_stream;\n};\n");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].name, "allReduce");
  EXPECT_EQ(w[0].param, 0u);
  EXPECT_EQ(w[0].collective, "ncclAllReduce");
  EXPECT_EQ(w[0].where, "comm.h:5");
  EXPECT_FALSE(w[0].in_blocks);
}

// Its parameter cast, in an `if` of the helper, as a later parameter; a lambda held in a variable.
TEST(CollectiveWrappers, CastsBranchesLaterParametersAndLambdas) {
  const std::vector<CollectiveWrapper> w = Wrappers(
      "static void reduce_scatter(ncclComm_t comm, cudaStream_t s, const float* send /* in */, float* recv,\n"
      "                           size_t n = 0) {\n"
      "  if (n > 0) {\n"
      "    ncclReduceScatter(static_cast<const void*>(send), recv, n, ncclFloat, ncclSum, comm, s);\n"
      "  }\n"
      "}\n"
      "int main() {\n"
      "  auto all_reduce = [&](float* y, int n) mutable { ncclAllReduce((const void*)y, y, n, ncclFloat, ncclSum, c, s); };\n"
      "}\n");
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].name, "reduce_scatter");
  EXPECT_EQ(w[0].param, 2u);
  EXPECT_EQ(w[0].collective, "ncclReduceScatter");
  EXPECT_EQ(w[1].name, "all_reduce");
  EXPECT_EQ(w[1].param, 0u);
}

// A collective reading a member or a local is no wrapper; nor is an unnamed lambda handed on, nor a
// function computing too.
TEST(CollectiveWrappers, MembersLocalsAndUnnamedLambdasAreNone) {
  const std::vector<CollectiveWrapper> w = Wrappers(
      "struct L {\n"
      "  float* y;\n"
      "  void reduce(size_t n) { ncclAllReduce(y, y, n, ncclFloat, ncclSum, c, s); }\n"
      "};\n"
      "void step(size_t n) { float* t = pool(); ncclAllReduce(t, t, n, ncclFloat, ncclSum, c, s); }\n"
      "void run(float* x) { time_it([&](float* y) { ncclAllReduce(y, y, 4, ncclFloat, ncclSum, c, s); }); }\n"
      // A layer computing its output before all-reducing it (marcusalenius/15-418-project's
      // forward_layer_tp, held out in stop 73) is no wrapper: the GEMM inside it is the producer.
      "void layer(cublasHandle_t h, __half* x, __half* w) {\n"
      "  hgemm(h, w, x, x);\n  norm<<<4, 256>>>(x);\n"
      "  NCCL_CHECK(ncclAllReduce(x, x, 64, ncclHalf, ncclSum, c, s));\n}\n");
  EXPECT_TRUE(w.empty()) << w[0].name;
}

// The calls of a wrapper in the blocks: member calls and plain ones, not its definition, its
// declaration, or a call outside the blocks.
TEST(CollectiveWrappers, CallsInTheBlocksNotDefinitionsOrDeclarations) {
  const std::string text =
      "void allReduce(float* y, size_t n);\n"
      "void allReduce(float* y, size_t n) { ncclAllReduce(y, y, n, ncclFloat, ncclSum, c, s); }\n"
      "void before(Comm* comm, float* z) { allReduce(z, 4); }\n"
      "// EVOLVE-BLOCK-START\n"
      "struct Layer { void allReduce(float* y, size_t n) const; };\n"
      "void step(Comm* comm, Comm& other, float* z) {\n"
      "  comm->allReduce(z, 4);\n"
      "  other . allReduce(z, 4);\n"
      "  allReduce(z, 4);\n"
      "  if (ok(z)) return allReduce(z, 8);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  auto split = SplitEvolveBlocks(text, "seed.cu");
  ASSERT_TRUE(split.ok()) << split.status().message();
  SeedSource src(text, "seed.cu", *split);
  const std::vector<SeedCall> calls = WrapperCalls(src, {"allReduce", 0, "ncclAllReduce", "seed.cu:2", false});
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[0].line, 7);
  EXPECT_EQ(calls[1].line, 8);
  EXPECT_EQ(calls[2].line, 9);
  EXPECT_EQ(calls[3].line, 10);
  EXPECT_EQ(src.Args(calls[0]).at(0), "z");
}

}  // namespace
}  // namespace cuco::transform_internal
