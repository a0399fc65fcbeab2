// The cuco subcommands. Each Add* registers one subcommand on the app and runs
// it when chosen; main() only dispatches. The commands are doctor, eval, evolve,
// bench, analyze, init, transform and run; a new one adds its Add* here.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyze/analysis.h"

namespace cuco {

// Exit codes shared by every subcommand.
enum ExitCode {
  kExitOk = 0,           // done; every candidate passed (or could only be compiled here: no GPU)
  kExitCandidateFailed = 1,  // a candidate was evaluated and failed (its record says why)
  kExitUsage = 2,        // bad command line or bad input file (the message names file and line)
  kExitEnvironment = 3,  // a needed tool is missing (run `cuco doctor`)
  kExitInternal = 4,     // a cuco bug or an I/O failure
};

// `cuco evolve`'s arguments; `cuco run` calls RunEvolve after making generation 0.
struct EvolveArgs {
  std::string workload;
  std::string config;
  std::string run_dir;
  std::string resume;
  std::vector<int> gpus;
  std::string cache_dir;
  int world_size = 0;              // --world-size: sets [workload] world_size of a new run
  std::vector<std::string> sizes;  // --size NAME=VALUE: sets [workload] sizes of a new run
  bool json = false;
  bool unsafe_no_sandbox = false;  // --unsafe-no-sandbox
};
int RunEvolve(const EvolveArgs& args);

// `cuco analyze` of `path` with the CUDA/NCCL/MPI headers this machine has (cmd_analyze.cc).
Result<Analysis> AnalyzeOnThisMachine(const std::string& path);

// The exit code for a failing Status: bad input -> kExitUsage, a missing tool -> kExitEnvironment,
// anything else -> kExitInternal.
int ExitCodeFor(const Status& s);

void AddDoctorCommand(CLI::App& app, int* exit_code);
void AddEvalCommand(CLI::App& app, int* exit_code);
void AddEvolveCommand(CLI::App& app, int* exit_code);
void AddBenchCommand(CLI::App& app, int* exit_code);
void AddAnalyzeCommand(CLI::App& app, int* exit_code);
void AddInitCommand(CLI::App& app, int* exit_code);
void AddTransformCommand(CLI::App& app, int* exit_code);
void AddRunCommand(CLI::App& app, int* exit_code);

}  // namespace cuco
