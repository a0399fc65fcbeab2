// The PyTorch peers of `cuco bench`: bench/peers/<workload>.py run once per rank through cuco's
// local launcher (contract: bench/peers/README.md), as rows for the bench table and a JSON record.
// Never fails the bench: every problem becomes a skipped or failed row, and the entries a peer
// finished before it failed (it rewrites its result file after each) are kept.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/cascade.h"
#include "bench/bench_table.h"
#include "workload/workload_config.h"

namespace cuco {

struct PeerOptions {
  std::string python = "python3";
  std::string peers_dir;  // --peers-dir: where <workload>.py is (default: see FindPeerScript)
  double limit_s = 0;     // > 0: the peer's time limit (default max(300 s, the workload's bench_s))
};

// The peers' outcome: rows for the table, and what to keep in the JSON.
struct PeerOutcome {
  std::vector<BenchRow> rows;
  nlohmann::json json = nlohmann::json::object();
};

PeerOutcome RunPeers(const PeerOptions& options, const WorkloadConfig& wl, Cascade& cascade, int world,
                     const std::filesystem::path& run_dir);

}  // namespace cuco
