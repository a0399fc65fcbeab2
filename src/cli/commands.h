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
#include "search/session.h"  // SessionOptions: evolve and run

namespace cuco {

// `cuco evolve`'s arguments: a search session's options (search/session.h) and --json; `cuco run`
// calls RunEvolve after making generation 0.
struct EvolveArgs : SessionOptions {
  bool json = false;  // --json: the summary as JSON, and no progress line
};
// `summary`, when given, gets the search's summary (its best file).
int RunEvolve(const EvolveArgs& args, SessionSummary* summary = nullptr);

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
