// `cuco run <program.cu> [more.cu...] [-- <compile command>]`: the user's program to a workload
// folder (cuco init, or the folder an earlier run made), saying each step. Returns the harness-mode
// workload to search, or an exit code: a program init cannot make a harness of is refused (exit 2)
// naming why and the program-mode workload that runs it as it is.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cli/program_flags.h"
#include "workload/workload_config.h"

namespace cuco {

// Whether `target` names a program's file rather than a workload folder.
bool IsProgramFile(const std::string& target);

struct ProgramWorkload {
  std::string dir;                         // the harness-mode workload folder
  std::optional<WorkloadConfig> workload;  // its workload.toml as init loaded it; unset when reused
};

// dir: the workload folder to write (empty: cuco-runs/<program's name>); loop: `--loop FILE:LINE` or "";
// tc: the command's toolchain (its include folders for the analysis).
std::variant<ProgramWorkload, int> WorkloadOfProgram(const std::vector<std::string>& files, const ProgramFlagOptions& flags,
                                                     const std::string& dir, const std::string& loop, const Toolchain& tc);

}  // namespace cuco
