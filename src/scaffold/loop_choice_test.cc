// Which code becomes the harness's iteration (loop_choice.h through FindTimedLoop), on the habits of
// programs written elsewhere: a group around a per-GPU or per-peer loop, a loop over the GPUs, no
// loop at all, modes chosen by arguments, and `--loop`.
#include "scaffold/loop_choice.h"

#include <gtest/gtest.h>

#include "scaffold/main_rewrite.h"
#include "scaffold/swaps.h"

namespace cuco::scaffold_internal {
namespace {

// NCCL's single-process ring: per-GPU sends and receives inside one group, no timed loop. The group
// runs whole (its loop's index was pinned to 0 and the group left open before).
TEST(LoopChoice, AGroupAroundAPerGpuLoopRunsWhole) {
  const std::string text =
      "int main() {\n"                                                        // 1
      "  ncclCommInitAll(comms, n, devs);\n"                                  // 2
      "  NCCLCHECK(ncclGroupStart());\n"                                      // 3
      "  for (int i = 0; i < n; i++) {\n"                                     // 4
      "    NCCLCHECK(ncclSend(s[i], c, ncclFloat, (i + 1) % n, comms[i], st[i]));\n"
      "    NCCLCHECK(ncclRecv(r[i], c, ncclFloat, (i + n - 1) % n, comms[i], st[i]));\n"
      "  }\n"                                                                 // 7
      "  NCCLCHECK(ncclGroupEnd());\n"                                        // 8
      "  for (int i = 0; i < n; i++) cudaStreamSynchronize(st[i]);\n"
      "}\n";
  Result<TimedLoop> loop = FindTimedLoop("main.cc", text, {"ncclSend", "ncclRecv"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_TRUE(loop->region);
  EXPECT_EQ(loop->line, 3);
  EXPECT_EQ(loop->end_line, 8);
  EXPECT_EQ(loop->loop_var_decl, "");
  EXPECT_NE(loop->body.find("ncclGroupStart()"), std::string::npos);
  EXPECT_NE(loop->body.find("ncclGroupEnd()"), std::string::npos);
  const std::string out = RewriteMain(text, *loop, {});
  EXPECT_EQ(out.find("int i = static_cast<int>"), std::string::npos) << out;  // nothing pinned
}

// A C benchmark keeps its GPU count in its options struct: a loop up to `opt.gpus` (or `o->gpus`) is
// one GPU a pass; a longer chain, or another struct's member of that name, is not.
TEST(LoopChoice, TheGpuCountMayBeAMember) {
  auto per_gpu = [](const std::string& loop, const std::string& count) {
    return PerGpuLoop(Scan(loop), 0, count);
  };
  EXPECT_TRUE(per_gpu("for (int i = 0; i < opt.gpus; ++i) f(i);", "opt.gpus"));
  EXPECT_TRUE(per_gpu("for (int i = 0; i < o -> gpus; ++i) f(i);", "o->gpus"));
  EXPECT_TRUE(per_gpu("for (int i = 0; i < n; ++i) f(i);", "n"));
  EXPECT_FALSE(per_gpu("for (int i = 0; i < opt.gpus.max; ++i) f(i);", "opt.gpus"));
  EXPECT_FALSE(per_gpu("for (int i = 0; i < other.opt.gpus; ++i) f(i);", "opt.gpus"));
  EXPECT_FALSE(per_gpu("for (int i = 0; i < x.n; ++i) f(i);", "n"));
  EXPECT_FALSE(per_gpu("for (int i = 0; i < n2; ++i) f(i);", "n"));
}

// NCCL 1's tests: a timed loop over the GPUs of one process, no group. Each pass is one GPU's part.
TEST(LoopChoice, ALoopOverTheGpusRunsWhole) {
  const std::string text =
      "void run(int nDev) {\n  auto start = std::chrono::high_resolution_clock::now();\n"
      "  for (int i = 0; i < nDev; ++i) {\n    cudaSetDevice(i);\n    ncclAllReduce(s[i], r[i], n, t, o, comms[i], st[i]);\n  }\n}\n"
      "int main() { run(2); }\n";
  LoopSearch search;
  search.gpu_count = "nDev";
  Result<TimedLoop> loop = FindTimedLoop("t.cu", text, {"ncclAllReduce"}, "run", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_TRUE(loop->region);
  EXPECT_EQ(loop->line, 3);
  EXPECT_NE(loop->what.find("loop over the program's GPUs"), std::string::npos) << loop->what;
  search.gpu_count.clear();  // not a program driving every GPU: the timed loop itself
  EXPECT_FALSE(FindTimedLoop("t.cu", text, {"ncclAllReduce"}, "run", std::string::npos, search)->region);
}

// llm.c's all-reduce test and NCCL's examples communicate once: the statements that do are served.
TEST(LoopChoice, NoLoopServesTheStatementsThatCommunicate) {
  const std::string text =
      "int main() {\n  setup();\n  fill<<<1, 1>>>(x);\n  NCCLCHECK(ncclAllReduce(x, y, n, ncclFloat, ncclSum, c, 0));\n"
      "  cudaDeviceSynchronize();\n  NCCLCHECK(ncclBroadcast(y, y, n, ncclFloat, 0, c, 0));\n  check(y);\n}\n";
  Result<TimedLoop> none = FindTimedLoop("m.cu", text, {"ncclAllReduce", "ncclBroadcast"});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), Status::Code::kNotFound);
  LoopSearch search;
  search.allow_region = true;
  Result<TimedLoop> region = FindTimedLoop("m.cu", text, {"ncclAllReduce", "ncclBroadcast"}, "main", std::string::npos, search);
  ASSERT_TRUE(region.ok()) << region.status().message();
  EXPECT_TRUE(region->region);
  EXPECT_EQ(region->line, 4);
  EXPECT_EQ(region->end_line, 6);
}

// A benchmark with modes: throughput unless `-latency` is given. The loop of the mode it runs by
// default is served (the last loop, in the other branch, was served before, and main returned).
TEST(LoopChoice, TheBranchTheProgramTakesWithoutArguments) {
  const std::string text =
      "int main(int argc, char** argv) {\n"                                            // 1
      "  const bool latency = get_arg(argv, argv + argc, \"-latency\");\n"             // 2
      "  const int iters = get_argval<int>(argv, argv + argc, \"-iters\", 100);\n"    // 3
      "  if (!latency) {\n"                                                            // 4
      "    for (int i = 0; i < iters; ++i) ncclAllReduce(a, b, n, t, o, c, s);\n"      // 5
      "  } else {\n"                                                                   // 6
      "    for (int i = 0; i < iters; ++i) { ncclAllReduce(a, b, 1, t, o, c, s); cudaStreamSynchronize(s); }\n"  // 7
      "  }\n}\n";
  const ProgramDefaults d = DefaultsOf(text, {});
  EXPECT_EQ(d.values.at("latency"), 0);
  EXPECT_EQ(d.values.at("iters"), 100);
  LoopSearch search;
  search.defaults = &d;
  Result<TimedLoop> loop = FindTimedLoop("b.cu", text, {"ncclAllReduce"}, "main", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 5);
  // --loop picks the other one; a line with no such loop lists those there are.
  search.forced_line = 7;
  EXPECT_EQ(FindTimedLoop("b.cu", text, {"ncclAllReduce"}, "main", std::string::npos, search)->line, 7);
  search.forced_line = 3;
  Result<TimedLoop> bad = FindTimedLoop("b.cu", text, {"ncclAllReduce"}, "main", std::string::npos, search);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("b.cu:3: --loop names no loop"), std::string::npos) << bad.status().message();
  EXPECT_NE(bad.status().message().find("b.cu:5, b.cu:7"), std::string::npos) << bad.status().message();
}

// A mode held in an enum (a benchmark's timing modes: throughput by default, others by argument;
// Venkat2811/yali bench/benchmark_nccl_mpi.cu): the default's branch is served, in the function the
// mode is passed to under the same name.
TEST(LoopChoice, AnEnumModeDecidesTheBranch) {
  const std::string text =
      "enum class TimingMode { Throughput, Latency, CudaEvents };\n"                   // 1
      "enum Dtype : int { kF32 = 4, kF16 = 0x10, kBF16 }; enum Mask : unsigned long long { kNone = 0, kAll = 0xFFFFFFFFFFFFFFFFF, kNext };\n"  // 2
      "void bench(int n, TimingMode timingMode) {\n"                                   // 3
      "  if (timingMode == TimingMode::CudaEvents) {\n"                                // 4
      "    for (int i = 0; i < n; ++i) ncclAllReduce(a, b, n, t, o, c, s);\n"          // 5
      "  } else if (timingMode == TimingMode::Throughput) {\n"                         // 6
      "    for (int i = 0; i < n; ++i) ncclAllReduce(a, b, n, t, o, c, s);\n"          // 7
      "  } else {\n"                                                                   // 8
      "    for (int i = 0; i < n; ++i) { ncclAllReduce(a, b, n, t, o, c, s); sync(); }\n"  // 9
      "  }\n}\n"                                                                       // 10-11
      "int main(int argc, char** argv) {\n"                                            // 12
      "  TimingMode timingMode = TimingMode::Throughput;\n"                            // 13
      "  Dtype dtype = kBF16;\n"                                                       // 14
      "  if (argc > 3) {\n"                                                            // 15
      "    if (strcmp(argv[3], \"latency\") == 0) timingMode = TimingMode::Latency;\n"  // 16
      "  }\n"                                                                          // 17
      "  bench(1024, timingMode);\n}\n";                                               // 18-19
  const ProgramDefaults d = DefaultsOf(text, {});
  EXPECT_EQ(d.enumerators.at("TimingMode::CudaEvents"), 2);
  EXPECT_EQ(d.enumerators.count("CudaEvents"), 0u);  // scoped: only by its qualified name
  EXPECT_EQ(d.enumerators.at("kF16"), 16);
  EXPECT_EQ(d.enumerators.at("Dtype::kBF16"), 17);
  EXPECT_EQ(d.enumerators.at("kNone"), 0);
  EXPECT_EQ(d.enumerators.count("kAll") + d.enumerators.count("kNext"), 0u);  // past int64: not known, no throw
  EXPECT_EQ(d.values.at("timingMode"), 0);
  EXPECT_EQ(d.values.at("dtype"), 17);
  LoopSearch search;
  search.defaults = &d;
  Result<TimedLoop> loop = FindTimedLoop("y.cu", text, {"ncclAllReduce"}, "bench", std::string::npos, search);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 7);
  // Set again outside the command line's reading: no one value, so cuco asks.
  const std::string changed = text.substr(0, text.find("  bench(1024")) + "  timingMode = pick();\n  bench(1024, timingMode);\n}\n";
  const ProgramDefaults c = DefaultsOf(changed, {});
  EXPECT_EQ(c.values.count("timingMode"), 0u);
  search.defaults = &c;
  EXPECT_FALSE(FindTimedLoop("y.cu", changed, {"ncclAllReduce"}, "bench", std::string::npos, search).ok());
}

// main's loop of the rank-split programs below ("int main() { int rank; MPI_Comm_rank(...); " + rest),
// over their own defaults; what the search said into *trace when given.
Result<TimedLoop> RankProgramLoop(const std::string& rest, std::vector<std::string>* trace = nullptr) {
  const std::string text = "int main() {\n  int rank;\n  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n" + rest;
  const ProgramDefaults d = DefaultsOf(text, {});
  LoopSearch search;
  search.defaults = &d;
  search.trace = trace;
  return FindTimedLoop("p.cu", text, {"ncclSend", "ncclRecv"}, "main", std::string::npos, search);
}

// Two modes cuco cannot decide between, or decided by the rank: it asks, listing both, never guesses.
TEST(LoopChoice, UndecidableBranchesAreAskedAbout) {
  const std::string text =
      "int main(int argc, char** argv) {\n  Config cfg = parse(argc, argv);\n"
      "  if (cfg.mode == 2) {\n    for (;;) ncclSend(a, n, t, 1, c, s);\n  } else {\n    for (;;) ncclRecv(a, n, t, 0, c, s);\n  }\n}\n";
  const ProgramDefaults d = DefaultsOf(text, {});
  LoopSearch search;
  search.defaults = &d;
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"ncclSend", "ncclRecv"}, "main", std::string::npos, search);
  ASSERT_FALSE(loop.ok());
  const std::string m = loop.status().message();
  EXPECT_NE(m.find("p.cu:4 and p.cu:6"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot decide"), std::string::npos) << m;
  EXPECT_NE(m.find("--loop FILE:LINE"), std::string::npos) << m;
  loop = RankProgramLoop("  if (rank == 0) {\n    for (;;) ncclSend(a, n, t, 1, c, s);\n  } else {\n"
                         "    for (;;) ncclRecv(a, n, t, 0, c, s);\n  }\n}\n");
  ASSERT_TRUE(loop.ok()) << loop.status().message();  // alike headers: one loop (RankSplitLoops below)
  // Headers that differ: two loops of their own, which the harness cannot serve as one.
  loop = RankProgramLoop("  if (rank == 0) {\n    for (int i = 0; i < 8; ++i) ncclSend(a, n, t, 1, c, s);\n  } else {\n"
                         "    for (int i = 0; i < 4; ++i) ncclRecv(a, n, t, 0, c, s);\n  }\n}\n");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("each rank decides for itself"), std::string::npos) << loop.status().message();
  EXPECT_NE(loop.status().message().find("the loops' headers differ"), std::string::npos) << loop.status().message();
  EXPECT_NE(loop.status().message().find("write one loop whose body branches by rank"), std::string::npos);
}

// Two loops, one per branch of `if (rank == 0)`, each branch only its loop, headers alike: served as
// `for (header) { if (rank == 0) <then> else <else> }`, the loop's variable held at its first value.
TEST(LoopChoice, RankSplitLoopsAreServedAsOneLoopBranchingByRank) {
  std::vector<std::string> trace;
  Result<TimedLoop> loop = RankProgramLoop(
      "  if (rank == 0) {\n    for (int c = 0; c < 16; ++c)\n      for (int p = 1; p < 4; ++p) ncclSend(b, n, t, p, m, s);\n"
      "  } else\n    for (int c = 0; c < 16; ++c) { ncclRecv(b, n, t, 0, m, s); }\n  cudaStreamSynchronize(s);\n}\n",
      &trace);
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->line, 4);  // the `if`
  EXPECT_FALSE(loop->region);
  EXPECT_NE(loop->what.find("the loops at lines 5 and 8 of main, one in each branch of `if (rank == 0)`"), std::string::npos)
      << loop->what;
  EXPECT_EQ(loop->end - loop->begin, std::string("if (rank == 0) {\n    for (int c = 0; c < 16; ++c)\n      for (int p = 1; "
                                                 "p < 4; ++p) ncclSend(b, n, t, p, m, s);\n  } else\n    for (int c = 0; "
                                                 "c < 16; ++c) { ncclRecv(b, n, t, 0, m, s); }").size());
  EXPECT_EQ(loop->loop_var_decl, "int c");
  EXPECT_EQ(loop->loop_var_init, "0");
  EXPECT_NE(loop->body.find("if (rank == 0) { for (int p = 1; p < 4; ++p) ncclSend(b, n, t, p, m, s); }"), std::string::npos)
      << loop->body;
  EXPECT_NE(loop->body.find("else { ncclRecv(b, n, t, 0, m, s); }"), std::string::npos) << loop->body;
  bool said = false;
  for (const auto& l : trace) said |= l.find("served as one loop whose body branches by rank") != std::string::npos;
  EXPECT_TRUE(said);
  // A ping and its pong in `if (rank == 0) ... else if (rank == 1) ...`: three ranks' third runs empty passes.
  loop = RankProgramLoop("  if (rank == 0)\n    for (int i = 0; i < 9; ++i) { ncclSend(b, n, t, 1, m, s); ncclRecv(b, n, t, 1, m, s); }\n"
                         "  else if (rank == 1)\n    for (int i = 0; i < 9; ++i) { ncclRecv(b, n, t, 0, m, s); ncclSend(b, n, t, 0, m, s); }\n"
                         "}\n");
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_NE(loop->body.find("if (rank == 0) { ncclSend(b, n, t, 1, m, s); ncclRecv(b, n, t, 1, m, s); }\n"
                            "        else if (rank == 1) { ncclRecv(b, n, t, 0, m, s); ncclSend(b, n, t, 0, m, s); }"),
            std::string::npos)
      << loop->body;
  EXPECT_NE(loop->what.find("the loops at lines 5 and 7 of main"), std::string::npos) << loop->what;
  // A loop that sets what the condition reads: its passes would change the branch.
  loop = RankProgramLoop("  int role = rank;\n  if (role == 0) {\n    for (;;) { ncclSend(b, n, t, 1, m, s); role = 1; }\n  } else {\n"
                         "    for (;;) ncclRecv(b, n, t, 0, m, s);\n  }\n}\n");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("sets what a condition reads"), std::string::npos) << loop.status().message();
  // A branch's set-up before its loop runs before the serve call, under the same condition; its
  // declaration the loop uses is declared in front; what follows a loop is never reached.
  loop = RankProgramLoop("  if (rank == 0) {\n    prepare(b);\n    float* tmp = scratch(b);\n    for (;;) ncclSend(tmp, n, t, 1, m, s);\n"
                         "  } else {\n    for (;;) ncclRecv(b, n, t, 0, m, s);\n    check(b);\n  }\n}\n");
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->hoisted, "float* tmp{};\n  if (rank == 0) {\n    prepare(b);\n    tmp = scratch(b);\n  } else {}\n  ");
  EXPECT_NE(loop->body.find("if (rank == 0) { ncclSend(tmp, n, t, 1, m, s); }"), std::string::npos) << loop->body;
  ASSERT_EQ(loop->served_lines.size(), 2u);
  EXPECT_EQ(loop->served_lines[0], std::make_pair(7, 7));
  EXPECT_EQ(loop->served_lines[1], std::make_pair(9, 9));
  // Both branches declaring one name their loops use: declared once in front.
  loop = RankProgramLoop("  if (rank == 0) {\n    int k = 1;\n    float* tmp = a(b);\n    for (;;) ncclSend(tmp, k, t, 1, m, s);\n"
                         "  } else {\n    float* tmp = c(b);\n    for (;;) ncclRecv(tmp, n, t, 0, m, s);\n  }\n}\n");
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->hoisted, "int k{};\n  float* tmp{};\n  if (rank == 0) {\n    k = 1;\n    tmp = a(b);\n  } else {\n"
                           "    tmp = c(b);\n  }\n  ");
  // ... unless the declaration cannot move (auto), or the branch holds no loop.
  loop = RankProgramLoop("  if (rank == 0) {\n    auto tmp = scratch(b);\n    for (;;) ncclSend(tmp, n, t, 1, m, s);\n  } else {\n"
                         "    for (;;) ncclRecv(b, n, t, 0, m, s);\n  }\n}\n");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("declares `tmp` before its loop in a way cuco init cannot move"), std::string::npos)
      << loop.status().message();
  // A loop inside its branch's ncclGroupStart/End is one grouped operation: never split (the group's
  // end comes after the loop, which the harness never reaches).
  loop = RankProgramLoop("  if (rank == 0) {\n    ncclGroupStart();\n    for (int p = 1; p < 4; ++p) ncclSend(b, n, t, p, m, s);\n"
                         "    ncclGroupEnd();\n  } else {\n    for (int p = 1; p < 4; ++p) ncclRecv(b, n, t, 0, m, s);\n  }\n}\n");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("p.cu:6: the loop at line 6, one of those in the branches of `if (rank == 0)`"),
            std::string::npos)
      << loop.status().message();
  EXPECT_NE(loop.status().message().find("is inside ncclGroupStart/End"), std::string::npos) << loop.status().message();
}

// A stencil's swap at the end of its step: accesses before it keep their names, accesses after it
// reach the other buffer.
TEST(Swaps, NamesAtTheStartOfTheIteration) {
  const std::string text = "while (x) {\n  k(a_new, a);\n  std::swap(a_new, a);\n  use(a);\n  // swap(p, q)\n}\n";
  const std::vector<Swap> swaps = SwapsIn(text, 0, text.size());
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_EQ(swaps[0].line, 3);
  EXPECT_EQ(NameAtStart("a_new", 2, swaps), "a_new");
  EXPECT_EQ(NameAtStart("a", 4, swaps), "a_new");
  EXPECT_EQ(NameAtStart("a", 0, swaps), "a");  // line not known
  EXPECT_TRUE(Swapped("a", swaps));
  EXPECT_FALSE(Swapped("p", swaps));
}

// The swap written out through a temporary (a ring's K/V double buffer in C style) is a swap too;
// an assignment chain that does not come back to its start is none.
TEST(Swaps, ThroughATemporary) {
  const std::string text =
      "for (;;) {\n  send(cur);\n  recv(nxt);\n  float *tmp = cur;\n  cur = nxt;\n  nxt    = tmp;\n}\n"
      "x = y; y = z; z = w;\n";
  const std::vector<Swap> swaps = SwapsIn(text, 0, text.size());
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_EQ(swaps[0].line, 5);
  EXPECT_EQ(swaps[0].a, "cur");
  EXPECT_EQ(swaps[0].b, "nxt");
  EXPECT_EQ(NameAtStart("cur", 6, swaps), "nxt");
  EXPECT_EQ(NameAtStart("nxt", 3, swaps), "nxt");
  EXPECT_FALSE(Swapped("x", swaps));
}

}  // namespace
}  // namespace cuco::scaffold_internal
