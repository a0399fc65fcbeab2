// The cuco subcommands. Each Add* registers one subcommand on the app and runs
// it when chosen; main() only dispatches. The commands are doctor, eval, evolve,
// bench, analyze, init, transform, run, and the run viewers show, diff, best, export, ls, report
// and serve; a new one adds its Add* here.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyze/analysis.h"
#include "cli/budget_options.h"  // BudgetFlags: evolve and run
#include "cli/exit_code.h"  // ExitCode, ExitCodeFor: shared by every subcommand

namespace cuco {

// `cuco evolve`'s arguments; `cuco run` calls RunEvolve after making generation 0.
struct EvolveArgs {
  std::string command = "evolve";  // the command that runs the search ("run" for `cuco run`): messages name it
  std::string workload;
  std::string config;
  std::string run_dir;
  std::string resume;
  std::vector<int> gpus;
  std::string cache_dir;
  int world_size = 0;              // --world-size: sets [workload] world_size of a new run
  std::vector<std::string> sizes;  // --size NAME=VALUE: sets [workload] sizes of a new run
  BudgetFlags budget;              // --max-candidates, --max-generations, --time-budget, --max-cost (budget_options.h)
  bool json = false;
  bool unsafe_no_sandbox = false;  // --unsafe-no-sandbox
  std::string launcher;            // --launcher: replaces the run config's `launcher` for this session
  bool accept_changes = false;     // --accept-changes: resume a run whose binding changed, as a new lineage
};
int RunEvolve(const EvolveArgs& args);

void AddDoctorCommand(CLI::App& app, int* exit_code);
void AddEvalCommand(CLI::App& app, int* exit_code);
void AddEvolveCommand(CLI::App& app, int* exit_code);
void AddBenchCommand(CLI::App& app, int* exit_code);
void AddAnalyzeCommand(CLI::App& app, int* exit_code);
void AddInitCommand(CLI::App& app, int* exit_code);
void AddTransformCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, int* exit_code);
void AddShowCommand(CLI::App& app, int* exit_code);
void AddDiffCommand(CLI::App& app, int* exit_code);
void AddBestCommand(CLI::App& app, int* exit_code);
void AddExportCommand(CLI::App& app, int* exit_code);
void AddLsCommand(CLI::App& app, int* exit_code);
void AddReportCommand(CLI::App& app, int* exit_code);
void AddServeCommand(CLI::App& app, int* exit_code);

}  // namespace cuco
