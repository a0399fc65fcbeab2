// Judging a finished stage: how the ranks ended (launcher outcome) and what
// their metrics files say, against the workload's tolerance. The harness
// reports figures; the verdict is made here, in cuco, not in the candidate's
// process.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/outcome.h"
#include "launch/launcher.h"

namespace cuco {

struct Tolerance {
  double rel_l2 = 0;
  double max_abs = 0;
};

struct StageVerdict {
  EvalStatus status = EvalStatus::kOk;
  std::string reason;       // empty when ok
  // The supervisor was stopped by an interrupt signal (launch/interrupts.h), not by its time
  // limit: no verdict on the candidate (status kPending; the cascade marks the record unjudged).
  bool interrupted = false;
  ErrorFigures errors;
  TimingFigures timing;     // bench stage only
  nlohmann::json ranks = nlohmann::json::array();
  std::string device;
};

// What a stage run must show to pass, beyond the tolerance.
struct StageExpectations {
  std::string stage;          // "verify" or "bench"
  int world_size = 1;
  std::string nonce;          // the token the evaluator gave the ranks
  int min_checks = 1;         // per rank
  bool expect_timing = false;
  // A bound part's bench stage, run with the harness's --timing-only: no check is expected or
  // judged (the part computes a deliberately incomplete result); every rank must say
  // "checked": false; timing, nonce, errors and the tail are judged as always. A passing stage is
  // kTimed, never kOk. Conversely, without it a rank saying "checked": false is rejected.
  bool timing_only = false;
  // Every input seed a stage used (phase fresh_buffers excepted: it repeats the last verify
  // run's inputs on purpose) must be new; JudgeMetrics adds this stage's seeds. Shared by the
  // stages of one evaluation so that a seed repeated across them is caught too.
  std::set<std::string>* seen_seeds = nullptr;
};

// How the processes ended: timeout, crash, non-zero exit. Ok when all exited 0. (Program mode.)
StageVerdict JudgeJob(const JobOutcome& job);

// Harness mode: how the supervisor (runtime/src/supervisor/) ended. Its exit status says whose
// fault a failure was (cuco/protocol.h); the message comes from the "error" its rank-0 metrics
// file carries. Ok when it exited 0 (then JudgeMetrics decides).
StageVerdict JudgeSupervisor(const JobOutcome& job, const std::string& metrics_dir);

// Reads <metrics_dir>/rank<R>.json for every rank and judges them (JudgeMetricsTexts). Ok (or
// kTimed under expect.timing_only) when everything holds.
StageVerdict JudgeMetrics(const std::string& metrics_dir, const StageExpectations& expect, const Tolerance& tol);

// One rank's metrics file as read: its text, or nullopt when the rank wrote none; `where` names
// the file in messages.
struct RankMetricsText {
  std::optional<std::string> text;
  std::string where;
};
// Judges the metrics texts of ranks 0..expect.world_size-1 (`ranks[r]`; a rank beyond
// ranks.size() counts as having written nothing). Any text, however malformed, gives a verdict:
// never throws.
StageVerdict JudgeMetricsTexts(const std::vector<RankMetricsText>& ranks, const StageExpectations& expect,
                               const Tolerance& tol);

// Poison an honest output may show, given the chance matches the supervisor expects
// (`poison_expected`: floating outputs are poisoned with NaNs, which no passing output holds, so
// 0 for them; integer outputs match random bits by chance). 0 when none are expected.
long long PoisonAllowance(double expected);

// Work that escaped the timed region shows as a long gap between the stop
// event and the device going idle. Returns the largest gap an honest run may show.
double TailLimitMs(double median_ms);

}  // namespace cuco
