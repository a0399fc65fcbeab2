// The program's compile flags on the command line of `analyze`, `init` and `run`: -I DIR, -D NAME[=V],
// --std X, --compile-commands FILE, and `-- <your compile command>` (analyze/compile_flags.h says
// which flags are kept). Registered once here so the three commands spell them alike.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analyze/compile_flags.h"
#include "util/status.h"

namespace cuco {

struct ProgramFlagOptions {
  std::vector<std::string> include_dirs, defines;
  std::string std;
  std::string compile_commands;
  std::vector<std::string> command;  // a compile command; empty: the words after `--` (TakeTrailingCompileCommand)
};

// Adds the options to `cmd`; the words after `--` come from TakeTrailingCompileCommand.
std::shared_ptr<ProgramFlagOptions> AddProgramFlagOptions(CLI::App* cmd);

// For `cuco analyze|init|run ... -- <compile command>`: removes `--` and the words after it from
// argv (before CLI11 parses, which would take them as more program files) and keeps them for
// AddProgramFlagOptions' options. Other commands' argv is left alone.
void TakeTrailingCompileCommand(int* argc, char** argv);

// The flags for `program`, merged from the options; errors name the compile_commands.json.
Result<CompileFlags> ResolveProgramFlags(const ProgramFlagOptions& o, const std::string& program);

// The compile command's sources that `files` (the program's, as given) lacks, appended to it, each
// spelled relative to the current folder where it lies under it: a program built as `nvcc main.cu
// ring.cu` is both files though only main.cu was named. A source that does not exist is left out.
// What to say ("the compile command's other sources are the program's too: ring.cu"), "" when none.
std::string AddCommandSources(const CompileFlags& flags, std::vector<std::string>* files);

}  // namespace cuco
