// MakeProgramHarness through ScaffoldWorkload on habits of programs written elsewhere that need the
// analysis: a CUDA graph program's launch loop, and a stencil's swapped grids.
#include "scaffold/program_harness.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"
#include "scaffold/scaffold.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

class ProgramHarnessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cuco-harness-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  ScaffoldReport Init(const std::string& name, const std::string& text) {
    const std::string path = (root_ / name).string();
    std::ofstream(path) << text;
    AnalyzeOptions o;
    o.include_dirs = DefaultIncludeDirs();
    Result<Analysis> a = AnalyzeFile(path, o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    Result<ScaffoldReport> r = ScaffoldWorkload(a.ok() ? *a : Analysis{}, path, root_ / "wl");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ScaffoldReport{};
  }
  std::string Seed() const { return *ReadFile(root_ / "wl" / "harness" / "seed.cu"); }
  std::string Reference() const { return *ReadFile(root_ / "wl" / "harness" / "reference.cu"); }
  fs::path root_;
};

// Multi-GPU programming models' graph variant: the halo exchange is captured into two graphs (the
// grids swapped between the captures), and the timed loop launches them by its counter's parity.
// The launch loop is served (the capture loop was), its counter held at its first value, and the
// grids the captures touch are bound by copy: the graphs keep the pointers they were captured with.
TEST_F(ProgramHarnessTest, AGraphProgramsLaunchLoopWithItsCapturedBuffersByCopy) {
  const ScaffoldReport r = Init("graph.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <utility>
__global__ void step(float* out, const float* in, int n) { out[threadIdx.x] = in[threadIdx.x] * 0.5f; }
int main() {
)" + scaffold_internal::kOneRankCommAndStream + R"(  const int n = 1024;
  float *a, *a_new;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&a_new, n * sizeof(float));
  cudaGraph_t graphs[2];
  cudaGraphExec_t exec[2];
  for (int k = 0; k < 2; ++k) {
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    step<<<1, 256, 0, s>>>(a_new, a, n);
    ncclGroupStart();
    ncclSend(a_new, 1, ncclFloat, 0, comm, s);
    ncclRecv(a_new + n - 1, 1, ncclFloat, 0, comm, s);
    ncclGroupEnd();
    cudaStreamEndCapture(s, &graphs[k]);
    cudaGraphInstantiate(&exec[k], graphs[k], 0);
    std::swap(a, a_new);
  }
  int iter = 0;
  while (iter < 100) {
    cudaGraphLaunch(exec[iter % 2], s);
    iter++;
  }
  cudaStreamSynchronize(s);
  return 0;
}
)");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool launch = false;
  for (const auto& g : r.harness_guesses) launch |= g.find("graph.cu:30: the timed loop") != std::string::npos;
  EXPECT_TRUE(launch) << "the launch loop (line 30) is served";
  const std::string seed = Seed();
  EXPECT_NE(seed.find("cuco_bind.input_copy(\"a\", a);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_bind.inout_copy(\"a_new\", a_new);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("const auto cuco_pinned_iter = iter;"), std::string::npos) << seed;
  EXPECT_NE(seed.find("iter = cuco_pinned_iter;"), std::string::npos) << seed;
  // Its communication is captured: the reference asks CUDA for more hardware queues
  // (cuco/program/reference.h), before its header.
  const std::string ref = Reference();
  const size_t flag = ref.find("#define CUCO_PROGRAM_CAPTURES_GRAPHS 1");
  EXPECT_NE(flag, std::string::npos) << ref;
  EXPECT_LT(flag, ref.find("#include <cuco/program/reference.h>")) << ref;
}

// A program that captures nothing keeps CUDA's own hardware queues (each more costs every
// context's creation).
TEST_F(ProgramHarnessTest, AProgramCapturingNoGraphKeepsCudasHardwareQueues) {
  const ScaffoldReport r = Init("step.cu", scaffold_internal::kSmallStepProgram);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(Reference().find("CUCO_PROGRAM_CAPTURES_GRAPHS"), std::string::npos) << Reference();
}

// main of a benchmark sweeping sizes, each case a call of its helper `runCase`.
const std::string kSweepMain = "int main() {\n" + scaffold_internal::kOneRankCommAndStream + R"(  for (size_t n = 1024; n <= 4096; n *= 2) runCase(n, comm, s);
  return 0;
}
)";

// A benchmark's sweep in main calls a helper, once per case, that allocates its buffers and times a
// loop of collectives (mz687/nccl-nvfp4-comm's dtype scaling example): main names none of its
// buffers. The helper's loop, where they are named, is served, as `--loop` would serve it, and the
// README says why.
TEST_F(ProgramHarnessTest, AHelpersTimedLoopIsServedWhereMainNamesNoOutput) {
  const ScaffoldReport r = Init("sweep.cu", std::string(R"(#include <nccl.h>
#include <cuda_runtime.h>
void runCase(size_t n, ncclComm_t comm, cudaStream_t s) {
  float *send = nullptr, *recv = nullptr;
  cudaMalloc(&send, n * sizeof(float));
  cudaMalloc(&recv, n * sizeof(float));
  for (int it = 0; it < 20; ++it) {
    ncclAllReduce(send, recv, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
  cudaFree(send);
  cudaFree(recv);
}
)") + kSweepMain);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool served = false;
  for (const std::string& g : r.harness_guesses)
    served |= g.rfind("sweep.cu:7: the timed loop (the loop where the iteration's output is named, as `--loop "
                      "sweep.cu:7` would serve, in runCase", 0) == 0;
  EXPECT_TRUE(served) << ::testing::PrintToString(r.harness_guesses);
  EXPECT_NE(Seed().find("\"recv\""), std::string::npos) << Seed();
}

// A size sweep in main around its timed loop: the harness serves the sweep's first pass, and init
// says how to time another size (the program's own arguments start the sweep there).
TEST_F(ProgramHarnessTest, ASweepsTimedLoopSaysHowToTimeAnotherSize) {
  const ScaffoldReport r = Init("sizes.cu", "#include <nccl.h>\n#include <cuda_runtime.h>\n#include <cstdlib>\n"
                                            "int main(int argc, char** argv) {\n" + scaffold_internal::kOneRankCommAndStream + R"(  size_t first = argc > 1 ? atol(argv[1]) : 1024;
  float *send, *recv;
  cudaMalloc(&send, (1 << 20) * sizeof(float));
  cudaMalloc(&recv, (1 << 20) * sizeof(float));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (size_t n = first; n <= (1 << 20); n *= 4) {
    cudaMemset(recv, 0, n * sizeof(float));
    cudaEventRecord(t0, s);
    for (int it = 0; it < 20; ++it) {
      ncclAllReduce(send, recv, n, ncclFloat, ncclSum, comm, s);
    }
    cudaEventRecord(t1, s);
    cudaEventSynchronize(t1);
  }
  return 0;
}
)");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool said = false;
  for (const std::string& g : r.harness_guesses)
    said |= g.find("timed inside the untimed loop at line 18, whose first pass it runs in: to time another size, give "
                   "`--args` that start that loop there") != std::string::npos;
  EXPECT_TRUE(said) << ::testing::PrintToString(r.harness_guesses);
}

// A helper's loop that cannot be bound either (more buffers than the harness takes): the skeleton
// says why main names no output, and why serving the helper's loop stops too.
TEST_F(ProgramHarnessTest, AHelpersLoopThatCannotBeBoundEitherSaysBoth) {
  std::string decls, calls;
  for (int k = 0; k < 17; ++k) {
    decls += "  float *s" + std::to_string(k) + ", *r" + std::to_string(k) + ";\n  cudaMalloc(&s" + std::to_string(k) +
             ", n * 4);\n  cudaMalloc(&r" + std::to_string(k) + ", n * 4);\n";
    calls += "    ncclAllReduce(s" + std::to_string(k) + ", r" + std::to_string(k) + ", n, ncclFloat, ncclSum, comm, s);\n";
  }
  const ScaffoldReport r = Init("sweep.cu", "#include <nccl.h>\n#include <cuda_runtime.h>\n"
                                            "void runCase(size_t n, ncclComm_t comm, cudaStream_t s) {\n" + decls +
                                                "  for (int it = 0; it < 20; ++it) {\n" + calls + "  }\n}\n" + kSweepMain);
  EXPECT_FALSE(r.harness_ready);
  EXPECT_NE(r.harness_reason.find("no output of the iteration could be named in main"), std::string::npos)
      << r.harness_reason;
  EXPECT_NE(r.harness_reason.find("; serving that loop stops too: sweep.cu:"), std::string::npos) << r.harness_reason;
  EXPECT_NE(r.harness_reason.find("the iteration has 34 buffers; the harness takes at most 32"), std::string::npos)
      << r.harness_reason;
}

// main has no loop and calls a helper once per message size that times a loop of collectives
// (Healthcliff-Ding/nccl-test, jihwan01/nccl_Imp's run_nccl_allgather): the helper's loop is served,
// not main's statements run whole; two such helpers, each called more than once, leave main's statements.
TEST_F(ProgramHarnessTest, AHelpersTimedLoopIsServedWhereMainHasNoLoop) {
  const std::string helper = R"(#include <nccl.h>
#include <cuda_runtime.h>
float *sendbuf, *recvbuf;
void bench(size_t n, ncclComm_t comm, cudaStream_t s) {
  for (int it = 0; it < 20; ++it) {
    ncclAllReduce(sendbuf, recvbuf, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
}
)";
  const std::string main_text = "int main() {\n" + scaffold_internal::kOneRankCommAndStream + R"(  cudaMalloc(&sendbuf, 4096 * sizeof(float));
  cudaMalloc(&recvbuf, 4096 * sizeof(float));
  bench(1024, comm, s);
  bench(4096, comm, s);
  return 0;
}
)";
  const ScaffoldReport r = Init("bench.cu", helper + main_text);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool served = false;
  for (const std::string& g : r.harness_guesses) served |= g.rfind("bench.cu:5: the timed loop (the loop of a function main calls", 0) == 0;
  EXPECT_TRUE(served) << ::testing::PrintToString(r.harness_guesses);

  fs::remove_all(root_ / "wl");
  std::string two = helper;
  two.replace(two.find("void bench("), 11, "void other(");
  const ScaffoldReport both = Init("bench.cu", helper + two.substr(two.find("void other(")) +
                                                   std::string(main_text).replace(main_text.find("  return 0;"), 0,
                                                                                  "  other(1024, comm, s);\n  other(4096, comm, s);\n"));
  bool region = false;
  for (const std::string& g : both.harness_guesses) region |= g.find("run whole") != std::string::npos;
  EXPECT_TRUE(region) << ::testing::PrintToString(both.harness_guesses);
}

// h1ppox99/ring-attention: main calls its file's decode benchmark, which times a loop, only under
// `if (cfg.run == "decode")`, where `run` is "prefill" unless `--run` says otherwise; the default path
// reaches the communication through another call. The decode loop is not served.
TEST_F(ProgramHarnessTest, AHelpersLoopInAnArmTheDefaultsNeverRunIsNotServed) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstring>
#include <string>
struct Config {
  std::string run = "prefill";
  int n = 1024;
};
Config parse(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--run") && i + 1 < argc) c.run = argv[++i];
  return c;
}
float *sendbuf, *recvbuf;
void decode(size_t n, ncclComm_t comm, cudaStream_t s) {
  for (int t = 0; t < 8; ++t) ncclAllReduce(sendbuf, recvbuf, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
void prefill(size_t n, ncclComm_t comm, cudaStream_t s) {
  ncclAllReduce(sendbuf, recvbuf, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
)" + scaffold_internal::kOneRankCommAndStream + R"(  cudaMalloc(&sendbuf, 4096 * sizeof(float));
  cudaMalloc(&recvbuf, 4096 * sizeof(float));
  if (cfg.run == "decode") {
    decode(cfg.n, comm, s);
    return 0;
  }
  prefill(cfg.n, comm, s);
  return 0;
}
)";
  for (const std::string& program : {text, std::string(text).replace(text.find("  prefill(cfg.n, comm, s);\n"), 0,
                                                                     "  prefill(cfg.n, comm, s);\n")}) {
    // Called twice, prefill is no function main hands its timing to: decode, called once, was.
    fs::remove_all(root_ / "wl");
    const ScaffoldReport r = Init("ring.cu", program);
    for (const std::string& g : r.harness_guesses) {
      EXPECT_EQ(g.find("the loop of a function main calls"), std::string::npos) << g;
      EXPECT_EQ(g.find("in decode"), std::string::npos) << g;
    }
    bool region = false;
    for (const std::string& g : r.harness_guesses) region |= g.find("run whole") != std::string::npos;
    EXPECT_TRUE(region) << r.harness_reason << ::testing::PrintToString(r.harness_guesses);
  }
}

// A mode read from a string picks, in a `switch`, which of two functions of main's file runs its
// timed loop (h1ppox99/ring-attention's run_ring_attention): which one runs is not known, so neither
// loop is served in silence (the last, run_ring_2d, was); the trace says why and names --loop.
TEST_F(ProgramHarnessTest, HelpersPickedByAModeNotKnownAreNotGuessed) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstring>
enum class Mode { Blocking, Overlap };
Mode mode_from(const char* name) { return std::strcmp(name, "overlap") == 0 ? Mode::Overlap : Mode::Blocking; }
float *sendbuf, *recvbuf;
void blocking(ncclComm_t comm, cudaStream_t s) {
  for (int it = 0; it < 10; ++it) {
    ncclAllReduce(sendbuf, recvbuf, 1024, ncclFloat, ncclSum, comm, s);
    cudaStreamSynchronize(s);
  }
}
void overlap(ncclComm_t comm, cudaStream_t s) {
  for (int it = 0; it < 10; ++it) ncclAllReduce(sendbuf, recvbuf, 1024, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
int main(int argc, char** argv) {
  const Mode mode = mode_from(argc > 1 ? argv[1] : "blocking");
)" + scaffold_internal::kOneRankCommAndStream + R"(  cudaMalloc(&sendbuf, 1024 * sizeof(float));
  cudaMalloc(&recvbuf, 1024 * sizeof(float));
  switch (mode) {
    case Mode::Blocking: blocking(comm, s); break;
    case Mode::Overlap: overlap(comm, s); break;
  }
  return 0;
}
)";
  const ScaffoldReport r = Init("modes.cu", text);
  for (const std::string& g : r.harness_guesses) {
    EXPECT_EQ(g.find("in overlap"), std::string::npos) << g;
    EXPECT_EQ(g.find("in blocking"), std::string::npos) << g;
  }
  bool region = false;
  for (const std::string& g : r.harness_guesses) region |= g.find("run whole") != std::string::npos;
  EXPECT_TRUE(region) << r.harness_reason << ::testing::PrintToString(r.harness_guesses);
}

// A function issuing communication that the served loop never calls (another mode's, h1ppox99/
// ring-attention's run_ring_blocking_fp16 beside the overlap loop served) stays out of the EVOLVE
// blocks: its NCCL calls and the iteration's would be two blocks no one declaration of the knobs
// reaches, and cuco transform stopped there. The loop's `switch` is no call: the first `switch` of
// the file (dispatch's, calling blocking) was read as its definition.
TEST_F(ProgramHarnessTest, CommunicationTheIterationNeverCallsStaysFrozen) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
float *sendbuf, *recvbuf;
void blocking(ncclComm_t comm, cudaStream_t s) {
  ncclAllReduce(sendbuf, recvbuf, 1024, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
void overlap(ncclComm_t comm, cudaStream_t s) {
  ncclAllReduce(sendbuf, recvbuf, 1024, ncclFloat, ncclSum, comm, s);
}
void dispatch(int mode, ncclComm_t comm, cudaStream_t s) {
  switch (mode) {
    case 0: blocking(comm, s); break;
    default: overlap(comm, s);
  }
}
int main(int argc, char** argv) {
)" + scaffold_internal::kOneRankCommAndStream + R"(  cudaMalloc(&sendbuf, 1024 * sizeof(float));
  cudaMalloc(&recvbuf, 1024 * sizeof(float));
  if (argc > 5) dispatch(argc, comm, s);
  for (int it = 0; it < 10; ++it) {
    switch (it % 2) {
      default: overlap(comm, s);
    }
  }
  cudaStreamSynchronize(s);
  return 0;
}
)";
  const ScaffoldReport r = Init("modes.cu", text);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool frozen = false, blocks = false;
  for (const std::string& g : r.harness_guesses) {
    frozen |= g.rfind("blocking issues communication the served iteration never calls", 0) == 0;
    if (g.rfind("EVOLVE blocks", 0) == 0) {
      blocks = true;
      EXPECT_EQ(g.find("blocking"), std::string::npos) << g;
      EXPECT_NE(g.find("overlap"), std::string::npos) << g;
    }
  }
  EXPECT_TRUE(frozen && blocks) << ::testing::PrintToString(r.harness_guesses);
}

// Healthcliff-Ding/nccl-test: `benchmark_inner<RANK>` sends in a loop where RANK is 0 and receives
// in another where it is not, and is called `<0>` on rank 0 and `<1>` on the others: RANK is a
// rank, so the two loops are one served loop whose body branches by it. Called `<0>` then `<1>` on
// every rank, ROLE has no one value, and main's statements are served.
TEST_F(ProgramHarnessTest, LoopsInTheArmsOfATemplatesRankParameterAreServedAsOne) {
  const std::string helper = R"(#include <nccl.h>
#include <cuda_runtime.h>
static char* buf;
static ncclComm_t comm;
static cudaStream_t s;
template <int ROLE>
static void bench(size_t chunk) {
  if (ROLE == 0) {
    for (size_t i = 0; i < (1 << 20) / chunk; i++) ncclSend(buf, chunk, ncclChar, 1, comm, s);
  } else {
    for (size_t i = 0; i < (1 << 20) / chunk; i++) ncclRecv(buf, chunk, ncclChar, 0, comm, s);
  }
  cudaStreamSynchronize(s);
}
)";
  const std::string by_rank = R"(void run(int rank, size_t chunk) {
  if (rank == 0) {
    bench<0>(chunk);
  } else {
    bench<1>(chunk);
  }
}
)";
  const std::string main_text = R"(int main() {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 2, id, 0);
  int rank;
  ncclCommUserRank(comm, &rank);
  cudaStreamCreate(&s);
  cudaMalloc(&buf, 1 << 20);
  run(rank, 4096);
  run(rank, 65536);
  return 0;
}
)";
  const ScaffoldReport r = Init("role.cu", helper + by_rank + main_text);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  bool split = false, inout = false;
  for (const std::string& g : r.harness_guesses) {
    split |= g.find("one in each branch of `if (ROLE == 0)`") != std::string::npos;
    inout |= g.rfind("`buf`: an input and an output", 0) == 0;
  }
  EXPECT_TRUE(split && inout) << ::testing::PrintToString(r.harness_guesses);

  fs::remove_all(root_ / "wl");
  const std::string in_turn = "void run(int rank, size_t chunk) {\n  bench<0>(chunk);\n  bench<1>(chunk);\n}\n";
  const ScaffoldReport turn = Init("role.cu", helper + in_turn + main_text);
  bool whole = false;
  for (const std::string& g : turn.harness_guesses) whole |= g.find("run whole") != std::string::npos;
  EXPECT_TRUE(whole) << ::testing::PrintToString(turn.harness_guesses);
}

}  // namespace
}  // namespace cuco
