// cuco bench <workload> [candidate...]: the seed, every [[variants]] entry of the workload (the
// bound parts timing-only), the given candidates and the PyTorch peers, one after another on the
// same GPUs; then a table of times, speed-ups and the share of the way to the overlap bound, and a
// JSON file with every record and the machine it ran on.
//
// The run is bench/bench_run.h's (its JSON: bench/bench_json.h); this file parses the flags and
// prints the table.
#include <iostream>

#include <fmt/format.h>

#include "bench/bench_json.h"
#include "bench/bench_run.h"
#include "cli/commands.h"
#include "cli/launcher_option.h"
#include "cli/workload_options.h"

namespace cuco {
namespace {

// bench.json's exit_code is the exit code this command returns.
static_assert(kBenchExitOk == kExitOk && kBenchExitEntryFailed == kExitCandidateFailed);

int Run(const BenchOptions& a) {
  auto r = RunBench(a);
  if (!r.ok()) {
    std::cerr << "cuco bench: " << r.status().message() << "\n";
    return ExitCodeFor(r.status());
  }
  int code = r->entry_failed ? kExitCandidateFailed : kExitOk;
  if (!r->written.ok()) {
    std::cerr << "cuco bench: " << r->written.message() << "\n";
    code = kExitInternal;
  }
  std::cout << r->head << "\n" << r->table;
  std::cout << fmt::format("\nrecords: {} (store {}){}\n", (r->run_dir / "bench.json").string(),
                           (r->run_dir / "cuco.db").string(), a.json_path.empty() ? "" : "; JSON also in " + a.json_path);
  if (r->no_gpu) std::cout << "no GPU found on this machine: entries were compiled only (L1); nothing was timed.\n";
  return code;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark a workload: its seed, every [[variants]] entry (bound parts timed, not verified), the given "
      "candidates and the PyTorch peers, one after another on the same GPUs; prints a table with speed-ups and "
      "the share of the way to the overlap bound, and writes every record as JSON");
  auto a = std::make_shared<BenchOptions>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml)")->required();
  cmd->add_option("candidates", a->candidates, "Candidate files to add to the table");
  AddWorldSizeOption(cmd, &a->world_size, "Ranks (default: the workload's world_size)");
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  cmd->add_option("--run-dir", a->run_dir, "Where the store, logs and bench.json go (default: cuco-runs/bench-<workload>-w<N>)");
  cmd->add_option("--only", a->only, "Run only these entries: seed, variant names, candidate file names, peers")
      ->delimiter(',');
  cmd->add_flag("--no-peers", a->no_peers, "Do not run the PyTorch peers");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->add_option("--json", a->json_path, "Also write the JSON (always written to <run-dir>/bench.json) to this file");
  cmd->add_option("--label", a->label, "A label kept in the JSON and the store (e.g. the machine or the change tested)");
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  cmd->add_option("--peers-dir", a->peers_dir, "Folder holding <workload>.py peers (default: bench/peers)");
  cmd->add_option("--python", a->python, "Python interpreter for the peers (default: python3)");
  cmd->add_option("--parallel-compiles", a->parallel_compiles, "Compiles at once, all done before any run (default 2)");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; the verify sizes stay)");
  cmd->add_option("--verify-limit", a->verify_limit_s, "Override the workload's verify time limit (seconds)");
  cmd->add_option("--bench-limit", a->bench_limit_s, "Override the workload's bench time limit (seconds)");
  cmd->add_option("--peer-limit", a->peer_limit_s, "Time limit of the peer run (default: max(300, bench limit) seconds)");
  cmd->callback([a, exit_code] { *exit_code = Run(*a); });
}

}  // namespace cuco
