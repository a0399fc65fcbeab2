// `cuco run <program.cu> [more.cu...] [-- <compile command>]`'s first step: the user's program to a
// harness-mode workload folder. It is made by `cuco init`'s passes (scaffold.h), or reused when an
// earlier run made it from the same inputs (the program's files, flags and libraries: .cuco-inputs);
// after a change it is made again and the old folder kept beside it (<dir>-<old hash>), nothing lost.
// A folder of that name made from another program (two jacobi.cpp in two folders) is left alone and
// the workload goes to <dir>_<hash of the program's path>.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "analyze/compile_flags.h"
#include "toolchain/toolchain.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct ProgramWorkloadRequest {
  std::vector<std::string> files;  // the program's files, main's first
  CompileFlags flags;              // its compile flags (the command's -I/-D/--std/`-- <command>`)
  std::string dir;                 // the folder to write; empty: cuco-runs/<DefaultWorkloadName>
  std::string loop;                // `--loop FILE:LINE`, or ""
  std::string args;                // `--args "..."`: the arguments the program is run with, or ""
};

struct ProgramWorkload {
  std::string dir;                         // the harness-mode workload folder
  std::optional<WorkloadConfig> workload;  // its workload.toml as init loaded it; unset when reused
};

// The workload of `r`'s program. `say` gets what was decided, a line each as it happens (made,
// reused, moved aside, init's guesses; a line starting with two spaces continues the one before),
// for the command to print. InvalidArgument: the user's to act
// on, the message says how (a skeleton reused, a program no harness can be made of, its analysis
// failed, an old folder that cannot be moved aside); any other code is cuco's.
Result<ProgramWorkload> ProgramWorkloadFor(const ProgramWorkloadRequest& r, const Toolchain& tc,
                                           const std::function<void(const std::string&)>& say);

}  // namespace cuco
