// EvalRecord: the structured outcome of one candidate's trip through the
// cascade (L0 scan -> L1 compile -> L2 run+verify -> L3 benchmark), and the
// rules that classify a finished run.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <cuco/protocol.h>
#include <nlohmann/json.hpp>

#include "evaluate/timing_precision.h"

namespace cuco {

// Final verdicts. kPending: not judged (yet): being evaluated, or an evaluation an interrupt cut
// short (EvalRecord::interrupted), evaluated again on resume.
enum class EvalStatus {
  kOk,            // compiled, verified at both sizes, timed
  kRejected,      // broke a rule: edited frozen code, used a denied API, escaped the timer, forged metrics
  kCompileError,  // L1 failed
  kRuntimeError,  // a rank exited non-zero, wrote no metrics, or reported an error
  kTimeout,       // a stage passed its time limit; every rank was killed
  kWrongResult,   // outputs failed verification (error figures in the record)
  kCrashed,       // a rank died by a signal
  kSkipped,       // a stage could not run here (e.g. no GPU); not a verdict on the code
  kTimed,         // a workload's bound part (compute alone, communication alone), run timing-only:
                  // timed, NOT verified. Never a passing candidate; shown as "unverified (bound part)"
  kPending,
};

const char* EvalStatusName(EvalStatus s);
EvalStatus EvalStatusFromName(const std::string& name);  // kPending for unknown names
// What printouts show: the name, except "unverified (bound part)" for kTimed.
std::string EvalStatusText(EvalStatus s);

// One stage's account: "scan", "compile", "verify", "bench".
struct StageRecord {
  std::string name;
  EvalStatus status = EvalStatus::kPending;
  double seconds = 0;
  std::string detail;     // one line: why it failed, or what it measured
  std::string log_path;   // full log (compiler output, rank logs)
  std::string log_tail;   // the last lines of the log
};

// Error figures aggregated over ranks and checks (worst case).
struct ErrorFigures {
  double rel_l2 = 0;
  double max_abs = 0;
  long long nonfinite = 0;
  long long poison_left = 0;
  long long left_alone = 0;  // of those, elements the program itself never writes (allowed; judge.cc)
  long long elements = 0;
  long long checks = 0;
  double agreement_max_abs = 0;
  bool has_agreement = false;
};

// p90/p10 of the timed iterations above which a time is flagged as noisy: the iterations spread
// too widely for the median to be trusted on its own (seen: one seed timed 541 and 1099 ms).
inline constexpr double kNoisySpread = 1.3;
// How many times the iterations a noisy bench is timed again over (Cascade::RetimeNoisy).
inline constexpr int kNoisyRetimeFactor = 4;

// The supervisor's smallest time (cuco/protocol.h): a window no longer than its own calibrated
// overhead reads as this.
using protocol::kTimerResolutionMs;
// A time the supervisor reported at that floor (its JSON's rounding allowed for).
inline bool AtTimerFloor(double ms) { return ms <= kTimerResolutionMs * 1.0001; }

struct TimingFigures {
  double median_ms = -1;                  // max over ranks of each rank's median
  double p10_ms = -1, p90_ms = -1;        // of the slowest rank
  double tail_median_ms = 0;              // max over ranks
  int iters = 0;
  std::string method;                     // how the windows were timed (EvalRecord::timing_method)
  int retimed_from = 0;                   // > 0: a first bench over this many iterations was noisy or
                                          // imprecise, these figures are the second, longer one
                                          // (Cascade::RetimeNoisy)
  // The median's 95% interval (timing_precision.h), the largest bounds over ranks (the interval of
  // the slowest rank's median); 0 when no rank reported its times.
  double median_lo_ms = 0, median_hi_ms = 0;
  std::vector<double> rank_median_ms;     // per rank
  // The largest share over ranks of timed iterations at kTimerResolutionMs (0 when no rank
  // reported its times).
  double floor_share = 0;

  // p90 / p10 (1 when either is unknown).
  double Spread() const { return p10_ms > 0 && p90_ms > 0 ? p90_ms / p10_ms : 1; }
  bool Noisy() const { return Spread() > kNoisySpread; }
  // The interval's half-width over the median (0 when unknown).
  double Precision() const {
    return median_ms > 0 && median_hi_ms >= median_lo_ms && median_lo_ms > 0 ? (median_hi_ms - median_lo_ms) / (2 * median_ms) : 0;
  }
  bool Imprecise() const { return Precision() > kMedianPrecision; }
  // The median is the timer's floor: the iteration is shorter than the supervisor can tell from
  // its own overhead, and the figure says only that (never a speed to compare).
  bool AtResolutionFloor() const { return median_ms >= 0 && AtTimerFloor(median_ms); }
  // The whole interval is above `ms` (false when `ms` <= 0 or the interval is unknown).
  bool IntervalAbove(double ms) const { return ms > 0 && median_lo_ms > ms; }
};

struct EvalRecord {
  std::string workload;
  std::string candidate_path;
  std::string code_hash;
  std::string mode;            // "harness" or "program"
  bool trusted = true;         // false in program mode: figures come from the program's own output
  std::string sandbox;         // what the candidate's build and run were confined by ("bwrap+seccomp"), or
                               // "none (--unsafe-no-sandbox)"; empty before anything ran
  bool timing_only = false;    // a bound part: L2 skipped, L3 without reference checks (status kTimed)
  std::string part;            // "compute" | "comm" when timing_only
  EvalStatus status = EvalStatus::kPending;
  std::string reason;          // one line, the first failure
  // Cut short by an interrupt (Ctrl-C, SIGTERM, a lost Slurm job...) or a tool of cuco's stopped by
  // a signal: not judged. status stays kPending (a search stores it so and evaluates it again on
  // resume) and reason says what stopped it.
  bool interrupted = false;
  std::vector<StageRecord> stages;
  ErrorFigures verify_errors, bench_errors;
  TimingFigures timing;
  std::vector<int> gpus;
  std::string device;
  int world_size = 0;
  std::map<std::string, long long> verify_sizes, bench_sizes;
  std::set<std::string> seen_seeds;  // every input seed the evaluation's stages used (not stored)
  // How the GPU windows were timed (evaluate/gpu_session.h): "MPS (cuco's own daemon: ...)", or
  // "time-sliced (no MPS): not comparable with peers" (gpu_session says why); empty before a GPU
  // stage ran. gpu_session: that session as GpuSession::ToJson, null when none.
  std::string timing_method;
  nlohmann::json gpu_session;
  // The GPU changed through no doing of the candidate (gpu_state_check.h): status kSkipped, the
  // reason "infrastructure: ..."; not a verdict on the code (a search evaluates it again).
  bool infrastructure_failure = false;
  std::string run_dir;         // where logs and metrics files lie
  nlohmann::json rank_metrics = nlohmann::json::array();  // the raw per-rank files of the last stage

  StageRecord* Stage(const std::string& name);
  nlohmann::json ToJson() const;
  // A short human-readable account (several lines).
  std::string Summary() const;
};

// Each stage's log tail under a heading: what a reader of the store needs.
std::string CollectLogs(const EvalRecord& r);

}  // namespace cuco
