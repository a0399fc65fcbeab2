// GPU state as evidence: the readings the supervisor takes before the candidate starts and after it
// ended (rank<R>.json "gpu_state", runtime/METRICS.md), compared with the evaluation's baseline (the
// first stage's "before" reading, taken before any candidate process of the evaluation existed) and
// with the GPU's reference (its first baseline in this cuco process), beyond the noise measured then.
//
// What a difference means depends on who could have caused it:
//   - SM count, device memory or the canary, changed after the candidate ran: the candidate (MPS
//     limits, kernels left running) -> rejected, the reason naming the change;
//   - other processes on the GPU, clocks, compute or persistence mode (nothing a sandboxed
//     candidate reaches), or anything already different before the candidate ran: the machine ->
//     an infrastructure failure, never the candidate's verdict (the evaluation is run again).
// A canary slower by less than CanaryTolerance is noise; a slower kernel that the SM clock
// explains (NVML's clock read right after it) is not counted. Nothing faster counts.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cuco {

struct GpuReading {
  bool present = false;  // a reading was taken and had no error
  double kernel_ms = -1, kernel_spread = 0, copy_ms = -1, copy_spread = 0;
  int sm_count = -1;
  long long mem_total = -1;
  int sm_clock_mhz = -1, app_sm_clock_mhz = -1, app_mem_clock_mhz = -1;
  int compute_mode = -1, persistence_mode = -1;
  int processes = -1;  // compute processes NVML lists on the GPU; -1 unknown
  int reads = 1;       // readings the supervisor took for this one (the last kept: a slower first is read again)
};

// One "before" / "after" object of a rank's gpu_state; not present when it is null, malformed or
// says it failed ("error").
GpuReading ParseGpuReading(const nlohmann::json& j);

// How much slower (as a fraction) a canary may read before it counts: four times the spread of
// the baseline's samples, and at least 25%.
double CanaryTolerance(double baseline_spread);

struct GpuStateChange {
  std::vector<std::string> candidate;  // changes a candidate can cause (MPS limits: SMs, memory)
  std::vector<std::string> canary;     // the canary slower beyond the noise
  std::vector<std::string> machine;    // changes no sandboxed candidate reaches
  bool changed() const { return !candidate.empty() || !canary.empty() || !machine.empty(); }
  std::string Text() const;  // every change, "; "-joined
};

// `later` against `base` (both present; otherwise nothing changed).
GpuStateChange CompareGpuReadings(const GpuReading& base, const GpuReading& later);

enum class GpuStateBlame { kNone, kCandidate, kInfrastructure };

struct GpuStateVerdict {
  GpuStateBlame blame = GpuStateBlame::kNone;
  std::string reason;
  std::vector<int> suspect_ranks;  // ranks whose GPU differed from its reference before the candidate ran
};

// The readings of one stage. `ranks`: the stage's rank metrics (JudgeMetrics' StageVerdict::ranks).
// `baseline` (one per rank): empty for the evaluation's first stage, whose "before" readings then
// become it; `reference` (one per rank, may be absent): the GPUs' readings from earlier evaluations.
// `expect_mps`: whether cuco ran this evaluation under its own MPS daemon (a supervisor that saw
// otherwise is an infrastructure failure).
GpuStateVerdict JudgeGpuState(const std::string& stage, const nlohmann::json& ranks, bool expect_mps,
                              std::vector<GpuReading>* baseline, const std::vector<GpuReading>& reference);

}  // namespace cuco
