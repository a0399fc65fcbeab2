#include "scaffold/main_rewrite.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

const char* kProgram = R"(#include <mpi.h>
#include "model.h"
// main() { for (;;) step(); }  a comment is not code
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* s = "for (;;) step(x);";
  for (int i = 0; i < 5; ++i) step(comm, x, y);   // warm-up
  cudaEventRecord(start, stream);
  for (int it = 0; it < iters; ++it) {
    for (int l = 0; l < layers; ++l) step(comm, x, y);
  }
  cudaEventRecord(stop, stream);
  return 0;
}
)";

TEST(TimedLoop, TheLastOutermostLoopReachingTheCommunication) {
  Result<TimedLoop> loop = FindTimedLoop("main.cu", kProgram, {"step", "ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 9);
  EXPECT_TRUE(loop->main_takes_args);
  EXPECT_EQ(loop->loop_var_decl, "int it");
  EXPECT_EQ(std::string(kProgram).substr(loop->begin, 3), "for");
  EXPECT_NE(loop->body.find("for (int l = 0"), std::string::npos);
}

TEST(TimedLoop, SingleStatementBodyAndNoArguments) {
  const std::string text = "int main() {\n  while (n-- > 0) run(x, comm);\n  return 0;\n}\n";
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"run"});
  ASSERT_TRUE(loop.ok());
  EXPECT_FALSE(loop->main_takes_args);
  EXPECT_EQ(loop->body, "{ run(x, comm); }");
  EXPECT_EQ(loop->loop_var_decl, "");
  const std::string out = RewriteMain(text, *loop, {"cuco_bind.output(\"x\", x);"});
  EXPECT_NE(out.find("int cuco_program_main() {"), std::string::npos);
  EXPECT_NE(out.find("cuco_program::serve("), std::string::npos);
  EXPECT_NE(out.find("cuco_bind.output(\"x\", x);"), std::string::npos);
  EXPECT_NE(out.find("return cuco_program_main(); }"), std::string::npos);
  EXPECT_EQ(out.find("while (n--"), std::string::npos);
}

// Double buffers chosen by a counter of passes the body steps (`++pass;`): held at its value when
// the loop starts, as the loop's variable is, so every harness iteration writes the same buffer. A
// variable the body declares, or one only stepped (a count printed after the loop), is not held.
TEST(TimedLoop, ACounterOfPassesTheBodyStepsAndReadsIsHeld) {
  const std::string text =
      "int main() {\n"                                                         // 1
      "  int pass = 0, done = 0;\n"                                            // 2
      "  for (int it = 0; it < 20; ++it) {\n"                                  // 3
      "    float* c = (pass & 1) == 0 ? ping : pong;\n"                        // 4
      "    ++pass;\n"                                                          // 5
      "    done++;\n"                                                          // 6
      "    ncclAllReduce(c, c, n, ncclFloat, ncclSum, comm, s);\n"             // 7
      "  }\n"                                                                  // 8
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("double.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->loop_var_decl, "int it");
  EXPECT_EQ(loop->pinned_counter, "pass");
  const std::string local = "int main() {\n  for (int it = 0; it < 20; ++it) {\n    int k = 0;\n    ++k;\n"
                            "    ncclAllReduce(x + k, y, n, ncclFloat, ncclSum, comm, s);\n  }\n}\n";
  loop = FindTimedLoop("local.cu", local, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->pinned_counter, "");
}

// A lambda with a trailing return type (`auto one_pass = [&]() -> std::tuple<double, double> {`,
// h1ppox99/ring-attention) reaches the communication as any other: the loop calling it is the
// iteration, the lambda its code.
TEST(TimedLoop, ALambdaWithATrailingReturnTypeIsOneTheLoopCalls) {
  const std::string text =
      "int main() {\n"
      "  auto one_pass = [&]() mutable -> std::tuple<double, double> {\n"
      "    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);\n"
      "    return {0.0, 0.0};\n"
      "  };\n"
      "  one_pass();\n"
      "  for (int it = 0; it < 20; ++it) {\n"
      "    const auto [c, w] = one_pass();\n"
      "  }\n"
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("pass.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 7);
  ASSERT_EQ(loop->lambdas.size(), 1u);
  EXPECT_EQ(loop->lambdas[0].name, "one_pass");
}

// The counter stepped in a lambda the loop calls, declared before it (TensorParallelPTX's 1-D
// runner alternates its output buffers so): held too; a lambda's own variable is not.
TEST(TimedLoop, ACounterOfPassesALambdaStepsIsHeld) {
  const std::string text =
      "int main() {\n"
      "  int pass = 0;\n"
      "  auto run_chunk = [&](int c) {\n"
      "    const int buf = pass & 1;\n"
      "    ++pass;\n"
      "    float* out = buf == 0 ? ping : pong;\n"
      "    ncclAllReduce(out + c, out + c, n, ncclFloat, ncclSum, comm, s);\n"
      "  };\n"
      "  for (int it = 0; it < 20; ++it)\n"
      "    for (int c = 0; c < 4; ++c) run_chunk(c);\n"
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("chunks.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  ASSERT_EQ(loop->lambdas.size(), 1u);
  EXPECT_EQ(loop->pinned_counter, "pass");
  std::string own = text;
  own.replace(own.find("  int pass = 0;\n"), 16, "");
  own.replace(own.find("const int buf"), 0, "int pass = 0;\n    ");
  loop = FindTimedLoop("own.cu", own, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->pinned_counter, "");
}

TEST(TimedLoop, ADoWhileLoopIsServedOnePassAnIteration) {
  // An iterative solver's habit: the loop's condition after its body. Before, `do` was no loop, and
  // the statements of main reaching the communication were run whole: every pass in one iteration.
  const std::string text =
      "int main() {\n"                                                   // 1
      "  int it = 0;\n"                                                  // 2
      "  cudaEventRecord(start, s);\n"                                   // 3
      "  do {\n"                                                         // 4
      "    scale<<<256, 256, 0, s>>>(x, y, n);\n"                        // 5
      "    ncclAllReduce(y, z, n, ncclFloat, ncclSum, comm, s);\n"       // 6
      "    ++it;\n"                                                      // 7
      "  } while (it < iters);\n"                                        // 8
      "  cudaEventRecord(stop, s);\n"                                    // 9
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("solver.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_FALSE(loop->region);
  EXPECT_EQ(loop->line, 4);
  EXPECT_EQ(loop->end_line, 8);
  EXPECT_EQ(loop->pinned_counter, "it");  // the condition's counter, stepped by the body
  EXPECT_EQ(loop->body.front(), '{');
  EXPECT_EQ(loop->body.back(), '}');
  EXPECT_EQ(loop->body.find("while"), std::string::npos);
  const std::string out = RewriteMain(text, *loop, {"cuco_bind.output(\"z\", z);"});
  EXPECT_EQ(out.find("do {"), std::string::npos);
  EXPECT_EQ(out.find("while (it < iters)"), std::string::npos);
  EXPECT_NE(out.find("it = cuco_pinned_it;"), std::string::npos);
  // A `do` without its `while (...)` (a macro's, or cut text) is no loop.
  const std::vector<Tok> t = Scan("do { f(); } g();");
  EXPECT_FALSE(IsLoopAt(t, 0));
}

TEST(TimedLoop, ErrorsNameTheFileAndLine) {
  Result<TimedLoop> none = FindTimedLoop("p.cu", "void f() {}\n", {"step"});
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("p.cu: no `main`"), std::string::npos);
  Result<TimedLoop> no_loop = FindTimedLoop("p.cu", "\nint main() {\n  step();\n}\n", {"step"});
  ASSERT_FALSE(no_loop.ok());
  EXPECT_NE(no_loop.status().message().find("p.cu:2: no loop in main"), std::string::npos);
}

// The function holding the iteration is found though its return type ends in `>`; a call through
// a pointer (`p->bench(`) is not its definition.
TEST(TimedLoop, AFunctionReturningATemplateIsFound) {
  const std::string text =
      "struct R { std::vector<double> bench(int n); };\n"
      "void g(R* p) { p->bench(1); }\n"
      "std::vector<double> bench(int n, ncclComm_t comm) {\n"
      "  std::vector<double> out;\n"
      "  for (int i = 0; i < n; ++i) step(comm);\n"
      "  return out;\n"
      "}\n"
      "int main() {\n  auto a = bench(5, c);\n  auto b = bench(100, c);\n  return 0;\n}\n";
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"step"}, "bench");
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 5);
}

// Two grouped all-reduces over the GPUs with a kernel between (several one-shot steps): the
// iteration is every step, from the first group's start to the last group's end, not the last
// group with the first called a warm-up. One group alone stays that group.
TEST(TimedLoop, SeveralGroupedStepsAreOneIteration) {
  const std::string text =
      "int main() {\n"
      "  ncclGroupStart();\n"
      "  for (int r = 0; r < n; ++r) ncclAllReduce(m[r], m[r], k, ncclFloat, ncclMax, comms[r], s[r]);\n"
      "  ncclGroupEnd();\n"
      "  for (int r = 0; r < n; ++r) rescale<<<1, 1, 0, s[r]>>>(m[r], l[r]);\n"
      "  ncclGroupStart();\n"
      "  for (int r = 0; r < n; ++r) ncclAllReduce(l[r], l[r], k, ncclFloat, ncclSum, comms[r], s[r]);\n"
      "  ncclGroupEnd();\n"
      "  return 0;\n"
      "}\n";
  const std::set<std::string> names = {"ncclGroupStart", "ncclAllReduce", "ncclGroupEnd"};
  std::vector<std::string> trace;
  LoopSearch search;
  search.trace = &trace;
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, names, "main", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(text.substr(loop->begin, loop->end - loop->begin).substr(0, 16), "ncclGroupStart()");
  EXPECT_NE(text.substr(loop->begin, loop->end - loop->begin).find("ncclSum"), std::string::npos);
  EXPECT_NE(text.substr(loop->begin, loop->end - loop->begin).find("ncclMax"), std::string::npos);
  for (const std::string& line : trace) EXPECT_EQ(line.find("warm-up"), std::string::npos) << line;
  // One group: that group, as before.
  const std::string one = text.substr(0, text.find("  for (int r = 0; r < n; ++r) rescale")) + "  return 0;\n}\n";
  Result<TimedLoop> group = FindTimedLoop("p.cu", one, names, "main", std::string::npos, {});
  ASSERT_TRUE(group.ok()) << group.status().message();
  EXPECT_NE(group->what.find("ncclGroupStart ... ncclGroupEnd around the loop"), std::string::npos) << group->what;
}

// --loop naming a loop inside the loop that reaches the communication (a solver's warm-up solves
// inside its loop over modes): that inner loop is served; unnamed, the outer one is.
TEST(TimedLoop, LoopNamesALoopInsideTheOuterOne) {
  const std::string text =
      "int main() {\n"                                               // 1
      "  for (int mode = 0; mode < modes; ++mode) {\n"               // 2
      "    setup(mode);\n"                                           // 3
      "    for (int w = 0; w < 5; ++w) solve(x, mode);\n"            // 4
      "    bench(x, mode);\n"                                        // 5
      "  }\n"                                                        // 6
      "}\n";
  LoopSearch search;
  search.forced_line = 4;
  auto inner = FindTimedLoop("m.cu", text, {"solve", "bench"}, "main", std::string::npos, search);
  ASSERT_TRUE(inner.ok()) << inner.status().message();
  EXPECT_EQ(inner->line, 4);
  search.forced_line = 0;
  auto outer = FindTimedLoop("m.cu", text, {"solve", "bench"}, "main", std::string::npos, search);
  ASSERT_TRUE(outer.ok()) << outer.status().message();
  EXPECT_EQ(outer->line, 2);
}

// Two timed phases of different collectives (a broadcast loop, then a gather loop): the last is
// served, and the first is said to be a step before it, not its warm-up. A loop of the same
// collective before it stays a warm-up.
TEST(TimedLoop, ALoopOfOtherCollectivesBeforeTheLastIsNoWarmUp) {
  const std::string text =
      "int main() {\n"
      "  for (int i = 0; i < 5; ++i) ncclAllGather(x, y, n, ncclFloat, comm, s);\n"
      "  for (int i = 0; i < 20; ++i) ncclBroadcast(x, x, n, ncclFloat, 0, comm, s);\n"
      "  for (int i = 0; i < 20; ++i) ncclAllGather(x, y, n, ncclFloat, comm, s);\n"
      "  return 0;\n"
      "}\n";
  const std::set<std::string> names = {"ncclBroadcast", "ncclAllGather"};
  std::vector<std::string> trace;
  LoopSearch search;
  search.trace = &trace;
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, names, "main", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 4);
  EXPECT_EQ(loop->earlier_other, std::vector<std::string>{"line 3 (ncclBroadcast)"});
  std::string all;
  for (const std::string& line : trace) all += line + "\n";
  EXPECT_NE(all.find("p.cu:2: rejected: a loop that runs before the last one (a warm-up)"), std::string::npos) << all;
  EXPECT_NE(all.find("p.cu:3: not served: it runs before the last loop and issues other NCCL calls (ncclBroadcast)"),
            std::string::npos) << all;
}

// No loop, and two calls inside one group, each group call wrapped in the program's check macro
// (FAS RC's ncclReduce_mpi.cu): the statements run whole are the group, from its start to its end.
// Served inside the group, the reduces ran only at its end, after the harness had read the outputs.
TEST(TimedLoop, TwoCallsInOneGroupAreServedWithTheirGroup) {
  const std::string text =
      "int main() {\n"
      "  init(x_d, y_d);\n"
      "  CHECK_NCCL(ncclGroupStart());\n"
      "  CHECK_NCCL(ncclReduce(x_d, sx_d, n, ncclDouble, ncclSum, 0, comm, s));\n"
      "  CHECK_NCCL(ncclReduce(y_d, sy_d, n, ncclDouble, ncclSum, 0, comm, s));\n"
      "  CHECK_NCCL(ncclGroupEnd());\n"
      "  cudaStreamSynchronize(s);\n"
      "  return 0;\n"
      "}\n";
  LoopSearch search;
  search.allow_region = true;
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"ncclReduce"}, "main", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  ASSERT_TRUE(loop->region);
  const std::string served = text.substr(loop->begin, loop->end - loop->begin);
  EXPECT_EQ(served.rfind("CHECK_NCCL(ncclGroupStart());", 0), 0u) << served;
  EXPECT_NE(served.find("CHECK_NCCL(ncclGroupEnd());"), std::string::npos) << served;
  EXPECT_EQ(served.find("cudaStreamSynchronize"), std::string::npos) << served;
  EXPECT_EQ(loop->line, 3);
  EXPECT_EQ(loop->end_line, 6);
}

// No loop, and the same call run once untimed (a warm-up) before the clock: the clocked call is
// the iteration (Kui2ei/NTT_multiGPUs: `warmup(...)`, then events around `warmup(...)` again).
// Another call before the clock, or no clock read right after, leaves every statement in.
TEST(TimedLoop, NoLoopTheClockedStatementsAfterTheirWarmUpAreTheIteration) {
  const std::string text =
      "int main() {\n"                        // 1
      "  setup(a);\n"                         // 2
      "  step(a, b);\n"                       // 3: warm-up
      "  float ms;\n"                         // 4
      "  cudaEventRecord(start, 0);\n"        // 5
      "  step(a, b);\n"                       // 6
      "  cudaEventRecord(stop, 0);\n"         // 7
      "  cudaEventSynchronize(stop);\n"       // 8
      "  check(b);\n"                         // 9
      "}\n";
  LoopSearch search;
  search.allow_region = true;
  Result<TimedLoop> timed = FindTimedLoop("m.cu", text, {"step"}, "main", std::string::npos, search);
  ASSERT_TRUE(timed.ok()) << timed.status().message();
  EXPECT_TRUE(timed->region);
  EXPECT_EQ(timed->line, 6);
  EXPECT_EQ(timed->end_line, 6);
  EXPECT_NE(timed->what.find("warm-up"), std::string::npos) << timed->what;
  std::string other = text;  // another call before the clock: not a warm-up of the timed one
  other.replace(other.find("  step(a, b);\n  float"), 13, "  prime(a, b);");
  Result<TimedLoop> both = FindTimedLoop("m.cu", other, {"step", "prime"}, "main", std::string::npos, search);
  ASSERT_TRUE(both.ok()) << both.status().message();
  EXPECT_EQ(both->line, 3);
  EXPECT_EQ(both->end_line, 6);
  std::string unread = text;  // the clock read only after the check: it times more than the call
  unread.replace(unread.find("  cudaEventRecord(stop, 0);\n"), 28, "");
  unread.replace(unread.find("  check(b);\n"), 13, "  check(b);\n  cudaEventRecord(stop, 0);\n");
  Result<TimedLoop> whole = FindTimedLoop("m.cu", unread, {"step"}, "main", std::string::npos, search);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(whole->line, 3);
  EXPECT_EQ(whole->end_line, 6);
}

// The rank and the rank count as flags, parsed by a function of main's file (NCCL-Sandbox's TCP
// bootstrap: `parseArgs(argc, argv)` reads "--rank" and "--nranks"): the harness's entry passes
// its own rank and rank count with them. A flag named only in a comment is not one.
TEST(TimedLoop, RankFlagsParsedOutsideMainArePassed) {
  const std::string text =
      "// run: prog \"--world\" 4 (a comment)\n"
      "static Config parseArgs(int argc, char** argv) {\n"
      "  Config c;\n"
      "  for (int i = 1; i < argc; ++i) {\n"
      "    if (!strcmp(argv[i], \"--rank\") && i + 1 < argc) c.rank = atoi(argv[++i]);\n"
      "    else if (!strcmp(argv[i], \"--nranks\") && i + 1 < argc) c.nranks = atoi(argv[++i]);\n"
      "  }\n"
      "  return c;\n"
      "}\n"
      "int main(int argc, char** argv) {\n"
      "  Config cfg = parseArgs(argc, argv);\n"
      "  for (int it = 0; it < 10; ++it) ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);\n"
      "  return 0;\n"
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->rank_flag, "--rank");
  EXPECT_EQ(loop->world_flag, "--nranks");
  const std::string out = RewriteMain(text, *loop, {});
  EXPECT_NE(out.find("static char rank_flag[] = \"--rank\";"), std::string::npos) << out;
  EXPECT_NE(out.find("static char world_flag[] = \"--nranks\";"), std::string::npos) << out;
}

TEST(TimedLoop, RewriteKeepsTheLoopVariable) {
  Result<TimedLoop> loop = FindTimedLoop("main.cu", kProgram, {"step"});
  ASSERT_TRUE(loop.ok());
  const std::string out = RewriteMain(kProgram, *loop, {});
  // Every harness iteration is the loop's first pass.
  EXPECT_NE(out.find("int it = static_cast<int>((0));"), std::string::npos) << out;
  EXPECT_NE(out.find("for (int i = 0; i < 5; ++i) step(comm, x, y);"), std::string::npos);  // warm-up kept
  EXPECT_NE(out.find("int cuco_program_main(int argc, char** argv)"), std::string::npos);
  EXPECT_NE(out.find("// main() { for (;;) step(); }"), std::string::npos);  // comments untouched
}

TEST(MpiIncludes, Rewritten) {
  EXPECT_EQ(RewriteMpiIncludes("#include <mpi.h>\n#include \"mpi.h\"\n  #  include <mpi.h>\n#include <mpix.h>\n"),
            "#include <cuco/program/mpi.h>\n#include <cuco/program/mpi.h>\n  #  include <cuco/program/mpi.h>\n#include <mpix.h>\n");
  // Open MPI's extensions, where a CUDA-aware program asks whether MPI moves device memory
  // (multi-gpu-programming-models' mpi/jacobi.cpp): the stand-in answers.
  EXPECT_EQ(RewriteMpiIncludes("#include <mpi-ext.h>\n"), "#include <cuco/program/mpi.h>\n");
}

TEST(Definitions, FoundWithTheirLines) {
  const std::string text = "// doc\nstatic void\ngemm(int m) {\n  f(m);\n}\n__global__ void k(float* p) { p[0] = 1; }\nvoid use() { gemm(1); }\n";
  size_t b = 0, e = 0;
  ASSERT_TRUE(DefinitionLines(text, "gemm", &b, &e));
  EXPECT_EQ(text.substr(b, e - b), "static void\ngemm(int m) {\n  f(m);\n}");
  ASSERT_TRUE(DefinitionLines(text, "k", &b, &e));
  EXPECT_EQ(text.substr(b, e - b), "__global__ void k(float* p) { p[0] = 1; }");
  EXPECT_FALSE(DefinitionLines(text, "f", &b, &e));
}

TEST(TimedLoop, ASweepsTimedInnerLoopIsTheIteration) {
  const std::string text =
      "int main() {\n"                                                         // 1
      "  for (size_t bytes = 1 << 20; bytes <= 1 << 26; bytes <<= 2) {\n"      // 2
      "    fill(sendbuf, bytes);\n"                                            // 3
      "    for (int i = 0; i < 5; ++i) ncclAllReduce(sendbuf, recvbuf);\n"     // 4: warm-up
      "    cudaEventRecord(start, s);\n"                                       // 5
      "    for (int i = 0; i < iters; ++i) {\n"                                // 6
      "      ncclAllReduce(sendbuf, recvbuf);\n"                               // 7
      "    }\n"                                                                // 8
      "    cudaEventRecord(stop, s);\n"                                        // 9
      "  }\n"                                                                  // 10
      "}\n";
  auto loop = FindTimedLoop("m.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 6);
  EXPECT_EQ(loop->end_line, 8);
  EXPECT_EQ(loop->sweep_line, 2);
  // A timed outer loop keeps its inner loops (the layers of one step).
  const std::string layers =
      "int main() {\n  cudaEventRecord(start, s);\n  for (int it = 0; it < 20; ++it) {\n    x = 1;\n"
      "    for (int l = 0; l < L; ++l) ncclAllReduce(a, b);\n  }\n}\n";
  auto outer = FindTimedLoop("m.cu", layers, {"ncclAllReduce"});
  ASSERT_TRUE(outer.ok()) << outer.status().message();
  EXPECT_EQ(outer->line, 3);
}

// A clock started before the inner loop and read next only after more device work of the pass (a
// ring's steps, then its final merge, timed together: a ring-attention benchmark's MPI_Wtime; a
// training step's micro-batches, then its optimizer: llm.c) times what lies between: those
// statements are the iteration, in the outer loop's first pass, without the pass's own set-up (its
// resets, an evaluation every k steps). Where the clock is read in a block of its own, the whole
// pass is. Read right after the inner loop, the clock is a sweep's.
TEST(TimedLoop, AClockSpanningMoreThanTheInnerLoopTimesWhatItSpans) {
  const std::string text =
      "int main() {\n"                                                            // 1
      "  for (int iter = 0; iter < 10; ++iter) {\n"                               // 2
      "    reset(acc);\n"                                                         // 3
      "    double t0 = MPI_Wtime();\n"                                            // 4
      "    for (int step = 0; step < size - 1; ++step) ncclSend(kv, n);\n"        // 5
      "    merge(acc, kv);\n"                                                     // 6
      "    double t1 = MPI_Wtime();\n"                                            // 7
      "  }\n"                                                                     // 8
      "}\n";
  std::map<int, LineWork> work;
  work[5].comm = true;
  work[6].compute = true;
  LoopSearch search;
  search.work = &work;
  auto loop = FindTimedLoop("m.cu", text, {"ncclSend"}, "main", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_TRUE(loop->region);
  EXPECT_EQ(loop->line, 5);
  EXPECT_EQ(loop->end_line, 6);
  EXPECT_EQ(loop->sweep_line, 2);
  EXPECT_NE(loop->what.find("run whole in the first pass of the loop at line 2"), std::string::npos) << loop->what;
  std::string nested = text;  // the clock read inside a block of its own: the pass
  nested.replace(nested.find("    double t1 = MPI_Wtime();"), 28, "    if (rank == 0) { double t1 = MPI_Wtime(); }");
  auto pass = FindTimedLoop("m.cu", nested, {"ncclSend"}, "main", std::string::npos, search);
  ASSERT_TRUE(pass.ok()) << pass.status().message();
  EXPECT_FALSE(pass->region);
  EXPECT_EQ(pass->line, 2);
  EXPECT_EQ(pass->sweep_line, 0);
  work.erase(6);  // nothing between the inner loop and the clock's read: a sweep
  auto sweep = FindTimedLoop("m.cu", text, {"ncclSend"}, "main", std::string::npos, search);
  ASSERT_TRUE(sweep.ok()) << sweep.status().message();
  EXPECT_EQ(sweep->line, 5);
  EXPECT_EQ(sweep->sweep_line, 2);
}

TEST(TimedLoop, ASweepAroundALoopTimingEachPassServesThatLoop) {
  // The timed loop reads the clock inside its body, around each pass; the sweep around it allocates
  // per size and writes a log: the inner loop is the iteration, not the sweep, nor the warm-up.
  const std::string text =
      "int main() {\n"                                                             // 1
      "  for (int i = 1000; i <= 80000; i += 1000) {\n"                             // 2
      "    cudaMalloc(&d_send, bytes);\n"                                           // 3
      "    for (int j = 0; j < 5; j++) ncclAllToAll(d_send, d_recv);\n"             // 4: warm-up
      "    std::vector<float> times(runs);\n"                                       // 5
      "    for (int j = 0; j < runs; j++) {\n"                                      // 6
      "      auto start = std::chrono::high_resolution_clock::now();\n"             // 7
      "      ncclAllToAll(d_send, d_recv);\n"                                       // 8
      "      do { ncclCommGetAsyncError(comm, &state); } while (state == 7);\n"     // 9
      "      auto stop = std::chrono::high_resolution_clock::now();\n"              // 10
      "    }\n"                                                                     // 11
      "    log << times[0];\n"                                                      // 12
      "  }\n"                                                                       // 13
      "}\n";
  auto loop = FindTimedLoop("m.cu", text, {"ncclAllToAll"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 6);
  EXPECT_EQ(loop->end_line, 11);
  EXPECT_EQ(loop->sweep_line, 2);
  // Without the clock in its body the inner loop is no timed loop: the sweep stays the iteration.
  std::string untimed = text;
  for (const char* clock : {"      auto start = std::chrono::high_resolution_clock::now();\n",
                            "      auto stop = std::chrono::high_resolution_clock::now();\n"})
    untimed.erase(untimed.find(clock), std::string(clock).size());
  auto outer = FindTimedLoop("m.cu", untimed, {"ncclAllToAll"});
  ASSERT_TRUE(outer.ok()) << outer.status().message();
  EXPECT_EQ(outer->line, 2);
}

TEST(TimedLoop, PassesDecidingFromFlagsTheyThemselvesSetAreNoIteration) {
  // A task scheduler: each pass does the first task whose flag is unset, then sets it. The first
  // pass factors, the next broadcasts, the last do nothing: no pass stands for the others.
  const std::string text =
      "int main() {\n"                                                          // 1
      "  std::vector<bool> factored(n, false), sent(n, false);\n"              // 2
      "  size_t done = 0;\n"                                                   // 3
      "  while (done < n) {\n"                                                 // 4
      "    for (int k = 0; k < n; ++k)\n"                                      // 5
      "      if (!factored[k]) { potrf(a, k); factored[k] = true; break; }\n"  // 6
      "    for (int k = 0; k < n; ++k) {\n"                                    // 7
      "      if (!factored[k] || sent[k]) continue;\n"                         // 8
      "      ncclBroadcast(a, a, nb, ncclDouble, 0, comm, s);\n"               // 9
      "      sent[k] = true;\n"                                                // 10
      "      ++done;\n"                                                        // 11
      "    }\n"                                                                // 12
      "  }\n"                                                                  // 13
      "}\n";
  auto loop = FindTimedLoop("sched.cu", text, {"ncclBroadcast"});
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("sched.cu:4: each pass of the loop at line 4 decides what to do from `factored` "
                                         "(read at line 6), which the passes themselves set (line 6)"),
            std::string::npos)
      << loop.status().message();
  // Flags a pass sets after reading what it computed, or per-pass results kept (times[i] = ...),
  // leave the passes alike.
  const std::string timed =
      "int main() {\n  std::vector<float> times(iters);\n  for (int i = 0; i < iters; ++i) {\n"
      "    ncclAllReduce(a, b, n, ncclFloat, ncclSum, comm, s);\n    times[i] = elapsed();\n"
      "    if (times[i] > worst) worst = times[i];\n  }\n}\n";
  auto alike = FindTimedLoop("m.cu", timed, {"ncclAllReduce"});
  ASSERT_TRUE(alike.ok()) << alike.status().message();
  EXPECT_EQ(alike->line, 3);
}

TEST(TimedLoop, AClockStartedFirstInTheOuterBodyTimesTheWholeStep) {
  // A step of micro-batches: the clock starts as the outer body's first statement, so the step is
  // the iteration, not a sweep around the micro-batch loop.
  const std::string text =
      "int main() {\n"                                                     // 1
      "  for (int step = 0; step < steps; ++step) {\n"                     // 2
      "    double t0 = MPI_Wtime();\n"                                     // 3
      "    for (int mb = 0; mb < n_mb; ++mb) {\n"                          // 4
      "      ncclSend(act, n, ncclFloat, next, comm, s);\n"                // 5
      "    }\n"                                                            // 6
      "    report(MPI_Wtime() - t0);\n"                                    // 7
      "  }\n"                                                              // 8
      "}\n";
  auto loop = FindTimedLoop("m.cu", text, {"ncclSend"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 2);
  EXPECT_EQ(loop->sweep_line, 0);
}

TEST(Calls, KernelsAndFunctions) {
  const auto calls = CallsIn("{ step(a, f(b)); kern<<<g, 256, 0, s>>>(x, y); }");
  ASSERT_EQ(calls.size(), 3u);
  EXPECT_EQ(calls[0], (std::pair<std::string, std::string>{"step", "a, f(b)"}));
  EXPECT_EQ(calls[1], (std::pair<std::string, std::string>{"f", "b"}));
  EXPECT_EQ(calls[2], (std::pair<std::string, std::string>{"kern", "x, y"}));
  // Template arguments before the launch or the call; a comparison is no call.
  const auto templated = CallsIn("{ ln<256, (K > 2)><<<g, 256>>>(x, y); cast<float>(z); while (a < n && b > 0) {} }");
  ASSERT_EQ(templated.size(), 3u);  // the last one is `while`: CallsIn reads no keywords
  EXPECT_EQ(templated[2].first, "while");
  EXPECT_EQ(templated[0], (std::pair<std::string, std::string>{"ln", "x, y"}));
  EXPECT_EQ(templated[1], (std::pair<std::string, std::string>{"cast", "z"}));
}

// A record whose member main binds is opened in the harness's copies; other records, a forward
// declaration, a base clause and a qualified name stay as they are.
TEST(Records, OpenedForMainToBindTheirMembers) {
  const std::string text =
      "class Fwd;\nclass Trainer : private Base { int n_;\n public:\n  void step();\n private:\n  float* w_;\n"
      "  struct Inner { private: int k; };\n protected: std::string s = std::string(\"private:\");\n};\n"
      "class Other { private: int x; };\nstruct Plain { private: float* p; };\n";
  const std::string out = OpenRecords(text, {"Trainer", "Plain", "Fwd"});
  EXPECT_EQ(out,
            "class Fwd;\nclass Trainer : private Base { public: /* cuco init: members made public */ int n_;\n public:\n"
            "  void step();\n public /* cuco init: was private */:\n  float* w_;\n"
            "  struct Inner { public /* cuco init: was private */: int k; };\n public /* cuco init: was protected */: "
            "std::string s = std::string(\"private:\");\n};\nclass Other { private: int x; };\n"
            "struct Plain { public /* cuco init: was private */: float* p; };\n");
  EXPECT_EQ(OpenRecords(text, {}), text);
  // A type named in a declaration is no definition of it.
  const std::string uses = "class Trainer* make() { return nullptr; }\nstruct Plain p = {nullptr};\n";
  EXPECT_EQ(OpenRecords(uses, {"Trainer", "Plain"}), uses);
}

// The object a call is made on, with its accessor; none for a free call or a call's result.
TEST(Calls, TheObjectOfAMethodCall) {
  const auto calls = CallSitesIn("{ stressor.step(a); layers[i + 1]->fwd(); run(x); s.at(0).go(); this->sync(); }");
  ASSERT_EQ(calls.size(), 6u);
  EXPECT_EQ(calls[0].name, "step");
  EXPECT_EQ(calls[0].object, "stressor.");
  EXPECT_EQ(calls[1].name, "fwd");
  EXPECT_EQ(calls[1].object, "layers[i + 1]->");
  EXPECT_EQ(calls[2].object, "");
  EXPECT_EQ(calls[3].name, "at");
  EXPECT_EQ(calls[3].object, "s.");
  EXPECT_EQ(calls[4].name, "go");
  EXPECT_EQ(calls[4].object, "") << "a call's result is no object the harness can name";
  EXPECT_EQ(calls[5].object, "this->");
}

TEST(Timing, TheProgramsOwnHostClockLeavesTheLoop) {
  std::vector<DroppedStatement> dropped;
  const std::string body =
      "{\n  MPI_Barrier(c);\n  auto t0 = std::chrono::steady_clock::now();\n  step(x);\n"
      "  auto t1 = std::chrono::steady_clock::now();\n  if (i >= 5) ms += std::chrono::duration<double>(t1 - t0).count();\n}";
  const std::string out = DropHostTiming(body, &dropped);
  ASSERT_EQ(dropped.size(), 3u);
  EXPECT_EQ(dropped[0].kind, HostOnly::kClock);
  EXPECT_EQ(out.find("chrono"), std::string::npos) << out;
  EXPECT_NE(out.find("MPI_Barrier(c);\n"), std::string::npos);
  EXPECT_NE(out.find("step(x);"), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), std::count(body.begin(), body.end(), '\n'));
  // A clock read the iteration's work uses stays (and the deny list says so).
  const std::string used = "{ auto t0 = std::chrono::steady_clock::now(); step(x, t0); }";
  EXPECT_EQ(DropHostTiming(used, &dropped), used);
  // A statement doing device work with the clock stays.
  const std::string work = "{ log(std::chrono::steady_clock::now(), cudaDeviceSynchronize()); }";
  EXPECT_EQ(DropHostTiming(work, &dropped), work);
}

// A profiler's start or stop in the iteration (Learn-CUDA-Programming's NCCL sweep calls
// cudaProfilerStop() after each size) changes no result and is denied to candidates: left out, like
// the program's clock, checked through its error macro too; so is a pause. Work beside it in one
// statement stays.
TEST(Timing, AProfilersStartAndStopAndAPauseLeaveTheLoop) {
  std::vector<DroppedStatement> dropped;
  const std::string body =
      "{\n  cudaProfilerStart();\n  ncclAllReduce(a, b, n, t, o, c, s);\n  checkCudaErrors(cudaProfilerStop());\n}";
  const std::string out = DropHostTiming(body, &dropped);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[1].kind, HostOnly::kProfiler);  // through its error macro
  EXPECT_EQ(out.find("Profiler"), std::string::npos) << out;
  EXPECT_NE(out.find("ncclAllReduce(a, b, n, t, o, c, s);"), std::string::npos) << out;
  // A pause between passes (the same sweep sleeps 100 ms after each size) leaves too.
  const std::string paused = "{ run(); std::this_thread::sleep_for(std::chrono::milliseconds(100)); usleep(10); }";
  dropped.clear();
  EXPECT_EQ(DropHostTiming(paused, &dropped).find("sleep"), std::string::npos);
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[0].kind, HostOnly::kPause);
  const std::string mixed = "{ f(cudaProfilerStop(), cudaDeviceSynchronize()); }";
  EXPECT_EQ(DropHostTiming(mixed, &dropped), mixed);
  // A clock whose reading stays (printed) stays with it; the profiler's stop still leaves.
  const std::string printed = "{ auto t0 = std::chrono::steady_clock::now(); run(); cudaProfilerStop(); print(t0); }";
  EXPECT_EQ(DropHostTiming(printed, &dropped),
            "{ auto t0 = std::chrono::steady_clock::now(); run(); " + std::string(19, ' ') + " print(t0); }");
}

}  // namespace
}  // namespace cuco::scaffold_internal

// A timed loop skipping its first pass's report (`if (iter == 0) continue;`, arjundevraj/stragglar):
// served as the body of a function, its own `continue` ends the pass (`return`); a nested loop's
// is left alone. Before, the harness did not compile ("a continue statement may only be used
// within a loop").
namespace cuco::scaffold_internal {
namespace {
TEST(TimedLoop, TheLoopsOwnContinueEndsTheServedPass) {
  EXPECT_EQ(LoopJumpsAsReturn("{ run(); if (iter == 0) continue; for (int j = 0; j < 2; ++j) { if (j) continue; } "
                             "while (k) { continue; } report(); }"),
            "{ run(); if (iter == 0) return; for (int j = 0; j < 2; ++j) { if (j) continue; } "
            "while (k) { continue; } report(); }");
  EXPECT_EQ(LoopJumpsAsReturn("{ do { continue; } while (x); /* continue */ }"), "{ do { continue; } while (x); /* continue */ }");
}

// A solver's `break` once it converges (1fni/cuda-spmv-benchmark's CG, held out in stop 72), or
// when it gives up unconverged (the CSCS miniapp, stop 91), ends the served pass too, telling the
// reference that the program's loop would end (cuco_program::loop_ended); a `break` of a switch or of a
// nested loop stays.
TEST(TimedLoop, TheLoopsOwnBreakEndsTheServedPass) {
  EXPECT_EQ(LoopJumpsAsReturn("{ spmv(); if (res < tol) { done = 1; break; } switch (m) { case 0: a(); break; } "
                              "for (;;) { break; } update(); }"),
            "{ spmv(); if (res < tol) { done = 1; return cuco_program::loop_ended(); } switch (m) { case 0: a(); "
            "break; } for (;;) { break; } update(); }");
}
}  // namespace
}  // namespace cuco::scaffold_internal
