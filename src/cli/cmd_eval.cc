// cuco eval <workload> [candidate...]: candidates through the cascade, every record stored in the
// run's SQLite store and printed. The run is search/eval_run.h's; this file parses the flags and
// prints the records.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/launcher_option.h"
#include "cli/workload_options.h"
#include "search/eval_run.h"

namespace cuco {
namespace {

struct EvalArgs : EvalOptions {
  bool json = false;
};

int Run(const EvalArgs& a) {
  EvalOptions options = a;
  options.quiet = a.json;
  auto r = RunEval(options);
  if (!r.ok()) {
    std::cerr << "cuco eval: " << r.status().message() << "\n";
    return ExitCodeFor(r.status());
  }
  int code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const EvaluatedCandidate& e : r->done) {
    nlohmann::json j = e.record.ToJson();
    j["store_id"] = e.store_id;
    if (!e.note.empty()) j["note"] = e.note;
    all.push_back(j);
    if (!a.json)
      std::cout << e.record.Summary() << (e.note.empty() ? "" : "  " + e.note + "\n")
                << fmt::format("  stored as candidate {} in {}\n\n", e.store_id, (r->run_dir / "cuco.db").string());
    if (e.record.status != EvalStatus::kOk && e.record.status != EvalStatus::kSkipped) code = kExitCandidateFailed;
  }
  if (a.json) std::cout << (all.size() == 1 ? all[0] : all).dump(2) << "\n";
  return code;
}

}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("eval", "Run candidates through the cascade (scan, compile, verify, benchmark) and "
                                         "print and store their records; with no candidate, the workload's seed");
  auto a = std::make_shared<EvalArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml)")->required();
  cmd->add_option("candidates", a->candidates, "Candidate files (copies of the seed with changed EVOLVE blocks)");
  cmd->add_flag("--json", a->json, "Print records as JSON");
  cmd->add_option("--stage", a->stage,
                  "How far to go: compile | compile-check (device code unoptimised: does it build; faster) | all")
      ->check(CLI::IsMember({"compile", "compile-check", "all"}));
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  AddWorldSizeOption(cmd, &a->world_size, "Ranks (default: the workload's world_size; one of its world_sizes)");
  cmd->add_option("--run-dir", a->run_dir, "Where the store and logs go (default: cuco-runs/eval-<workload>)");
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  cmd->add_option("--jobs", a->jobs, "Candidates evaluated at once (compiles overlap runs; GPU runs get disjoint GPUs)");
  cmd->add_option("--parallel-compiles", a->parallel_compiles, "Compiles at once (default 2)");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; the verify sizes stay)");
  cmd->add_option("--verify-limit", a->verify_limit_s, "Override the workload's verify time limit (seconds)");
  cmd->add_option("--bench-limit", a->bench_limit_s, "Override the workload's bench time limit (seconds)");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->add_flag("--unsafe-skip-deny-scan", a->skip_deny_scan,
                "Testing cuco only: skip the deny-list scan so the harness's runtime defences are exercised");
  cmd->callback([a, exit_code] { *exit_code = Run(*a); });
}

}  // namespace cuco
