// cuco init's first pass on small programs: the loop chosen, the candidates rejected and why.
#include "scaffold/init_find_loop.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"
#include "scaffold/program_text.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The warm-up loop runs before the timed one and the verbose loop only with an argument: the last
// loop that runs is the iteration, and the trace says why each of the others is not.
TEST(InitFindLoop, TheLastLoopThatRunsWithTheOthersRejected) {
  const std::string text = kSmallStepProgram;
  auto p = GatherSmallProgram("step.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int timed = LineWith(text, "// timed"), warm = LineWith(text, "// warm-up"), verbose = LineWith(text, "// verbose only");
  EXPECT_EQ(r->loop.line, timed);
  EXPECT_EQ(r->loop_fn, "main");
  EXPECT_FALSE(r->projected);
  EXPECT_TRUE(r->comm.count("step")) << "step reaches ncclAllReduce";
  EXPECT_TRUE(r->direct.count("step"));
  EXPECT_EQ(r->loop.loop_var_decl, "int i");
  EXPECT_TRUE(Traced(trace.lines, {"step.cu:" + std::to_string(timed), "chosen"}));
  EXPECT_TRUE(Traced(trace.lines, {"step.cu:" + std::to_string(warm), "rejected", "warm-up"}));
  EXPECT_TRUE(Traced(trace.lines, {"step.cu:" + std::to_string(verbose), "rejected", "without arguments"}));
  EXPECT_TRUE(Traced(r->guesses, {"the timed loop"}));
}

// A program of one rank with two buffers, x and y, up to main's next statement.
const std::string kOneRankTwoBuffers = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  float *x, *y;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
)";

// Calls in both branches of an `#ifdef` the build does not define (PARCOACH's CIVL benchmarks): the
// iteration is the branch compiled, not statements from the first branch's to the second's, which
// held the `#else` and made an EVOLVE block the deny-list refused (cuco init exited 4).
TEST(InitFindLoop, TheIterationIsChosenAmongTheCodeTheBuildCompiles) {
  const std::string text = kOneRankTwoBuffers + R"(#ifdef ORDER
  ncclAllGather(x, y, 1, ncclFloat, comm, 0);  // ordered
  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);
#else
  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);  // compiled
  ncclAllGather(x, y, 1, ncclFloat, comm, 0);
#endif
  cudaStreamSynchronize(0);
  return 0;
}
)";
  auto p = GatherSmallProgram("order.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, LineWith(text, "// compiled"));
  EXPECT_EQ(r->loop.end_line, LineWith(text, "// compiled") + 1);
  EXPECT_EQ(UnbalancedConditional(text, r->loop.begin, r->loop.end), 0);
}

// A loop whose only communication is a barrier (an all-reduce of a one-element token in a function
// named so) orders the ranks' prints; the program's work is its all-gather before it, run once
// (fasrc/User_Codes' ncclAllGather_nompi.cu, stop 81 on one H100: the print loop was served, and
// refused, its outputs the same for any inputs). A barrier-only program keeps its loop.
TEST(InitFindLoop, ALoopReachingOnlyABarrierIsNotTheIteration) {
  const std::string barrier = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>
static void nccl_barrier(ncclComm_t comm, int* token) {
  ncclAllReduce(token, token, 1, ncclInt, ncclSum, comm, 0);
  cudaStreamSynchronize(0);
}
)";
  const std::string text = barrier + R"(int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  float *x, *y;
  int* token;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  cudaMalloc(&token, sizeof(int));
  ncclAllGather(x, y, 256, ncclFloat, comm, 0);  // the work
  cudaStreamSynchronize(0);
  for (int r = 0; r < 1; ++r) {
    nccl_barrier(comm, token);
    if (r == 0) printf("rank %d\n", r);
    nccl_barrier(comm, token);
  }
  return 0;
}
)";
  auto p = GatherSmallProgram("ordered.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, LineWith(text, "// the work"));
  EXPECT_TRUE(r->loop.region);
  EXPECT_TRUE(Traced(trace.lines, {"nccl_barrier: a barrier"}));
  const std::string only = barrier + R"(int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  int* token;
  cudaMalloc(&token, sizeof(int));
  for (int r = 0; r < 4; ++r) nccl_barrier(comm, token);  // timed
  return 0;
}
)";
  auto q = GatherSmallProgram("only.cu", only);
  Result<FoundLoop> o = FindLoop(q->facts, {}, &trace);
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->loop.line, LineWith(only, "// timed"));
}

// Statements run whole that hold part of a conditional (the `#endif` of an `#if` before them) whose
// other part holds set-up (a call that is no print) are refused with the lines, never served half.
TEST(InitFindLoop, ServedStatementsNeverHoldHalfAConditional) {
  const std::string text = kOneRankTwoBuffers + R"(#if 1
  cudaMemset(x, 0, sizeof(float));
  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);
#endif  // closes
  ncclAllReduce(y, y, 1, ncclFloat, ncclSum, comm, 0);
  return 0;
}
)";
  auto p = GatherSmallProgram("half.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(fmt::format("the directive at line {}", LineWith(text, "#endif  // closes"))),
            std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("preprocessor conditional"), std::string::npos);
  EXPECT_EQ(UnbalancedConditional("#if A\nx;\n#else\ny;\n#endif\n", 0, 30), 0);
  EXPECT_EQ(UnbalancedConditional("x;\n#else\ny;\n", 0, 12), 2);
  EXPECT_EQ(UnbalancedConditional("x;\n#  ifdef B\ny;\n", 0, 18), 2);
}

// A group whose ncclGroupStart and ncclGroupEnd each sit in a conditional of their own, with the
// prints beside them (janilbols-w/dl_distribution_examples' `#ifdef FLAG_REDUCE_GROUP`): the
// statements are served with both conditionals whole.
TEST(InitFindLoop, ConditionalsAtTheEndsOfServedStatementsAreServedWhole) {
  const std::string text = "#include <cstdio>\n#define GROUPED\n" + kOneRankTwoBuffers + R"(#ifdef GROUPED  // opens
  printf("group start\n");
  ncclGroupStart();
#endif
  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);
  ncclAllReduce(y, y, 1, ncclFloat, ncclSum, comm, 0);
#ifdef GROUPED
  ncclGroupEnd();
  printf("group end\n");
#endif  // closes
  cudaStreamSynchronize(0);
  return 0;
}
)";
  auto p = GatherSmallProgram("grouped.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, LineWith(text, "#ifdef GROUPED  // opens"));
  EXPECT_EQ(r->loop.end_line, LineWith(text, "#endif  // closes"));
  EXPECT_EQ(r->loop.what.rfind(fmt::format("lines {}-{}", r->loop.line, r->loop.end_line), 0), 0u) << r->loop.what;
  EXPECT_EQ(UnbalancedConditional(text, r->loop.begin, r->loop.end), 0);
  EXPECT_EQ(WithConditionalsWhole("a;\n#if A\nb;\n#endif\nc;\n", 12, 15), (std::pair<size_t, size_t>{3, 18}));
}

// Statements holding code the build skips are chosen again with their own lines as written (the
// `#else` kept whole), while a group call the build skips around them stays out: the iteration
// starts at the first all-reduce, not at a skipped `ncclGroupStart`.
TEST(InitFindLoop, SkippedCodeAroundTheChosenStatementsStaysOut) {
  const std::string text = kOneRankTwoBuffers + R"(#ifdef NOT_DEFINED
  ncclGroupStart();
#endif
  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);  // first
#ifdef NOT_DEFINED
  ncclAllReduce(y, y, 2, ncclFloat, ncclSum, comm, 0);
#else
  ncclAllReduce(y, y, 1, ncclFloat, ncclSum, comm, 0);
#endif  // closes
#ifdef NOT_DEFINED
  ncclGroupEnd();
#endif
  return 0;
}
)";
  auto p = GatherSmallProgram("skipped.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, LineWith(text, "// first"));
  EXPECT_EQ(r->loop.end_line, LineWith(text, "#endif  // closes"));
  EXPECT_EQ(UnbalancedConditional(text, r->loop.begin, r->loop.end), 0);
}

// --loop names another loop: that one is served, and the trace says --loop chose it.
TEST(InitFindLoop, LoopNamedByTheFlag) {
  const std::string text = kSmallStepProgram;
  auto p = GatherSmallProgram("step.cu", text);
  p->facts.forced_loop_line = LineWith(text, "// warm-up");
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, p->facts.forced_loop_line);
  EXPECT_TRUE(Traced(trace.lines, {"--loop"}));
}

// --loop names the loop of a helper main calls once per data type: the guess says the harness
// serves main's first call of it, not that main calls it once, nor that the rules chose its loop.
TEST(InitFindLoop, ALoopNamedInAHelperCalledTwiceIsServedInTheFirstCall) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
void run(float* b, int n, ncclComm_t comm) {
  for (int i = 0; i < 20; ++i)  // timed
    ncclAllReduce(b, b, n, ncclFloat, ncclSum, comm, 0);
}
)" + std::string(kOneRankTwoBuffers).substr(std::string(kOneRankTwoBuffers).find("int main")) +
                           R"(  run(x, 256, comm);
  run(y, 256, comm);
  return 0;
}
)";
  auto p = GatherSmallProgram("types.cu", text);
  p->facts.forced_loop_line = LineWith(text, "// timed");
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop_fn, "run");
  EXPECT_EQ(r->loop.line, p->facts.forced_loop_line);
  EXPECT_TRUE(Traced(r->guesses, {"the loop --loop names, in run (the harness serves main's first call of it)"}))
      << ::testing::PrintToString(r->guesses);
  EXPECT_FALSE(Traced(r->guesses, {"calls once"}));
  EXPECT_FALSE(Traced(r->guesses, {"the last loop"}));
}

// No loop: the statements reaching the communication are the iteration, run whole.
TEST(InitFindLoop, NoLoopServesTheStatementsThatCommunicate) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  float* x;
  cudaMalloc(&x, 256 * sizeof(float));
  ncclAllReduce(x, x, 256, ncclFloat, ncclSum, comm, 0);
  cudaStreamSynchronize(0);
  return 0;
}
)";
  auto p = GatherSmallProgram("once.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->loop.region);
  EXPECT_EQ(r->loop.line, LineWith(text, "ncclAllReduce"));
  EXPECT_TRUE(Traced(trace.lines, {"no loop of main reaches the communication"}));
}

// main calls a function once, which calls a function template once (explicit arguments), which
// holds the timed loop (NCCL 1's tests: RunTests<T> -> RunTest<T>): that loop is the iteration.
TEST(InitFindLoop, ATimedLoopTwoCallsBelowMain) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
template <typename T>
float TimeIt(const T* x, T* y, size_t n, ncclDataType_t type, ncclComm_t comm, int iters) {
  for (int i = 0; i < iters; ++i) {  // timed
    ncclAllReduce(x, y, n, type, ncclSum, comm, 0);
  }
  cudaStreamSynchronize(0);
  return 0.f;
}
void Run(ncclComm_t comm) {
  float *x, *y;
  cudaMalloc(&x, 256 * sizeof(float));
  cudaMalloc(&y, 256 * sizeof(float));
  TimeIt<float>(x, y, 256, ncclFloat, comm, 20);
}
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  Run(comm);
  return 0;
}
)";
  auto p = GatherSmallProgram("down.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->loop.region);
  EXPECT_EQ(r->loop.line, LineWith(text, "// timed"));
  EXPECT_EQ(r->loop_fn, "TimeIt");
  EXPECT_TRUE(Traced(trace.lines, {"Run times nothing itself", "TimeIt"}));
}

// Two classes with a method `forward`, only the second's communicating; a loop after the timed one
// calls the first's alone. That loop reaches nothing: it is no candidate, and the timed loop is
// served (the two methods were one function, and the later loop won as the last).
TEST(InitFindLoop, MethodsOfOneNameInTwoClassesAreTwoFunctions) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
__global__ void k(float* y, int n) { if (threadIdx.x < n) y[threadIdx.x] *= 2.f; }
struct Local {
  void forward(float* y, int n) { k<<<1, 32>>>(y, n); }
};
struct Reduced {
  ncclComm_t comm;
  void forward(float* y, int n) { ncclAllReduce(y, y, n, ncclFloat, ncclSum, comm, 0); }
};
int main() {
  Reduced red;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&red.comm, 1, id, 0);
  Local local;
  float* y;
  cudaMalloc(&y, 32 * sizeof(float));
  for (int i = 0; i < 20; ++i) {  // timed
    local.forward(y, 32);
    red.forward(y, 32);
  }
  for (int i = 0; i < 3; ++i) local.forward(y, 32);  // the first layer alone
  cudaDeviceSynchronize();
  return 0;
}
)";
  auto p = GatherSmallProgram("layers.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->loop.line, LineWith(text, "// timed"));
  EXPECT_TRUE(Traced(trace.lines, {"local.forward: reaches no communication"}));
  // A token-level call of the quiet object's method reaches nothing; the other object's does.
  const std::vector<Tok> t = Scan("local.forward(y, 32); red->forward(y, 32);");
  const std::set<std::string> names = {"forward", "local.forward"};
  EXPECT_FALSE(Calls(t, 0, 6, names));
  EXPECT_TRUE(Calls(t, 0, t.size() - 1, names));
}

// A program that only sets communicators up has no iteration: the pass says so.
TEST(InitFindLoop, NoCommunicationIsRefusedNamingTheFile) {
  auto p = GatherSmallProgram("setup.cu", R"(#include <nccl.h>
int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  return 0;
}
)");
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("setup.cu"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("only sets"), std::string::npos) << r.status().message();
}

// keyroog/multi-gpu-collectives' main dispatches on a data type to a template that allocates, runs
// and times the all-to-all: its three calls are one a run (each in a branch of one chain), so main
// hands the timing to it; a call repeated in one branch, or in a loop, is more than one.
TEST(InitFindLoop, CallsInTheBranchesOfOneChainAreOneARun) {
  const std::string main_def =
      "int main(int argc, char** argv) {\n  if (dtype == \"int\") {\n    run<int>(n, ctx);\n  } else if (dtype == \"float\")"
      " {\n    run<float>(n, ctx);\n  } else if (dtype == \"double\")\n    run<double>(n, ctx);\n  else\n    abort();\n"
      "  setup(ctx);\n  return 0;\n}\n";
  EXPECT_EQ(CallsPerRun(main_def, "run"), 1);
  EXPECT_EQ(CallsPerRun(main_def, "setup"), 1);
  EXPECT_EQ(CallsPerRun(main_def, "absent"), 0);
  EXPECT_EQ(CallsPerRun("{ if (a) { f(1); f(2); } else f(3); }", "f"), 2);
  EXPECT_EQ(CallsPerRun("{ f(0); if (a) f(1); else f(2); }", "f"), 2);
  EXPECT_EQ(CallsPerRun("{ for (int i = 0; i < 3; ++i) { if (a) f(i); } }", "f"), 2);
  EXPECT_EQ(CallsPerRun("{ if (a) f(1); if (b) f(2); }", "f"), 2) << "two chains can both run";
}

// Threads per GPU started in a benchmark function main calls (Mustafa-cuda-dev's template
// run_collective_benchmark), not in main: that function stands for main, and the lambda its threads
// run holds the timed loop (before stop 55: a skeleton saying where they start).
TEST(InitFindLoop, ThreadsStartedInAFunctionMainCallsRunItsLambda) {
  const std::string text = R"(#include <nccl.h>
#include <thread>
#include <vector>
void bench(int n, ncclComm_t* comms) {
  std::vector<std::thread> ts;
  for (int g = 0; g < n; ++g)
    ts.emplace_back([&, g]() {
      float* x = nullptr;
      for (int it = 0; it < 10; ++it) ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comms[g], 0);
    });
  for (auto& t : ts) t.join();
}
int main() {
  ncclComm_t comms[2];
  int devs[2] = {0, 1};
  ncclCommInitAll(comms, 2, devs);
  bench(2, comms);
  return 0;
}
)";
  auto p = GatherSmallProgram("threads.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> r = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->threads);
  EXPECT_EQ(r->loop_fn, "bench");
  EXPECT_EQ(r->loop.line, LineWith(text, "for (int it = 0"));
  EXPECT_TRUE(Traced(trace.lines, {"the threads start in bench"}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
