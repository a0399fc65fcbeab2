// The CPU test workload through the whole cascade: the seed passes and is
// timed; each planted candidate gets the verdict its header comment promises.
#include "evaluate/cascade.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

fs::path WorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

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
    o.cache_dir = root_ / "cache";
    cascade_ = new Cascade(w, tc, o);
  }
  static void TearDownTestSuite() {
    delete cascade_;
    fs::remove_all(root_);
  }
  EvalRecord Eval(const std::string& file) {
    fs::path p = file == "seed" ? WorkloadDir() / "seed.cc" : WorkloadDir() / "candidates" / file;
    auto code = ReadFile(p);
    EXPECT_TRUE(code.ok()) << p;
    return cascade_->Evaluate(*code, p.string(), root_ / "runs" / file);
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
}

TEST_F(CascadeTest, FasterCandidateIsOkAndFaster) {
  EvalRecord seed = Eval("seed");
  EvalRecord fast = Eval("fast.cc");
  ASSERT_EQ(fast.status, EvalStatus::kOk) << fast.Summary();
  ASSERT_EQ(seed.status, EvalStatus::kOk) << seed.Summary();
  EXPECT_LT(fast.timing.median_ms, seed.timing.median_ms) << "seed " << seed.timing.median_ms << " fast "
                                                          << fast.timing.median_ms;
}

TEST_F(CascadeTest, WrongAnswerFailsWithErrorFigures) {
  EvalRecord r = Eval("wrong.cc");
  EXPECT_EQ(r.status, EvalStatus::kWrongResult) << r.Summary();
  EXPECT_GT(r.verify_errors.rel_l2, 1e-3);
  EXPECT_NE(r.reason.find("relative L2 error"), std::string::npos) << r.reason;
}

TEST_F(CascadeTest, HangIsKilledWithinTheLimit) {
  auto t = std::chrono::steady_clock::now();
  EvalRecord r = Eval("hang.cc");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_EQ(r.status, EvalStatus::kTimeout) << r.Summary();
  EXPECT_LT(s, 8 + 15) << "the cascade took " << s << " s to kill a candidate with an 8 s limit";
}

TEST_F(CascadeTest, CrashOnOneRankIsCrashedAndPeerIsNotLeftHanging) {
  auto t = std::chrono::steady_clock::now();
  EvalRecord r = Eval("crash.cc");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  EXPECT_EQ(r.status, EvalStatus::kCrashed) << r.Summary();
  EXPECT_NE(r.reason.find("rank 1 died by signal 11"), std::string::npos) << r.reason;
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
}

}  // namespace
}  // namespace cuco
