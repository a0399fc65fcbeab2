// The bench run that puts a searched workload's overlap bound beside its best (`cuco run`, after the
// search of a user's program): the seed, the workload's bound parts ([[variants]] with a `part`:
// the program without its communication, without its GEMMs) and the best candidate, no PyTorch
// peers (a user's program has none), in <search run dir>/bound. Where the best's knob marks differ
// from the defaults, also the best's own parts (best_compute_alone, best_comm_alone: each plain part
// at the best's settings), which tell the best's gap to the bound apart.
#pragma once

#include <optional>
#include <string>

#include "bench/bench_run.h"
#include "workload/workload_config.h"

namespace cuco {

// `base` with the workload (as loaded: `workload_config`), the entries and the run folder set; nullopt when the workload declares
// no bound part or the search left no best (`best_path` empty).
std::optional<BenchOptions> BoundBenchOptions(const WorkloadConfig& workload, const std::string& best_path,
                                              BenchOptions base);

}  // namespace cuco
