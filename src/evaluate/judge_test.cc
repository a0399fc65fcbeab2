#include "evaluate/judge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <limits>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

class JudgeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cuco_judge_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  nlohmann::json Rank(int r, const std::string& stage = "bench") {
    nlohmann::json m = {{"harness", "cuco-gpu/1"}, {"nonce", "n0"}, {"rank", r}, {"world_size", 2}, {"stage", stage},
                        {"device", "H200"}};
    m["checks"] = nlohmann::json::array();
    for (int i = 0; i < 2; ++i)
      m["checks"].push_back({{"iteration", i}, {"kind", "timed_sample"}, {"rel_l2", 0.003}, {"max_abs", 0.01},
                             {"nonfinite", 0}, {"poison_left", 0}, {"elements", 4096}});
    m["timing"] = {{"median_ms", 1.0 + r}, {"p10_ms", 0.9 + r}, {"p90_ms", 1.1 + r}, {"iters", 20}, {"tail_median_ms", 0.01},
                   {"verified_iterations", {0, 1}}, {"scan_poison_left", std::vector<int>(20, 0)},
                   {"scan_nonfinite", std::vector<int>(20, 0)}, {"scan_poison_expected", 0.0}};
    return m;
  }
  void Write(const nlohmann::json& m) {
    ASSERT_TRUE(WriteFileAtomic(dir_ / ("rank" + std::to_string(m["rank"].get<int>()) + ".json"), m.dump()).ok());
  }
  StageVerdict Judge(const std::string& stage = "bench") {
    StageExpectations ex{stage, 2, "n0", 2, stage == "bench"};
    return JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05});
  }
  fs::path dir_;
};

TEST_F(JudgeTest, HonestRanksPassAndTimeIsMaxOfMedians) {
  Write(Rank(0));
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kOk) << v.reason;
  EXPECT_DOUBLE_EQ(v.timing.median_ms, 2.0);
  EXPECT_DOUBLE_EQ(v.timing.p90_ms, 2.1);
  EXPECT_EQ(v.errors.checks, 4);
  EXPECT_DOUBLE_EQ(v.errors.rel_l2, 0.003);
}

TEST_F(JudgeTest, TheMediansIntervalComesFromEachRanksTimes) {
  // Rank 0's times 1..20 ms (interval 6-15), rank 1's 11..30 ms (16-25): the record's is the largest
  // bounds, the interval of the slowest rank's median.
  auto r0 = Rank(0), r1 = Rank(1);
  for (int i = 0; i < 20; ++i) {
    r0["timing"]["times_ms"].push_back(1.0 + i);
    r1["timing"]["times_ms"].push_back(11.0 + i);
  }
  Write(r0);
  Write(r1);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kOk) << v.reason;
  EXPECT_DOUBLE_EQ(v.timing.median_lo_ms, 16);
  EXPECT_DOUBLE_EQ(v.timing.median_hi_ms, 25);
  // Times that do not match the iterations reported give no interval.
  r1["timing"]["times_ms"].erase(0);
  r0["timing"]["times_ms"] = nlohmann::json::array();
  Write(r0);
  Write(r1);
  v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kOk) << v.reason;
  EXPECT_DOUBLE_EQ(v.timing.median_lo_ms, 0);
  EXPECT_FALSE(v.timing.Imprecise());
}

// stop 52: a 4 MB all-reduce whose windows were shorter than the calibration read 0.001 ms in 616
// of 640 iterations. The record says the median is the floor, and how much of each rank sat there.
TEST_F(JudgeTest, AMedianAtTheTimersFloorIsSaidSo) {
  auto r0 = Rank(0), r1 = Rank(1);
  r0["timing"]["median_ms"] = r1["timing"]["median_ms"] = kTimerResolutionMs;
  for (int i = 0; i < 20; ++i) {
    r0["timing"]["times_ms"].push_back(i < 18 ? kTimerResolutionMs : 0.2);
    r1["timing"]["times_ms"].push_back(i < 15 ? kTimerResolutionMs : 0.2);
  }
  Write(r0);
  Write(r1);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kOk) << v.reason;
  EXPECT_TRUE(v.timing.AtResolutionFloor());
  EXPECT_DOUBLE_EQ(v.timing.floor_share, 0.9);
  EvalRecord rec;
  rec.workload = "w";
  rec.status = EvalStatus::kOk;
  rec.timing = v.timing;
  EXPECT_TRUE(rec.ToJson()["timing"]["at_resolution_floor"].get<bool>());
  EXPECT_NE(rec.Summary().find("BELOW RESOLUTION: the median is the timer's floor (0.001 ms; 90% of the iterations)"),
            std::string::npos)
      << rec.Summary();
  // Times above the floor: nothing said.
  Write(Rank(0));
  Write(Rank(1));
  v = Judge();
  EXPECT_FALSE(v.timing.AtResolutionFloor());
  rec.timing = v.timing;
  EXPECT_EQ(rec.Summary().find("BELOW RESOLUTION"), std::string::npos);
}

TEST_F(JudgeTest, MissingRankIsRuntimeError) {
  Write(Rank(0));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("rank 1 wrote no metrics file"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, ErrorAboveToleranceIsWrongResultWithFigures) {
  auto m = Rank(1);
  m["checks"][1]["rel_l2"] = 0.2;
  Write(Rank(0));
  Write(m);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("relative L2 error 0.2 (tolerance 0.01)"), std::string::npos) << v.reason;
  EXPECT_DOUBLE_EQ(v.errors.rel_l2, 0.2);
}

TEST_F(JudgeTest, NanNeverPasses) {
  auto m = Rank(0);
  m["checks"][0]["rel_l2"] = nullptr;  // how the harness writes NaN
  Write(m);
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_TRUE(std::isnan(v.errors.rel_l2));
}

TEST_F(JudgeTest, NonfiniteCountFails) {
  auto m = Rank(0);
  m["checks"][0]["nonfinite"] = 3;
  Write(m);
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("3 NaN/Inf"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, PoisonLeftFails) {
  auto m = Rank(0);
  m["checks"][1]["poison_left"] = 2048;
  Write(m);
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("2048 output elements still hold the poison"), std::string::npos) << v.reason;
}

// Every timed iteration's scan is judged, not only the sampled ones: an iteration that skipped its
// work (poison left) or wrote NaN fails the candidate, and the reason names the iteration.
TEST_F(JudgeTest, UnsampledTimedIterationsAreJudged) {
  auto m = Rank(1);
  m["timing"]["scan_poison_left"][13] = 7;
  Write(Rank(0));
  Write(m);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("rank 1 timed iteration 13 (not one of the sampled checks): 7 output elements still hold "
                          "the poison"), std::string::npos) << v.reason;

  m = Rank(1);
  m["timing"]["scan_nonfinite"][1] = 2;
  Write(m);
  v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("rank 1 timed iteration 1: 2 NaN/Inf output elements"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, IntegerOutputsMayMatchTheirPoisonByChance) {
  // 2^20 u8 elements: 4096 chance matches expected, about 64 either way.
  auto m = Rank(0);
  m["timing"]["scan_poison_expected"] = 4096.0;
  m["timing"]["scan_poison_left"][3] = 4200;
  Write(m);
  Write(Rank(1));
  EXPECT_EQ(Judge().status, EvalStatus::kOk) << Judge().reason;
  m["timing"]["scan_poison_left"][3] = 1 << 20;  // all of it: the iteration wrote nothing
  Write(m);
  EXPECT_EQ(Judge().status, EvalStatus::kWrongResult);
  EXPECT_EQ(PoisonAllowance(0), 0);
  EXPECT_EQ(PoisonAllowance(4096), 4096 + 512 + 16);
}

TEST_F(JudgeTest, PoisonIsAllowedWhereTheProgramItselfWritesNothing) {
  // The reference found 1000 elements its own iteration leaves alone: the poison they hold passes,
  // in the checks and in the timed scans; one more element does not.
  auto m = Rank(0);
  for (auto& c : m["checks"]) c["left_alone"] = 1000, c["poison_left"] = 1000;
  m["timing"]["scan_poison_left"] = std::vector<int>(20, 1000);
  Write(m);
  Write(Rank(1));
  EXPECT_EQ(Judge().status, EvalStatus::kOk) << Judge().reason;
  EXPECT_EQ(Judge().errors.left_alone, 1000);
  m["timing"]["scan_poison_left"][7] = 1001;
  Write(m);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("rank 0 timed iteration 7"), std::string::npos) << v.reason;
  m["timing"]["scan_poison_left"][7] = 1000;
  m["checks"][1]["poison_left"] = 1001;
  Write(m);
  EXPECT_EQ(Judge().status, EvalStatus::kWrongResult);
  // Another rank's allowance is its own, and a negative figure allows nothing.
  auto r1 = Rank(1);
  r1["timing"]["scan_poison_left"][0] = 10;
  for (auto& c : r1["checks"]) c["left_alone"] = -5;
  m["checks"][1]["poison_left"] = 1000;
  Write(m);
  Write(r1);
  EXPECT_EQ(Judge().status, EvalStatus::kWrongResult);
}

TEST_F(JudgeTest, ScansMissingForATimedIterationAreTheHarnesss) {
  auto m = Rank(0);
  m["timing"]["scan_nonfinite"].erase(19);
  Write(m);
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("rank 0's metrics do not scan every timed iteration (20 iterations, 20 poison and 19 NaN "
                          "scans)"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, ForgedNonceIsRejected) {
  auto m = Rank(1);
  m["nonce"] = "guess";
  Write(Rank(0));
  Write(m);
  EXPECT_EQ(Judge().status, EvalStatus::kRejected);
}

TEST_F(JudgeTest, EscapedWorkIsRejected) {
  auto m = Rank(0);
  m["timing"]["tail_median_ms"] = 0.9;
  Write(m);
  Write(Rank(1));
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kRejected);
  EXPECT_NE(v.reason.find("work escaped the timer"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, TooFewChecksAndDisagreement) {
  auto m = Rank(0, "verify");
  m.erase("timing");
  m["checks"].erase(1);
  Write(m);
  auto m1 = Rank(1, "verify");
  m1.erase("timing");
  m1["agreement_max_abs"] = 0.5;
  Write(m1);
  StageVerdict v = Judge("verify");
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("rank 0 reported 1 checks, expected at least 2"), std::string::npos) << v.reason;
  m["checks"].push_back(m["checks"][0]);
  Write(m);
  v = Judge("verify");
  EXPECT_EQ(v.status, EvalStatus::kWrongResult);
  EXPECT_NE(v.reason.find("disagree by 0.5"), std::string::npos) << v.reason;
}

// A bound part (compute alone / communication alone), run with --timing-only: what the harness
// writes then, per rank.
nlohmann::json PartRank(int r) {
  nlohmann::json m = {{"harness", "cuco-gpu/1"}, {"nonce", "n0"}, {"rank", r}, {"world_size", 2}, {"stage", "bench"},
                      {"checked", false}, {"device", "H200"}, {"checks", nlohmann::json::array()}};
  m["timing"] = {{"median_ms", 0.5 + r}, {"p10_ms", 0.4 + r}, {"p90_ms", 0.6 + r}, {"iters", 20},
                 {"tail_median_ms", 0.01}, {"verified_iterations", nlohmann::json::array()},
                 // a part leaves outputs unwritten or wrong: figures only, never judged
                 {"scan_poison_left", nlohmann::json::array({65536, 65536})}};
  return m;
}

TEST_F(JudgeTest, TimingOnlyPartIsTimedNeverOk) {
  Write(PartRank(0));
  Write(PartRank(1));
  StageExpectations ex{"bench", 2, "n0", 0, true, /*timing_only=*/true};
  StageVerdict v = JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05});
  EXPECT_EQ(v.status, EvalStatus::kTimed) << v.reason;
  EXPECT_TRUE(v.reason.empty()) << v.reason;
  EXPECT_DOUBLE_EQ(v.timing.median_ms, 1.5);  // max over ranks, as always
  EXPECT_DOUBLE_EQ(v.timing.p10_ms, 1.4);
  EXPECT_EQ(v.errors.checks, 0);
  EXPECT_STREQ(EvalStatusName(v.status), "timed");
  EXPECT_EQ(EvalStatusText(v.status), "unverified (bound part)");
  EXPECT_EQ(EvalStatusFromName("timed"), EvalStatus::kTimed);
  EXPECT_NE(v.status, EvalStatus::kOk);
}

TEST_F(JudgeTest, TimingOnlyStillJudgesTheTimerNonceAndErrors) {
  StageExpectations ex{"bench", 2, "n0", 0, true, /*timing_only=*/true};
  auto escaped = PartRank(1);
  escaped["timing"]["tail_median_ms"] = 0.9;
  Write(PartRank(0));
  Write(escaped);
  StageVerdict v = JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05});
  EXPECT_EQ(v.status, EvalStatus::kRejected);
  EXPECT_NE(v.reason.find("work escaped the timer"), std::string::npos) << v.reason;

  auto forged = PartRank(1);
  forged["nonce"] = "guess";
  Write(forged);
  EXPECT_EQ(JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05}).status, EvalStatus::kRejected);

  auto untimed = PartRank(1);
  untimed.erase("timing");
  Write(untimed);
  v = JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05});
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("rank 1 reported no timing"), std::string::npos) << v.reason;

  auto errored = PartRank(1);
  errored["error"] = "cuco_candidate_run: boom";
  Write(errored);
  EXPECT_EQ(JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05}).status, EvalStatus::kRuntimeError);
}

TEST_F(JudgeTest, TimingOnlyNeedsTheHarnessToConfirmIt) {
  StageExpectations ex{"bench", 2, "n0", 0, true, /*timing_only=*/true};
  auto m = PartRank(1);
  m.erase("checked");  // a harness that ignored the flag
  Write(PartRank(0));
  Write(m);
  StageVerdict v = JudgeMetrics(dir_.string(), ex, Tolerance{0.01, 0.05});
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("does not say \"checked\": false"), std::string::npos) << v.reason;
}

TEST_F(JudgeTest, UncheckedMetricsNeverPassANormalRun) {
  // A metrics file claiming a timing-only run where checks were required: rejected, even with
  // checks in it, and never mistaken for a pass.
  auto m = Rank(1);
  m["checked"] = false;
  Write(Rank(0));
  Write(m);
  StageVerdict v = Judge();
  EXPECT_EQ(v.status, EvalStatus::kRejected);
  EXPECT_NE(v.reason.find("required checks"), std::string::npos) << v.reason;
  m["checks"] = nlohmann::json::array();
  Write(m);
  EXPECT_NE(Judge().status, EvalStatus::kOk);
  EXPECT_NE(Judge().status, EvalStatus::kTimed);
}

// Metrics text of any shape gives a verdict (tests/fuzz/regressions/metrics/ keeps the inputs
// the fuzzer and its author found); checks that are not objects are no checks at all.
TEST(JudgeMetricsTexts, MalformedFieldsGiveVerdictsNotExceptions) {
  StageExpectations ex{"verify", 1, "n0", 1, false};
  auto judge = [&](const std::string& text) {
    return JudgeMetricsTexts({{text, "rank0.json"}}, ex, Tolerance{0.01, 0.05});
  };
  const std::string head = R"({"nonce":"n0","rank":0,"stage":"verify",)";
  EXPECT_EQ(judge(R"({"nonce":1,"rank":0,"stage":"verify"})").status, EvalStatus::kRejected);
  EXPECT_EQ(judge(R"({"nonce":"n0","rank":"0","stage":"verify"})").status, EvalStatus::kRejected);
  StageVerdict v = judge(head + R"("device":7,"checks":[{"kind":3,"elements":1,"poison_left":99999}]})");
  EXPECT_EQ(v.status, EvalStatus::kWrongResult) << v.reason;
  EXPECT_NE(v.reason.find("? check"), std::string::npos) << v.reason;
  v = judge(head + R"("checks":[1,2,3]})");
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError) << v.reason;
  EXPECT_NE(v.reason.find("0 checks"), std::string::npos) << v.reason;
  EXPECT_EQ(judge(head + R"("checks":{"rel_l2":0}})").status, EvalStatus::kRuntimeError);
  v = judge(head + R"("checks":[{"elements":9223372036854775807},{"elements":9223372036854775807}]})");
  EXPECT_EQ(v.status, EvalStatus::kOk) << v.reason;
  EXPECT_EQ(v.errors.elements, std::numeric_limits<long long>::max());
  EXPECT_EQ(JudgeMetricsTexts({}, ex, Tolerance{0.01, 0.05}).status, EvalStatus::kRuntimeError);
}

TEST(JudgeJob, ClassifiesTimeoutSignalAndExit) {
  JobOutcome j;
  j.ranks.resize(2);
  j.ranks[0].rank = 0;
  j.ranks[1].rank = 1;
  j.timed_out = true;
  EXPECT_EQ(JudgeJob(j).status, EvalStatus::kTimeout);
  j.timed_out = false;
  j.first_failed_rank = 1;
  j.ranks[1].outcome.started = true;
  j.ranks[1].outcome.signal = 11;
  StageVerdict v = JudgeJob(j);
  EXPECT_EQ(v.status, EvalStatus::kCrashed);
  EXPECT_NE(v.reason.find("rank 1 died by signal 11"), std::string::npos) << v.reason;
  j.ranks[1].outcome.signal = 0;
  j.ranks[1].outcome.exit_code = 4;
  v = JudgeJob(j);
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("exited with code 4 (CUDA/NCCL error in the harness)"), std::string::npos) << v.reason;
  j.ranks[1].outcome.exit_code = 5;  // the harness's iteration watchdog: a hang, classed with the stage time limit
  v = JudgeJob(j);
  EXPECT_EQ(v.status, EvalStatus::kTimeout);
  EXPECT_NE(v.reason.find("rank 1 hung"), std::string::npos) << v.reason;
  j.first_failed_rank = -1;
  EXPECT_EQ(JudgeJob(j).status, EvalStatus::kOk);
}

}  // namespace

namespace {

TEST(TimingFigures, AWideSpreadIsFlaggedNoisyInTheRecord) {
  EvalRecord r;
  r.workload = "w";
  r.status = EvalStatus::kOk;
  r.timing.median_ms = 800;
  r.timing.p10_ms = 541;  // the same seed, one run: 541 and 1099 ms
  r.timing.p90_ms = 1099;
  r.timing.iters = 20;
  r.timing.rank_median_ms = {800};
  EXPECT_TRUE(r.timing.Noisy());
  EXPECT_NEAR(r.timing.Spread(), 1099.0 / 541.0, 1e-12);
  EXPECT_TRUE(r.ToJson()["timing"]["noisy"].get<bool>());
  EXPECT_NE(r.Summary().find("NOISY timing: p90/p10 = 2.03"), std::string::npos) << r.Summary();
  r.timing.p10_ms = 790;  // a tight distribution
  r.timing.p90_ms = 812;
  EXPECT_FALSE(r.timing.Noisy());
  EXPECT_FALSE(r.ToJson()["timing"]["noisy"].get<bool>());
  EXPECT_EQ(r.Summary().find("NOISY"), std::string::npos);
  r.timing.p10_ms = -1;  // unknown: not flagged
  EXPECT_FALSE(r.timing.Noisy());
}

// The supervisor killed by a signal: its log's last line is in the reason (a program's reference
// code runs in it: glibc's buffer check ended mmb.c's, held out in stop 72), and never a pass.
TEST_F(JudgeTest, ASupervisorKilledByASignalSaysWhatItsLogEndsWith) {
  const fs::path log = dir_ / "rank0.log";
  ASSERT_TRUE(WriteFileAtomic(log, "cuco reference: rank 0 starts\n*** buffer overflow detected ***: terminated\n").ok());
  JobOutcome j;
  RankOutcome r;
  r.outcome.started = true;
  r.outcome.signal = 6;
  r.log_path = log.string();
  j.ranks.push_back(r);
  j.first_failed_rank = 0;
  StageVerdict v = JudgeSupervisor(j, dir_.string());
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("the supervisor died by signal 6"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("its log ends \"*** buffer overflow detected ***: terminated\""), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("the program's own code as the reference"), std::string::npos) << v.reason;
}

// The program's own code ended the reference before its timed loop (deepseekmoe-labs' moe_nccl.cu:
// `perror(p.c_str()); exit(1);` on a missing input file, stop 81 on one H100): the reason carries what
// the program said last, not the supervisor's own lines after it.
TEST_F(JudgeTest, AProgramExitingBeforeItsLoopSaysWhatItLastPrinted) {
  const fs::path log = dir_ / "rank0.log";
  ASSERT_TRUE(WriteFileAtomic(log, "[cuco-supervisor] reference: 1 rank\ncases/case1/meta.txt: No such file or directory\n"
                                   "cuco reference: the program, run as the reference: the program called exit(1)\n"
                                   "[cuco-supervisor] the program called exit(1) on rank 0\n")
                  .ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "rank0.json",
                              R"({"error": "the program, run as the reference: the program called exit(1) on rank 0 before )"
                              R"(reaching its timed loop"})")
                  .ok());
  JobOutcome j;
  RankOutcome r;
  r.outcome.started = true;
  r.outcome.exit_code = protocol::kExitUsage;
  r.log_path = log.string();
  j.ranks.push_back(r);
  j.first_failed_rank = 0;
  StageVerdict v = JudgeSupervisor(j, dir_.string());
  EXPECT_EQ(v.status, EvalStatus::kRuntimeError);
  EXPECT_NE(v.reason.find("before reaching its timed loop; the program's last line of output: "
                          "\"cases/case1/meta.txt: No such file or directory\""),
            std::string::npos)
      << v.reason;
  // The candidate's own exit: what it printed is in its log, not the supervisor's (whose lines are the
  // reference's run of the program), so nothing is quoted.
  ASSERT_TRUE(WriteFileAtomic(dir_ / "rank0.json",
                              R"({"error": "the program called exit(1) before reaching its timed loop"})")
                  .ok());
  j.ranks[0].outcome.exit_code = protocol::kExitCandidateExited;
  v = JudgeSupervisor(j, dir_.string());
  EXPECT_EQ(v.reason.find("last line of output"), std::string::npos) << v.reason;
  // Its pass ended by its own check (the CSCS miniapp's CG, stop 90 on one H100): what it said then.
  ASSERT_TRUE(WriteFileAtomic(log, "ERROR: CG failed to converge after 200 iterations, with residual 0.0202961\n"
                                   "[cuco-supervisor] rank 0: error (supervisor)\n")
                  .ok());
  ASSERT_TRUE(WriteFileAtomic(dir_ / "rank0.json",
                              R"j({"error": "fill_inputs: the program, run as the reference: the iteration called )j"
                              R"j(exit(-1) (the program's own error check) (rank 0)"})j")
                  .ok());
  j.ranks[0].outcome.exit_code = protocol::kExitSupervisor;
  v = JudgeSupervisor(j, dir_.string());
  EXPECT_NE(v.reason.find("last line of output: \"ERROR: CG failed to converge"), std::string::npos) << v.reason;
}

}  // namespace
}  // namespace cuco
