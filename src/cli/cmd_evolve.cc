// cuco evolve <workload>: the slow path. An evolutionary search over candidates (islands,
// archive, novelty filter, a proposer), every candidate through the cascade and into the run's
// store; resumable (--resume). docs/search.md describes the run config and the loop; the run
// itself is search/session.h's: this file parses the flags and prints.
#include <iostream>

#include "cli/commands.h"
#include "cli/launcher_option.h"
#include "cli/workload_options.h"

namespace cuco {
namespace {

int ExitCodeOf(SessionEnd end) {
  switch (end) {
    case SessionEnd::kDone: return kExitOk;
    case SessionEnd::kCandidateFailed: return kExitCandidateFailed;
    case SessionEnd::kStopped: return kExitStopped;
    case SessionEnd::kAborted: return kExitAborted;
    case SessionEnd::kLauncherFailed: return kExitEnvironment;
  }
  return kExitInternal;
}

}  // namespace

int RunEvolve(const EvolveArgs& a, SessionSummary* summary_out) {
  const std::string me = "cuco " + a.command + ": ";  // every message's prefix
  SessionOptions options = a;
  options.live_output = !a.json;
  auto session = Session::Open(options);
  if (!session.ok()) {
    std::cerr << me << session.status().message() << "\n";
    return ExitCodeFor(session.status());
  }
  auto summary = (*session)->Run();
  if (!summary.ok()) {
    std::cerr << me << summary.status().message() << "\n";
    return ExitCodeFor(summary.status());
  }
  if (a.json) std::cout << summary->json.dump(2) << "\n";
  else std::cout << summary->text;
  if (summary_out != nullptr) *summary_out = *summary;
  return ExitCodeOf(summary->end);
}

void AddEvolveCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("evolve", "Search for faster candidates: islands of candidates mutated by a proposer, "
                                           "each evaluated by the cascade and stored; resumable (docs/search.md)");
  auto a = std::make_shared<EvolveArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml); optional with --resume");
  cmd->add_option("--config", a->config, "Run config (TOML, docs/search.md); default: every key's default");
  cmd->add_option("--run-dir", a->run_dir, "Where config.toml, cuco.db, logs/ and candidates/ go "
                                           "(default: cuco-runs/evolve-<workload>-<time>)");
  cmd->add_option("--resume", a->resume, "Continue the run in this directory (after a kill, a Ctrl-C or a budget)");
  cmd->add_flag("--accept-changes", a->accept_changes,
                "With --resume: go on although the workload's frozen files or the run config changed since the run "
                "began, as a new lineage (recorded in the store and the report); without it such a resume is refused");
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  AddWorldSizeOption(cmd, &a->world_size, "Ranks per candidate (default: [workload] world_size of the config, else the "
                                          "workload's world_size); recorded in the run's config.toml");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; recorded in the run's config.toml)");
  AddBudgetOptions(cmd, &a->budget);
  cmd->add_flag("--json", a->json, "Print the summary as JSON (and no progress line)");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->callback([a, exit_code] { *exit_code = RunEvolve(*a); });
}

}  // namespace cuco
