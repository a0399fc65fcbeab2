// cuco init's last pass on a small program, after the four before it: the harness's files.
#include "scaffold/init_render.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"
#include "scaffold/program_harness.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"

namespace cuco::scaffold_internal {
namespace {

TEST(InitRender, TheFilesWithTheStepInAnEvolveBlock) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace render;
  auto r = RunThroughMain(*p);
  ASSERT_NE(r, nullptr);
  Result<ProjectFiles> project = Project(p->facts, {}, r->found, r->main, &r->trace);
  ASSERT_TRUE(project.ok()) << project.status().ToString();
  Result<ProgramHarness> h = Render(p->facts, r->found, r->bound, *project, &render);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  std::vector<std::string> names;
  for (const auto& [name, text] : h->files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"seed.cu", "reference.cu", "workload.toml", "README.md"}));
  const std::string& seed = h->files[0].second;
  const std::string& reference = h->files[1].second;
  const size_t block = seed.find(std::string(kEvolveStartLine) + "\nvoid step(");
  EXPECT_NE(block, std::string::npos) << seed;
  EXPECT_EQ(reference.find(kEvolveStartLine), std::string::npos);
  EXPECT_NE(reference.find("#include <cuco/program/reference.h>"), std::string::npos);
  EXPECT_NE(seed.find("cuco_program::shim::StreamCreate"), std::string::npos) << "the harness's stand-ins";
  EXPECT_EQ(h->evolve, (std::vector<std::string>{"step", "scale"}));
  EXPECT_NE(h->files[2].second.find("mode = \"harness\""), std::string::npos);
  EXPECT_EQ(h->guesses.back(), "EVOLVE blocks (what candidates may change): step, scale");
  EXPECT_TRUE(Traced(render.lines, {"EVOLVE blocks", "step"}));
  EXPECT_TRUE(Traced(render.lines, {"harness/seed.cu:", "lines"}));
}

// A loop whose body communicates itself and whose last line goes on after it (`} sync(s);`): the
// block's end marker is a line of its own, and the code after the loop stays code.
TEST(InitRender, CodeAfterTheBlockOnItsLastLineStaysCode) {
  auto p = GatherSmallProgram("tail.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
__global__ void scale(float* y, const float* x) { y[threadIdx.x] = 2.f * x[threadIdx.x]; }
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *x, *y, *tmp;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  cudaMalloc(&tmp, 256 * sizeof(float));
  for (int i = 0; i < 100; ++i) { scale<<<1, 256, 0, s>>>(tmp, x); ncclAllReduce(tmp, y, 256, ncclFloat, ncclSum, comm, s); } cudaStreamSynchronize(s);
  return 0;
}
)");
  std::vector<InitPassTrace> trace;
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {}, &trace);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  const std::string& seed = h->files[0].second;
  const size_t end = seed.find(kEvolveEndLine);
  ASSERT_NE(end, std::string::npos) << seed;
  EXPECT_EQ(seed.substr(end, seed.find('\n', end) - end), kEvolveEndLine) << seed;
  EXPECT_NE(seed.find("\n cudaStreamSynchronize(s);", end), std::string::npos) << seed;
  EXPECT_EQ(h->evolve.back(), "the timed loop's body");
  // Statements served whole (no loop) are called so.
  std::string once = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *x, *y;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  ncclAllReduce(x, y, 256, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  return 0;
}
)";
  auto q = GatherSmallProgram("once.cu", once);
  Result<ProgramHarness> g = MakeProgramHarness(q->facts, {}, &trace);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_FALSE(g->evolve.empty());
  EXPECT_EQ(g->evolve.back(), "the statements served whole");
}

// The whole chain through MakeProgramHarness: one trace per pass, in order; a program the first pass
// refuses has that pass's trace only, ending with the reason.
TEST(InitRender, MakeProgramHarnessTracesEachPass) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  std::vector<InitPassTrace> trace;
  ASSERT_TRUE(MakeProgramHarness(p->facts, {}, &trace).ok());
  std::vector<std::string> passes;
  for (const auto& t : trace) passes.push_back(t.pass);
  EXPECT_EQ(passes, (std::vector<std::string>{"find the loop", "bind the buffers", "rewrite main", "project", "render"}));
  auto none = GatherSmallProgram("none.cu", "#include <nccl.h>\nint main() {\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  return 0;\n}\n");
  trace.clear();
  Result<ProgramHarness> h = MakeProgramHarness(none->facts, {}, &trace);
  ASSERT_FALSE(h.ok());
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].lines.back(), "stopped: " + h.status().message());
}

// A program with no loop reaching the communication has its statements served whole: what the
// harness's files say of its iteration says so, never "timed loop" (teju85/nccl-bench, one timed call).
TEST(InitRender, StatementsServedWholeAreNotCalledATimedLoop) {
  auto p = GatherSmallProgram("once.cu", "#include <nccl.h>\n#include <cuda_runtime.h>\nint main() {\n" +
                                             kOneRankCommAndStream +
                                             "  float *x, *y;\n  cudaMalloc(&x, 1024);\n  cudaMalloc(&y, 1024);\n"
                                             "  ncclAllReduce(x, y, 256, ncclFloat, ncclSum, comm, s);\n"
                                             "  cudaStreamSynchronize(s);\n  return 0;\n}\n");
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  for (const auto& [name, text] : h->files) {
    EXPECT_EQ(text.find("timed loop"), std::string::npos) << name << ":\n" << text;
    if (name != "README.md") {
      EXPECT_NE(text.find("served whole"), std::string::npos) << name;
    }
  }
}

// The tolerance follows the least precise output, not only the communication's datatype: an fp32
// all-reduce whose result a kernel writes into a half output is compared as fp16 (moe_ep_mpi's half
// output, summed by atomics in a run-dependent order, failed fp32's 1e-4 against its own copy).
TEST(InitRender, AHalfOutputIsComparedAsFp16) {
  auto p = GatherSmallProgram("half_out.cu", "#include <nccl.h>\n#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n"
                                                 "__global__ void to_half(const float* x, __half* y) {\n"
                                                 "  y[threadIdx.x] = __float2half(x[threadIdx.x]);\n}\n"
                                                 "int main() {\n" +
                                                     kOneRankCommAndStream +
                                                     "  float* x;\n  __half* y;\n  cudaMalloc(&x, 1024);\n"
                                                     "  cudaMalloc(&y, 512);\n"
                                                     "  for (int it = 0; it < 10; ++it) {\n"
                                                     "    ncclAllReduce(x, x, 256, ncclFloat, ncclSum, comm, s);\n"
                                                     "    to_half<<<1, 256, 0, s>>>(x, y);\n  }\n"
                                                     "  cudaStreamSynchronize(s);\n  return 0;\n}\n");
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  for (const auto& [name, text] : h->files)
    if (name == "workload.toml") {
      EXPECT_NE(text.find("# fp16 outputs (11 significant bits) (y is __half)"), std::string::npos) << text;
      EXPECT_NE(text.find("rel_l2 = 0.01"), std::string::npos) << text;
    }
}

// A kernel the iteration launches that reads the GPU's clock (a sleep emulating a straggler, found
// on arjundevraj/stragglar: the whole program became a skeleton) stays frozen, outside the EVOLVE
// blocks, which keep the rest of the compute and the communication; the seed passes the deny-list.
TEST(InitRender, AKernelUsingWhatCandidatesMayNotStaysFrozen) {
  std::string text = kSmallStepProgram;  // its step(): scale, then the all-reduce
  const std::string sleep = "__global__ void sleep_kernel(clock_t cycles) {\n  clock_t start = clock();\n"
                            "  while (clock() - start < cycles);\n}\n";
  const size_t step = text.find("void step(");
  ASSERT_NE(step, std::string::npos);
  text.insert(step, sleep);
  const std::string launch = "  scale<<<1, 256, 0, s>>>(tmp, x, n);\n";
  const size_t scale = text.find(launch);
  ASSERT_NE(scale, std::string::npos);
  text.insert(scale, "  sleep_kernel<<<1, 1, 0, s>>>(1000);\n");
  auto p = GatherSmallProgram("sleep.cu", text);
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(std::find(h->evolve.begin(), h->evolve.end(), "sleep_kernel"), h->evolve.end());
  EXPECT_NE(std::find(h->evolve.begin(), h->evolve.end(), "scale"), h->evolve.end());
  bool said = false;
  for (const std::string& g : h->guesses)
    said |= g.rfind("sleep.cu:" + std::to_string(LineWith(text, "clock_t start")) + ": sleep_kernel uses 'clock' (timing and "
                    "event APIs), which code inside EVOLVE blocks may not: it stays frozen", 0) == 0;
  EXPECT_TRUE(said);
  EXPECT_TRUE(CheckDenyList(h->files[0].second, "seed.cu").ok()) << CheckDenyList(h->files[0].second, "seed.cu").message();
}

// A function issuing the iteration's communication that also writes a file (hrshl212's
// save_solution: an MPI_Gather, then fopen of a snapshot every 40 steps): frozen, run as written, and
// the harness made, where before the seed's deny-list scan refused the whole program.
TEST(InitRender, ACommunicatingFunctionWritingAFileStaysFrozen) {
  std::string text = kSmallStepProgram;  // its step(): scale, then the all-reduce
  const std::string comm = "  ncclAllReduce(tmp, y, n, ncclFloat, ncclSum, comm, s);\n";
  const size_t at = text.find(comm);
  ASSERT_NE(at, std::string::npos);
  text.insert(at + comm.size(), "  FILE* f = fopen(\"snapshot.bin\", \"wb\");\n  fclose(f);\n");
  text.insert(0, "#include <cstdio>\n");
  auto p = GatherSmallProgram("snap.cu", text);
  Result<ProgramHarness> h = MakeProgramHarness(p->facts, {});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(std::find(h->evolve.begin(), h->evolve.end(), "step"), h->evolve.end());
  bool said = false;
  for (const std::string& g : h->guesses)
    said |= g.find("step uses 'fopen'") != std::string::npos &&
            g.find("its communication stays as the program wrote it: it stays frozen") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(h->guesses);
  EXPECT_TRUE(CheckDenyList(h->files[0].second, "seed.cu").ok()) << CheckDenyList(h->files[0].second, "seed.cu").message();
  // What the seed's spellings answer (`exit`, `cudaSetDevice`: llm.c's gpt2_update, a projected
  // program's helpers) keeps such a function in the blocks.
  std::string exits = kSmallStepProgram;
  exits.insert(exits.find(comm) + comm.size(), "  if (n < 0) exit(1);\n  cudaSetDevice(0);\n");
  auto q = GatherSmallProgram("exits.cu", exits);
  Result<ProgramHarness> e = MakeProgramHarness(q->facts, {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_NE(std::find(e->evolve.begin(), e->evolve.end(), "step"), e->evolve.end()) << ::testing::PrintToString(e->evolve);
  EXPECT_TRUE(CheckDenyList(e->files[0].second, "seed.cu").ok()) << CheckDenyList(e->files[0].second, "seed.cu").message();
}

}  // namespace
}  // namespace cuco::scaffold_internal
