// "Did you mean" for the command line: an unknown command or an unknown flag of a known command
// gets the closest names (util/text.h ClosestNames), e.g. "cuco: unknown command 'evolv'; did you
// mean 'evolve'?". main() prints the message and exits kExitUsage. (Workload folders that do not
// exist get theirs from LoadWorkload.)
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace cuco {

// The message for argv's command when `app` has no such subcommand, else "".
std::string UnknownCommandMessage(CLI::App& app, int argc, char** argv);

// The message for the first flag ("--name" or "--name=value") of argv's command that the command
// does not declare, else "". Arguments after a lone "--" are not flags.
std::string UnknownFlagMessage(CLI::App& app, int argc, char** argv);

}  // namespace cuco
