// What the supervisor records of one rank during a stage, and how it writes that record as the
// rank's metrics file (<metrics-dir>/rank<R>.json, schema in runtime/METRICS.md): written once, at
// the end, atomically (a temporary file renamed), for every rank, also when the stage failed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "supervisor/args.h"
#include "supervisor/rank_backend.h"
#include "supervisor/supervisor.h"

namespace cuco::supervisor {

struct CheckRecord {
  int iteration;
  std::string kind;  // verify | fresh_buffers | timed_sample
  uint64_t seed;
  CheckFigures r;
  ScanFigures scan;
  double time_ms;
  double check_s = 0;  // the supervisor's time computing the reference and comparing (not timed)
};

struct SeedRecord {
  int iteration;
  std::string phase;  // verify | fresh_buffers | warmup | timed
  uint64_t seed;
};

struct LateRecord {
  std::string phase;  // the iteration whose window had closed, or "after_exit"
  int iteration;
  int64_t elements;
};

// A moment of the stage on one rank: seconds since the supervisor's driver began (the timeline
// says where a stage's wall time goes: the backend's start, the candidate's start-up and set-up,
// the iterations, the reference checks, the teardown).
struct TimelineMark {
  std::string what;
  double at_s;
};

// Everything one rank's metrics file says.
struct RankReport {
  int rank = 0;
  std::vector<SeedRecord> seeds;
  std::vector<CheckRecord> checks;
  bool have_agreement = false;
  AgreeFigures agreement;
  std::vector<double> raw_ms, null_before, null_after;  // windows, and calibrations with no candidate
  std::vector<double> warmup_ms;                         // the warm-up windows, before the timed loop
  int sized_iters = 0;                                   // the timed loop's count, once decided
  std::vector<int64_t> scan_poison, scan_nonfinite;     // per timed iteration
  int64_t scan_elements = 0;
  double scan_poison_expected = 0;                       // chance matches of an honest output (ScanFigures)
  std::vector<int> verified;                             // timed iterations checked on sampled rows
  std::vector<LateRecord> late;
  std::vector<TimelineMark> timeline;                    // in order of time
  bool bench_done = false;
  bool initialized = false;                              // the backend's Init succeeded
};

// Writes r as <metrics-dir>/rank<r.rank>.json. be: the rank's backend, or nullptr when it never
// initialised. error: the stage's first failure (on rank error_rank), if any. Logs, never throws.
void WriteRankMetrics(const Args& args, const SupervisorIdentity& id, const RankReport& r, const RankBackend* be,
                      const std::optional<SupervisorError>& error, int error_rank, int64_t sample_rows);

}  // namespace cuco::supervisor
