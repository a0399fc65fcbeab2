// The CPU test workload through the whole cascade: the seed passes and is
// timed; each planted candidate gets the verdict its header comment promises.
#include "evaluate/cascade.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>

#include "evaluate/timing_precision.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

fs::path WorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

// ctest runs every test in a process of its own: a cache per process compiled the CPU runtime again
// for each (about 8 s); the build folder's test-cache, shared with the integration tests, is
// content-keyed and safe to share.
const std::string kSharedCache = CUCO_BINARY_DIR "/test-cache";

class CascadeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    root_ = fs::temp_directory_path() / ("cuco_cascade_" + std::to_string(::getpid()));
    fs::remove_all(root_);
    auto wl = LoadWorkload(WorkloadDir());
    ASSERT_TRUE(wl.ok()) << wl.status().ToString();
    WorkloadConfig w = *wl;
    w.verify_s = 8;  // short limits keep the hanging candidate's test short
    w.bench_s = 30;
    Toolchain tc;
    tc.cxx = "g++";
    CascadeOptions o;
    o.cache_dir = kSharedCache;  // the runtime compiled once for every test process (content-keyed)
    cascade_ = new Cascade(w, tc, o);
  }
  static void TearDownTestSuite() {
    delete cascade_;
    fs::remove_all(root_);
  }
  // Compiles a candidate (and the frozen supervisor and runtime) into the shared cache.
  void Compile(const std::string& file) {
    fs::path p = WorkloadDir() / "candidates" / file;
    auto code = ReadFile(p);
    ASSERT_TRUE(code.ok()) << p;
    EvaluateOptions o;
    o.compile_only = true;
    cascade_->Evaluate(*code, p.string(), root_ / "runs" / (file + "-compile"), o);
  }
  EvalRecord Eval(const std::string& file, const EvaluateOptions& call = {}, const std::string& run = "") {
    fs::path p = file == "seed" ? WorkloadDir() / "seed.cc" : WorkloadDir() / "candidates" / file;
    auto code = ReadFile(p);
    EXPECT_TRUE(code.ok()) << p;
    return cascade_->Evaluate(*code, p.string(), root_ / "runs" / (run.empty() ? file : run), call);
  }
  static fs::path root_;
  static Cascade* cascade_;
};

fs::path CascadeTest::root_;
Cascade* CascadeTest::cascade_ = nullptr;

TEST_F(CascadeTest, SeedPassesEveryStageAndIsTimed) {
  EvalRecord r = Eval("seed");
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  EXPECT_GT(r.timing.median_ms, 0);
  EXPECT_EQ(r.timing.rank_median_ms.size(), 2u);
  EXPECT_GE(r.timing.iters, 20);
  EXPECT_LT(r.verify_errors.rel_l2, 1e-5);
  EXPECT_EQ(r.verify_errors.checks, 2 * 3);  // 2 ranks x (2 verify runs + 1 fresh-buffer run)
  EXPECT_GE(r.bench_errors.checks, 2 * 5);   // ceil(0.25 * 20) sampled iterations per rank
  EXPECT_TRUE(r.verify_errors.has_agreement);
  ASSERT_NE(r.Stage("bench"), nullptr);
  EXPECT_EQ(r.Stage("bench")->status, EvalStatus::kOk);
  // Every timed iteration of an honest candidate scans clean: its float outputs never equal their
  // NaN poison (issue 28: honest bf16 seeds showed "20/20 poisoned" with a random 16-bit poison).
  ASSERT_EQ(r.rank_metrics.size(), 2u);
  for (const auto& m : r.rank_metrics) {
    const auto& t = m["timing"];
    ASSERT_EQ(t["scan_poison_left"].size(), t["iters"].get<size_t>());
    for (const auto& n : t["scan_poison_left"]) EXPECT_EQ(n, 0);
    for (const auto& n : t["scan_nonfinite"]) EXPECT_EQ(n, 0);
    EXPECT_EQ(t["scan_poison_expected"], 0.0);
  }
}

// The supervisor runs in an empty directory of its own per stage (a user's program run as the
// reference writes its files there), so every path it gets is absolute: a run dir given relative to
// cuco's working directory still works.
TEST_F(CascadeTest, SupervisorRunsInAWorkingDirectoryOfItsOwn) {
  const fs::path before = fs::current_path();
  fs::create_directories(root_ / "relative");
  fs::current_path(root_ / "relative");
  auto code = ReadFile(WorkloadDir() / "seed.cc");
  ASSERT_TRUE(code.ok());
  EvalRecord r = cascade_->Evaluate(*code, "seed.cc", fs::path("runs") / "seed-relative");
  fs::current_path(before);
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  for (const char* stage : {"verify", "bench"}) {
    const fs::path workdir = root_ / "relative" / "runs" / "seed-relative" / stage / "workdir";
    EXPECT_TRUE(fs::is_directory(workdir)) << workdir;
  }
}

TEST_F(CascadeTest, FasterCandidateIsOkAndFaster) {
  EvalRecord seed = Eval("seed");
  EvalRecord fast = Eval("fast.cc");
  ASSERT_EQ(fast.status, EvalStatus::kOk) << fast.Summary();
  ASSERT_EQ(seed.status, EvalStatus::kOk) << seed.Summary();
  EXPECT_LT(fast.timing.median_ms, seed.timing.median_ms) << "seed " << seed.timing.median_ms << " fast "
                                                          << fast.timing.median_ms;
}

TEST_F(CascadeTest, NoisyTimingIsTimedAgainOverMoreIterations) {
  EvalRecord r = Eval("noisy.cc");
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  const int first = r.timing.retimed_from;  // the first bench's count, sized after its warm-up
  ASSERT_GE(first, 20) << r.Summary();
  EXPECT_GT(r.timing.iters, first) << r.Summary();
  EXPECT_GT(r.timing.median_lo_ms, 0) << r.Summary();
  EXPECT_TRUE(r.timing.Noisy()) << r.Summary();
  EXPECT_NE(r.Stage("bench")->detail.find(fmt::format("noisy over {} iterations (", first)), std::string::npos)
      << r.Summary();
  EXPECT_NE(r.Stage("bench")->detail.find(fmt::format("so timed again over {}: ", r.timing.iters)), std::string::npos)
      << r.Summary();
  EXPECT_NE(r.Summary().find(fmt::format("timed again: the first {} iterations spread widely", first)),
            std::string::npos)
      << r.Summary();
  EXPECT_EQ(r.ToJson()["timing"]["retimed_from_iters"], first);
  // A steady candidate is timed once; one timed again says why (its first bench noisy or imprecise:
  // on a loaded machine the seed's can be, and its longer run is then precise).
  EvalRecord seed = Eval("seed");
  if (seed.timing.retimed_from != 0) {
    const std::string& d = seed.Stage("bench")->detail;
    EXPECT_TRUE(d.rfind("noisy over ", 0) == 0 || d.rfind("imprecise over ", 0) == 0) << seed.Summary();
  }
}

// The supervisor sizes a first bench's timed loop after its warm-up, at the bench's sizes: every rank
// the same count, ceil(0.5 s / the slowest rank's warm-up pace) within [iters, 640], recomputable
// from the metrics (timing.warmup_ms).
TEST_F(CascadeTest, FirstBenchIsSizedAfterItsWarmUp) {
  EvalRecord r = Eval("seed", {}, "sized");
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  ASSERT_EQ(r.rank_metrics.size(), 2u);
  if (r.timing.retimed_from > 0) {  // timed again (a loaded machine): the metrics are the second bench's
    EXPECT_GE(r.timing.retimed_from, 20) << r.Summary();
    EXPECT_LE(r.timing.retimed_from, kMaxRetimeIters) << r.Summary();
    for (const auto& m : r.rank_metrics) {
      EXPECT_EQ(m["settings"]["timed_seconds"], 0.0);  // a second bench times the count it is given
      EXPECT_EQ(m["timing"]["sized_iters"], r.timing.iters);
    }
    return;
  }
  double slowest = 0;
  for (const auto& m : r.rank_metrics) {
    EXPECT_EQ(m["settings"]["timed_seconds"], kFirstBenchTimedSeconds);
    EXPECT_EQ(m["settings"]["max_iters"], kMaxRetimeIters);
    const std::vector<double> w = m["timing"]["warmup_ms"].get<std::vector<double>>();
    ASSERT_EQ(w.size(), 2u);  // cpu_matmul's warmup = 2: the pace is the second window
    slowest = std::max(slowest, w[1]);
  }
  const int want =
      std::clamp(static_cast<int>(std::ceil(1000 * kFirstBenchTimedSeconds / slowest)), 20, kMaxRetimeIters);
  EXPECT_EQ(r.timing.iters, want) << r.Summary();
  for (const auto& m : r.rank_metrics) EXPECT_EQ(m["timing"]["sized_iters"], want);
}

// In a search, a noisy bench whose median's interval lies wholly above the best so far is not timed
// again: the candidate is slower either way (EvaluateOptions::retime_unless_above_ms).
TEST_F(CascadeTest, NoisyTimingAboveTheBestSoFarIsNotTimedAgain) {
  EvaluateOptions call;
  call.retime_unless_above_ms = 1e-6;
  EvalRecord r = Eval("noisy.cc", call, "noisy-above-best");
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  ASSERT_TRUE(r.timing.Noisy() || r.timing.Imprecise()) << r.Summary();
  EXPECT_EQ(r.timing.retimed_from, 0) << r.Summary();
  ASSERT_EQ(r.rank_metrics.size(), 2u);
  EXPECT_EQ(r.timing.iters, r.rank_metrics[0]["timing"]["sized_iters"]) << r.Summary();  // its first bench only
  EXPECT_NE(r.Stage("bench")->detail.find("not timed again: its median's interval ("), std::string::npos)
      << r.Summary();
}

TEST_F(CascadeTest, WrongAnswerFailsWithErrorFigures) {
  EvalRecord r = Eval("wrong.cc");
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
  EXPECT_GT(r.verify_errors.rel_l2, 1e-3);
  EXPECT_NE(r.reason.find("relative L2 error"), std::string::npos) << r.reason;
}

TEST_F(CascadeTest, HangIsKilledWithinTheLimit) {
  Compile("hang.cc");  // the limit is about running: compile (and the frozen supervisor) first
  auto t = std::chrono::steady_clock::now();
  EvalRecord r = Eval("hang.cc");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_EQ(r.status, EvalStatus::kTimeout) << r.Summary();
  EXPECT_LT(s, 8 + 15) << "the cascade took " << s << " s to kill a candidate with an 8 s limit";
}

// The harness's iteration watchdog ends a hang long before the stage limit, and says so.
TEST_F(CascadeTest, HangIsEndedByTheIterationWatchdog) {
  auto wl = LoadWorkload(WorkloadDir());
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  WorkloadConfig w = *wl;
  w.verify_s = 60;
  w.iteration_s = 2;
  Toolchain tc;
  tc.cxx = "g++";
  CascadeOptions o;
  o.cache_dir = kSharedCache;  // the runtime compiled once for every test process (content-keyed)
  Cascade c(w, tc, o);
  fs::path p = WorkloadDir() / "candidates" / "hang.cc";
  auto code = ReadFile(p);
  ASSERT_TRUE(code.ok()) << p;
  EvaluateOptions compile_only;
  compile_only.compile_only = true;
  c.Evaluate(*code, p.string(), root_ / "runs" / "hang-watchdog-compile", compile_only);
  auto t = std::chrono::steady_clock::now();
  EvalRecord r = c.Evaluate(*code, p.string(), root_ / "runs" / "hang-watchdog");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_EQ(r.status, EvalStatus::kTimeout) << r.Summary();
  EXPECT_NE(r.reason.find("hung"), std::string::npos) << r.reason;
  StageRecord* st = r.Stage("verify");
  ASSERT_NE(st, nullptr);
  // The supervisor names the hung call and the limit.
  EXPECT_NE(r.reason.find("verify iteration 0 did not happen within 2 s"), std::string::npos) << r.reason;
  // and what raises the limit, for an iteration that is only slow (a program's own, say)
  EXPECT_NE(r.reason.find("workload.toml's [limits] iteration_s raises it"), std::string::npos) << r.reason;
  EXPECT_LT(s, 2 + 20) << "a hang with a 2 s iteration limit took " << s << " s to end";
}

TEST_F(CascadeTest, CrashOnOneRankIsCrashedAndPeerIsNotLeftHanging) {
  Compile("crash.cc");
  auto t = std::chrono::steady_clock::now();
  EvalRecord r = Eval("crash.cc");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_EQ(r.status, EvalStatus::kCrashed) << r.Summary();
  EXPECT_NE(r.reason.find("rank 1 died"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("signal 11"), std::string::npos) << r.reason;
  EXPECT_LT(s, 15) << "peer of a crashed rank should be reaped within the launcher's grace";
}

TEST_F(CascadeTest, FrozenEditIsRejectedBeforeCompiling) {
  EvalRecord r = Eval("frozen_edit.cc");
  EXPECT_EQ(r.status, EvalStatus::kRejected) << r.Summary();
  EXPECT_NE(r.reason.find("frozen_edit.cc:4: frozen code differs from the seed"), std::string::npos) << r.reason;
  EXPECT_EQ(r.stages.size(), 1u);  // nothing past the scan
}

TEST_F(CascadeTest, DeniedApiIsRejected) {
  EvalRecord r = Eval("exit_early.cc");
  EXPECT_EQ(r.status, EvalStatus::kRejected) << r.Summary();
  EXPECT_NE(r.reason.find("uses 'exit' (process control)"), std::string::npos) << r.reason;
}

TEST_F(CascadeTest, MemoizedAnswerIsCaught) {
  EvalRecord r = Eval("memoize.cc");
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
}

TEST_F(CascadeTest, NanIsCaught) {
  EvalRecord r = Eval("nan.cc");
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
  EXPECT_GT(r.verify_errors.nonfinite, 0);
}

TEST_F(CascadeTest, UnwrittenOutputsAreCaughtByPoison) {
  EvalRecord r = Eval("skip_rows.cc");
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
  EXPECT_GT(r.verify_errors.poison_left, 100);
}

TEST_F(CascadeTest, CompileErrorIsClassified) {
  EvalRecord r = Eval("compile_error.cc");
  EXPECT_EQ(r.status, EvalStatus::kCompileError) << r.Summary();
  EXPECT_NE(r.reason.find("error"), std::string::npos);
  // It cites the candidate's own file and keeps its log beside it, never the compile cache.
  const std::string file = (WorkloadDir() / "candidates" / "compile_error.cc").string();
  EXPECT_EQ(r.reason.rfind(file + ":", 0), 0u) << r.reason;
  const StageRecord* compile = r.Stage("compile");
  EXPECT_EQ(compile->log_path, (root_ / "runs" / "compile_error.cc" / "compile.log").string());
  auto log = ReadFile(compile->log_path);
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log->find(file + ":"), std::string::npos) << *log;
  EXPECT_EQ(log->find("/candidate.cc:"), std::string::npos) << *log;  // the cache's copy, cand-<hash>/candidate.cc
  EXPECT_EQ(compile->log_tail.find("/candidate.cc:"), std::string::npos) << compile->log_tail;
  EXPECT_EQ(r.reason.find(kSharedCache), std::string::npos) << r.reason;
}

const Variant* FindVariant(const Cascade& c, const std::string& name) {
  for (const auto& v : c.workload().variants)
    if (v.name == name) return &v;
  return nullptr;
}

TEST_F(CascadeTest, KnobVariantIsMaterialisedAndVerified) {
  const Variant* v = FindVariant(*cascade_, "ikj_unroll4");
  ASSERT_NE(v, nullptr);
  auto code = MaterializeVariant(cascade_->workload(), *v);
  ASSERT_TRUE(code.ok()) << code.status().ToString();
  EXPECT_NE(code->find("kLoopOrder = \"ikj\";  // cuco:knob loop_order"), std::string::npos);
  EXPECT_NE(code->find("kUnroll = 4;"), std::string::npos);
  EvalRecord r = cascade_->Evaluate(*code, "ikj_unroll4", root_ / "runs" / "ikj_unroll4");
  EXPECT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  EXPECT_FALSE(r.timing_only);
}

TEST_F(CascadeTest, BoundPartIsTimedButNeverVerifiedNorOk) {
  const Variant* v = FindVariant(*cascade_, "comm_alone");
  ASSERT_NE(v, nullptr);
  auto code = MaterializeVariant(cascade_->workload(), *v);
  ASSERT_TRUE(code.ok()) << code.status().ToString();
  EvaluateOptions part;
  part.bound_part = "comm_alone";
  EvalRecord r = cascade_->Evaluate(*code, "comm_alone", root_ / "runs" / "comm_alone", part);
  ASSERT_EQ(r.status, EvalStatus::kTimed) << r.Summary();
  EXPECT_TRUE(r.timing_only);
  EXPECT_EQ(r.part, "comm");
  EXPECT_GT(r.timing.median_ms, 0);
  EXPECT_EQ(r.bench_errors.checks, 0);
  EXPECT_EQ(r.Stage("verify")->status, EvalStatus::kSkipped);
  EXPECT_EQ(r.Stage("bench")->status, EvalStatus::kTimed);
  EXPECT_NE(r.Summary().find("unverified (bound part)"), std::string::npos) << r.Summary();
  nlohmann::json j = r.ToJson();
  EXPECT_EQ(j["status"], "timed");
  EXPECT_EQ(j["status_text"], "unverified (bound part)");
  EXPECT_EQ(j["verified"], false);
  for (const auto& m : r.rank_metrics) EXPECT_EQ(m["checked"], false);

  // The same code through the normal cascade: its output is deliberately not the product.
  EvalRecord checked = cascade_->Evaluate(*code, "comm_alone", root_ / "runs" / "comm_alone_checked");
  EXPECT_EQ(checked.status, EvalStatus::kWrongResult) << checked.Summary();
}

TEST_F(CascadeTest, OnlyTheWorkloadsOwnPartsRunTimingOnly) {
  // A candidate asking to run unchecked: refused before anything is compiled or run.
  auto wrong = ReadFile(WorkloadDir() / "candidates" / "wrong.cc");
  ASSERT_TRUE(wrong.ok());
  EvaluateOptions part;
  part.bound_part = "comm_alone";
  EvalRecord r = cascade_->Evaluate(*wrong, "wrong.cc", root_ / "runs" / "wrong_as_part", part);
  EXPECT_EQ(r.status, EvalStatus::kRejected) << r.Summary();
  EXPECT_NE(r.reason.find("timing-only run refused"), std::string::npos) << r.reason;
  EXPECT_EQ(r.stages.size(), 1u);
  // A full variant is not a part; an unknown name is not a variant.
  auto ikj = MaterializeVariant(cascade_->workload(), *FindVariant(*cascade_, "ikj"));
  ASSERT_TRUE(ikj.ok());
  part.bound_part = "ikj";
  EXPECT_EQ(cascade_->Evaluate(*ikj, "ikj", root_ / "runs" / "ikj_as_part", part).status, EvalStatus::kRejected);
  part.bound_part = "no_such_part";
  EXPECT_EQ(cascade_->Evaluate(*ikj, "ikj", root_ / "runs" / "unknown_part", part).status, EvalStatus::kRejected);
  // A part's code with one byte changed is a candidate, not the part.
  auto comm = MaterializeVariant(cascade_->workload(), *FindVariant(*cascade_, "comm_alone"));
  ASSERT_TRUE(comm.ok());
  part.bound_part = "comm_alone";
  EvalRecord edited = cascade_->Evaluate(*comm + "\n", "edited", root_ / "runs" / "edited_part", part);
  EXPECT_EQ(edited.status, EvalStatus::kRejected) << edited.Summary();
}

// Program mode has no Slurm path yet: under the Slurm launcher its stage is skipped, saying so,
// instead of running the program here without the GPUs Slurm would have given it.
TEST(ProgramModeUnderSlurm, IsSkippedSayingWhy) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_program_slurm_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomic(dir / "program.cc", "#include <cstdio>\nint main() { std::puts(\"PASS Time: 1 ms\"); }\n").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "workload.toml", R"(name = "p"
mode = "program"
language = "cpu"
seed = "program.cc"
world_size = 1
[program]
launcher = "cuco"
time_regex = 'Time: ([0-9.]+) ms'
pass_regex = 'PASS'
)").ok());
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  Toolchain tc;
  tc.cxx = "g++";
  CascadeOptions options;
  options.cache_dir = dir / "cache";
  options.launcher = "slurm";
  Cascade cascade(*wl, tc, options);
  auto code = ReadFile(dir / "program.cc");
  ASSERT_TRUE(code.ok());
  EvalRecord r = cascade.Evaluate(*code, "program.cc", dir / "run");
  EXPECT_EQ(r.status, EvalStatus::kSkipped) << r.Summary();
  EXPECT_NE(r.reason.find("does not run through Slurm yet"), std::string::npos) << r.reason;
  fs::remove_all(dir);
}

// Program mode on a CPU workload: two ranks through cuco's launcher (in the sandbox, or not), each
// printing what `printf_args` says (its rank in `rank`); the verdict is the program's own words.
EvalRecord RunCpuProgram(const std::string& name, const std::string& printf_args, bool sandboxed) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_program_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_TRUE(WriteFileAtomic(dir / "program.cc", "#include <cstdio>\n#include <cstdlib>\nint main() {\n"
                                                  "  const char* r = std::getenv(\"CUCO_RANK\");\n"
                                                  "  int rank = r ? std::atoi(r) : -1;\n  std::printf(" +
                                                      printf_args + ");\n  return rank < 0;\n}\n")
                  .ok());
  EXPECT_TRUE(WriteFileAtomic(dir / "workload.toml", R"(name = "p"
mode = "program"
language = "cpu"
seed = "program.cc"
world_size = 2
[program]
launcher = "cuco"
time_regex = 'Time: ([0-9.]+) ms'
pass_regex = 'PASS'
fail_regex = 'FAIL'
)").ok());
  auto wl = LoadWorkload(dir);
  EXPECT_TRUE(wl.ok()) << wl.status().ToString();
  if (!wl.ok()) return {};
  Toolchain tc;
  tc.cxx = "g++";
  CascadeOptions options;
  options.cache_dir = dir / "cache";
  options.unsafe_no_sandbox = !sandboxed;
  Cascade cascade(*wl, tc, options);
  auto code = ReadFile(dir / "program.cc");
  EXPECT_TRUE(code.ok());
  EvalRecord r = cascade.Evaluate(code.ok() ? *code : "", "program.cc", dir / "run");
  fs::remove_all(dir);
  return r;
}

TEST(ProgramModeOutput, PassAndTheSlowestRanksTimeInTheSandbox) {
  EvalRecord r = RunCpuProgram("pass", "\"PASS Time: %d ms\\n\", 1 + 2 * rank", true);
  ASSERT_EQ(r.status, EvalStatus::kOk) << r.Summary();
  EXPECT_EQ(r.timing.median_ms, 3);
  // In the sandbox both ranks write one log (rank 0's): their lines in either order.
  std::vector<double> times = r.timing.rank_median_ms;
  std::sort(times.begin(), times.end());
  EXPECT_EQ(times, (std::vector<double>{1, 3}));
  EXPECT_FALSE(r.sandbox.empty());
  EXPECT_NE(r.sandbox, "none (--unsafe-no-sandbox)");
  EXPECT_NE(r.Stage("program")->detail.find("UNTRUSTED"), std::string::npos) << r.Summary();
}

TEST(ProgramModeOutput, FailurePatternIsAWrongResult) {
  EvalRecord r = RunCpuProgram("fail", "rank == 1 ? \"PASS FAIL\\n\" : \"PASS Time: 1 ms\\n\"", false);
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
  EXPECT_EQ(r.reason, "the program printed its failure pattern");
  EXPECT_EQ(r.sandbox, "none (--unsafe-no-sandbox)");
}

TEST(ProgramModeOutput, NoTimePrintedIsARuntimeError) {
  EvalRecord r = RunCpuProgram("notime", "\"PASS rank %d\\n\", rank", false);
  EXPECT_EQ(r.status, EvalStatus::kRuntimeError) << r.Summary();
  EXPECT_EQ(r.reason, "no time matched program.time_regex in the program's output");
}

// A program-mode workload whose generation 0 is the program with EVOLVE markers added (the fast
// path's annotation): candidates are checked against that file's frozen text.
TEST(ProgramModeFrozenText, ComesFromAnAnnotatedGeneration0) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_program_frozen_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string program = "#include <cstdio>\nint main() {\n  std::printf(\"Time: 1 ms\\n\");\n  return 0;\n}\n";
  const std::string gen0 = "#include <cstdio>\nint main() {\n// EVOLVE-BLOCK-START\n  std::printf(\"Time: 1 ms\\n\");\n"
                           "// EVOLVE-BLOCK-END\n  return 0;\n}\n";
  ASSERT_TRUE(WriteFileAtomic(dir / "program.cu", program).ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "gen0.cu", gen0).ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "workload.toml",
                              "name = \"p\"\ndescription = \"d\"\nmode = \"program\"\nlanguage = \"cuda\"\n"
                              "seed = \"program.cu\"\ngeneration0 = \"gen0.cu\"\nworld_size = 1\nworld_sizes = [1]\n"
                              "[program]\nlauncher = \"cuco\"\ntime_regex = 'Time: ([0-9.]+) ms'\npass_regex = 'Time'\n")
                  .ok());
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  CascadeOptions options;
  options.cache_dir = dir / "cache";
  Cascade cascade(*wl, Toolchain{}, options);
  std::string edited = gen0;
  edited.replace(edited.find("return 0;"), 9, "return 1;");  // outside the block
  EvaluateOptions compile_only;
  compile_only.compile_only = true;
  const EvalRecord r = cascade.Evaluate(edited, "edited.cu", dir / "run", compile_only);
  EXPECT_EQ(r.status, EvalStatus::kRejected) << r.Summary();
  EXPECT_NE(r.reason.find("gen0.cu"), std::string::npos) << r.reason;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco
