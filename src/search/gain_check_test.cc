#include "search/gain_check.h"

#include <gtest/gtest.h>

#include <map>

namespace cuco {
namespace {

namespace fs = std::filesystem;

// An evaluator that times "seed" and "best" code from lists, in the order asked, and records the order.
struct ScriptedEvaluator {
  std::map<std::string, std::vector<double>> times;
  std::vector<std::string> order;
  std::map<std::string, EvalStatus> status;
  EvaluateFn Fn() {
    return [this](const std::string& code, const std::string& label, const fs::path& dir, double best_hi_ms) {
      EXPECT_EQ(code, label + " code");
      EXPECT_EQ(best_hi_ms, 0);  // every round is timed to full precision
      EXPECT_EQ(dir.parent_path(), fs::path("/run/gain-check"));
      order.push_back(dir.filename().string());
      EvalRecord r;
      r.status = status.count(code) ? status[code] : EvalStatus::kOk;
      auto& left = times[code];
      r.timing.median_ms = left.empty() ? 1 : left.front();
      if (!left.empty()) left.erase(left.begin());
      return r;
    };
  }
};

TEST(GainCheck, AlternatesAndConfirmsAGainSeenInEveryRound) {
  ScriptedEvaluator e;
  e.times["seed code"] = {1.0, 1.1, 0.9};
  e.times["best code"] = {0.8, 0.8, 0.85};
  GainCheck g = CheckGain(e.Fn(), "seed code", "best code", "/run/gain-check", 3, nullptr);
  EXPECT_EQ(e.order, (std::vector<std::string>{"round1-seed", "round1-best", "round2-best", "round2-seed", "round3-seed",
                                               "round3-best"}));
  ASSERT_EQ(g.rounds.size(), 3u);
  EXPECT_TRUE(g.Confirmed());
  EXPECT_DOUBLE_EQ(g.Ratio(), 1.0 / 0.8);
  EXPECT_DOUBLE_EQ(g.MinRatio(), 0.9 / 0.85);
  EXPECT_DOUBLE_EQ(g.MaxRatio(), 1.1 / 0.8);
  EXPECT_NE(g.Line("seed").find("re-timed against the seed in 3 alternating round(s): 1.25x (per round 1.06x-1.38x), "
                                "faster in every round: the gain holds"),
            std::string::npos)
      << g.Line("seed");
  EXPECT_TRUE(g.ToJson()["confirmed"].get<bool>());
}

TEST(GainCheck, AGainOneEvaluationSawIsNotConfirmedWhenARoundDisagrees) {
  ScriptedEvaluator e;
  e.times["seed code"] = {0.45, 0.67, 0.41};  // one seed's medians over evaluations on an idle GPU
  e.times["best code"] = {0.44, 0.52, 0.49};
  GainCheck g = CheckGain(e.Fn(), "seed code", "best code", "/run/gain-check", 3, nullptr);
  EXPECT_FALSE(g.Confirmed());
  EXPECT_EQ(g.RoundsBestFaster(), 2);
  EXPECT_NE(g.Line("seed").find("faster in 2 of 3: NOT a confirmed gain"), std::string::npos) << g.Line("seed");
  EXPECT_FALSE(g.ToJson()["confirmed"].get<bool>());
}

TEST(GainCheck, ABestAtTheTimersFloorIsNoGain) {
  ScriptedEvaluator e;
  e.times["seed code"] = {0.040, 0.041};
  e.times["best code"] = {kTimerResolutionMs, 0.030};  // one round shorter than the supervisor can time
  GainCheck g = CheckGain(e.Fn(), "seed code", "best code", "/run/gain-check", 2, nullptr);
  ASSERT_EQ(g.rounds.size(), 2u);
  EXPECT_EQ(g.RoundsBestFaster(), 2);
  EXPECT_EQ(g.RoundsBestAtFloor(), 1);
  EXPECT_FALSE(g.Confirmed());
  EXPECT_NE(g.Line("seed").find("the best at the timer's floor (0.001 ms) in 1 of 2: NOT a confirmed gain"),
            std::string::npos)
      << g.Line("seed");
  EXPECT_EQ(g.ToJson()["best_at_timer_floor_rounds"].get<int>(), 1);
}

TEST(GainCheck, AFailedRoundOrAnInterruptEndsItAndSaysWhy) {
  ScriptedEvaluator e;
  e.status["best code"] = EvalStatus::kTimeout;
  GainCheck g = CheckGain(e.Fn(), "seed code", "best code", "/run/gain-check", 3, nullptr);
  EXPECT_TRUE(g.rounds.empty());
  EXPECT_FALSE(g.Confirmed());
  EXPECT_EQ(g.stopped, "round 1: the best was timeout");
  EXPECT_NE(g.Line("seed").find("not re-timed against the seed: round 1: the best was timeout"), std::string::npos);

  ScriptedEvaluator cut;  // an evaluation the interrupt cut short is no verdict on the best
  cut.status["best code"] = EvalStatus::kPending;
  EvaluateFn interrupted = [&](const std::string& code, const std::string& label, const fs::path& dir, double) {
    EvalRecord r = cut.Fn()(code, label, dir, 0);
    r.interrupted = r.status == EvalStatus::kPending;
    return r;
  };
  g = CheckGain(interrupted, "seed code", "best code", "/run/gain-check", 3, nullptr);
  EXPECT_EQ(g.stopped, "stopped by the interrupt");

  ScriptedEvaluator quiet;
  std::atomic<bool> stop{true};
  g = CheckGain(quiet.Fn(), "seed code", "best code", "/run/gain-check", 3, &stop);
  EXPECT_TRUE(quiet.order.empty());
  EXPECT_EQ(g.stopped, "stopped by the interrupt");
  EXPECT_FALSE(g.Confirmed());
}

}  // namespace
}  // namespace cuco
