// `--launcher local|slurm` of eval, evolve, run and bench, and what choosing Slurm checks before
// anything runs (evaluate/launcher_choice.h): the Slurm commands are on PATH (else exit 3,
// kExitEnvironment) and the run directory is visible from a Slurm task (else exit 2 with the
// directory named).
#pragma once

#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "evaluate/cascade.h"
#include "launch/slurm_commands.h"

namespace cuco {

void AddLauncherOption(CLI::App* cmd, std::string* launcher);

// Sets opts->launcher and opts->slurm: `flag` when given, else `configured` (the run config's
// `launcher`). For Slurm, checks the tools and the run directory; on failure prints
// "cuco <command>: <why>" and returns the exit code, else 0.
int ApplyLauncher(const std::string& command, const std::string& flag, const std::string& configured,
                  const SlurmOptions& slurm, const std::filesystem::path& run_dir, CascadeOptions* opts);

}  // namespace cuco
