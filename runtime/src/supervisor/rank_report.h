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

struct Rank {
  int rank = 0;
  std::unique_ptr<RankBackend> be;
  std::vector<SeedRecord> seeds;
  std::vector<CheckRecord> checks;
  bool have_agreement = false;
  AgreeFigures agreement;
  std::vector<double> raw_ms, null_before, null_after;
  std::vector<int64_t> scan_poison, scan_nonfinite;
  int64_t scan_elements = 0;
  std::vector<int> verified;
  std::vector<LateRecord> late;
  uint64_t poison[protocol::kMaxOutputSets] = {};
  bool poisoned[protocol::kMaxOutputSets] = {};
  std::string last_phase = "start";
  int last_iteration = -1;
  bool bench_done = false;
  bool initialized = false;
  int64_t serial = 0;  // the GO/DONE value of the latest iteration
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
  bool bench_done = false;
  bool initialized = false;                              // the backend's Init succeeded
};

// Writes r as <metrics-dir>/rank<r.rank>.json. be: the rank's backend, or nullptr when it never
// initialised. error: the stage's first failure (on rank error_rank), if any. Logs, never throws.
void WriteRankMetrics(const Args& args, const SupervisorIdentity& id, const RankReport& r, const RankBackend* be,
                      const std::optional<SupervisorError>& error, int error_rank, int64_t sample_rows);

}  // namespace cuco::supervisor
