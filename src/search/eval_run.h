// RunEval: `cuco eval <workload> [candidate...]` as a library call, as bench/bench_run.h's RunBench
// is `cuco bench`'s. The workload (with its --size and limit overrides), the toolchain, the run
// folder and its store, the launcher and the cascade are settled here; then EvaluateAndStore
// (eval_candidates.h). What cuco decided up front (how CUDA candidates are timed; no GPU here) goes
// to stderr as "cuco eval: ..."; the caller prints the records.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "search/eval_candidates.h"
#include "util/status.h"

namespace cuco {

struct EvalOptions {
  std::string workload;                 // the workload folder
  std::vector<std::string> candidates;  // candidate files; none: the workload's seed
  std::string stage = "all";            // "compile", "compile-check" (device code unoptimised) or "all"
  std::vector<int> gpus;                // empty: every GPU
  int world_size = 0;                   // 0: the workload's world_size
  std::string run_dir;                  // "": cuco-runs/eval-<workload>
  std::string cache_dir;                // "": $CUCO_CACHE_DIR or ~/.cache/cuco
  bool skip_deny_scan = false;          // testing cuco only
  bool unsafe_no_sandbox = false;
  std::string launcher;                 // "local" (default) or "slurm"
  int jobs = 1;
  int parallel_compiles = 2;
  std::vector<std::string> sizes;       // NAME=VALUE (bench sizes)
  double verify_limit_s = 0, bench_limit_s = 0;  // > 0: replace the workload's
  bool quiet = false;                   // no "no GPU here" paragraph (--json)
};

struct EvalRunResult {
  std::filesystem::path run_dir;
  std::vector<EvaluatedCandidate> done;  // one per candidate, in their order
};

// Bad input (workload, world size, candidate file, run folder) is kInvalidArgument or kNotFound; a
// missing nvcc or Slurm kUnavailable; a store that does not open kInternal. Every message names what
// it is about.
Result<EvalRunResult> RunEval(const EvalOptions& options);

}  // namespace cuco
