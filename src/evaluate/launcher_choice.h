// Which launcher a cascade uses (CascadeOptions::launcher): the --launcher flag when given, else the
// run config's `launcher`; and what choosing Slurm checks before anything runs: the Slurm commands
// are on PATH (else kUnavailable) and the run directory is visible from a Slurm task (else
// kInvalidArgument naming the directory). cli/launcher_option.h prints the refusal.
#pragma once

#include <filesystem>
#include <string>

#include "evaluate/cascade.h"
#include "launch/slurm_commands.h"
#include "util/status.h"

namespace cuco {

// Sets opts->launcher and opts->slurm; for Slurm, checks the tools and `run_dir`.
Status ChooseLauncher(const std::string& flag, const std::string& configured, const SlurmOptions& slurm,
                      const std::filesystem::path& run_dir, CascadeOptions* opts);

}  // namespace cuco
