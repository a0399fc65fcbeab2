// cuco init's third pass on a small program: main the harness's setup, its loop the iteration.
#include "scaffold/init_rewrite_main.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

TEST(InitRewriteMain, MainRenamedTheLoopServedTheVariableHeld) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  auto r = RunThroughMain(*p);
  ASSERT_NE(r, nullptr);
  const RewrittenMain* m = &r->main;
  const InitPassTrace& rewrite = r->rewrite;
  EXPECT_NE(m->text.find("cuco_program_main("), std::string::npos) << m->text;
  EXPECT_EQ(m->text.find("int main("), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_program::serve("), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_bind.input(\"x\", x);"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("int i = static_cast<int>((0));"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_program_entry"), std::string::npos) << m->text;
  EXPECT_EQ(m->text.find("for (int i = 0; i < 100; ++i)"), std::string::npos) << "the timed loop is served";
  EXPECT_TRUE(Traced(rewrite.lines, {"main renamed cuco_program_main"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"the loop replaced by cuco_program::serve", "2 bind(s)"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"`int i` is held at 0"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"no `#include <mpi.h>`"}));
}

// The iteration is a lambda main defines before its loop, reaching RAII buffers through `.get()`
// (captured by reference): each pointer is declared in front of the lambda, which uses it, and the
// bind rebinds it.
TEST(InitRewriteMain, ALambdasAccessorsAreHeldInFrontOfIt) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
struct Buf {
  explicit Buf(size_t n) { cudaMalloc(&p, n * sizeof(float)); }
  float* get() const { return p; }
  float* p = nullptr;
};
__global__ void scale(float* y, const float* x, int n) { y[threadIdx.x] = 2.f * x[threadIdx.x]; }
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int n = 1024;
  Buf x(n), y(n), tmp(n);
  auto run_chunk = [&](int c) {
    scale<<<1, 256, 0, s>>>(tmp.get(), x.get() + c, n);
    ncclAllReduce(tmp.get(), y.get(), n, ncclFloat, ncclSum, comm, s);
  };
  for (int i = 0; i < 100; ++i) run_chunk(0);
  cudaStreamSynchronize(s);
  return 0;
}
)";
  auto p = GatherSmallProgram("chunks.cu", text);
  auto r = RunThroughMain(*p);
  ASSERT_NE(r, nullptr);
  const RewrittenMain* m = &r->main;
  const InitPassTrace& rewrite = r->rewrite;
  EXPECT_NE(m->text.find("  auto* cuco_held_x = x.get();\n  auto* cuco_held_y = y.get();\n  auto run_chunk = [&](int c) {\n"
                         "    scale<<<1, 256, 0, s>>>(tmp.get(), cuco_held_x + c, n);\n"
                         "    ncclAllReduce(tmp.get(), cuco_held_y, n,"),
            std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_bind.input(\"x\", cuco_held_x);"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_bind.output(\"y\", cuco_held_y);"), std::string::npos) << m->text;
  EXPECT_EQ(m->text.find("for (int i = 0; i < 100; ++i)"), std::string::npos) << "the timed loop is served";
  ASSERT_EQ(m->lambdas.size(), 1u);
  EXPECT_EQ(m->text.find(m->lambdas[0]) != std::string::npos, true);
  EXPECT_TRUE(Traced(rewrite.lines, {"`y.get()` held in `cuco_held_y` in front of main's first lambda using it"}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
