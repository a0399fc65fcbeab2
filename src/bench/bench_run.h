// RunBench: `cuco bench <workload> [candidate...]` as a library call. The seed, every [[variants]]
// entry of the workload (the bound parts timing-only), the given candidates and the PyTorch peers,
// one after another on the same GPUs (bench_entries.h, bench_peers.h); then the table
// (bench_table.h) and the JSON (bench_json.h), written to <run-dir>/bench.json, bench.txt and
// `json_path` when given. Progress and what cuco decided up front (how CUDA entries are timed; no
// GPU here) go to stderr as "cuco bench: ..."; the caller prints the table.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "toolchain/toolchain.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct BenchOptions {
  std::string workload;                 // the workload folder
  std::vector<std::string> candidates;  // candidate files to add to the table
  int world_size = 0;                   // 0: the workload's world_size
  std::vector<int> gpus;                // empty: every GPU
  std::string run_dir;                  // "": cuco-runs/bench-<workload>-w<N>
  std::vector<std::string> only;        // entry names to keep (seed, variants, candidate files, "peers")
  bool no_peers = false;
  std::string json_path;                // also write the JSON here
  std::string label;
  std::string cache_dir;                // "": $CUCO_CACHE_DIR or ~/.cache/cuco
  std::string peers_dir;
  std::string python = "python3";
  int parallel_compiles = 2;
  std::vector<std::string> sizes;       // NAME=VALUE (bench sizes)
  double verify_limit_s = 0, bench_limit_s = 0, peer_limit_s = 0;  // > 0: replace the workload's
  bool unsafe_no_sandbox = false;
  std::string launcher;                 // "local" (default) or "slurm"
  // Already read by the caller (`cuco run` after its search): used as they are, `workload` and
  // `sizes` then name nothing new (the command reads its workload.toml once, detects once).
  std::optional<WorkloadConfig> workload_config;
  std::optional<Toolchain> toolchain;
};

struct BenchResult {
  std::filesystem::path run_dir;
  std::string head, table;    // what `cuco bench` prints: the run's head line, then the table
  bool entry_failed = false;  // an entry was evaluated and failed (the JSON's exit_code is 1)
  bool no_gpu = false;        // CUDA without a GPU: entries compiled only
  Status written;             // writing bench.json, bench.txt and json_path (kIOError when one failed)
};

// Bad input (workload, world size, run directory, entries) is kInvalidArgument; a missing nvcc or
// Slurm kUnavailable; a store that does not open kInternal. Every message names what it is about.
Result<BenchResult> RunBench(const BenchOptions& options);

}  // namespace cuco
