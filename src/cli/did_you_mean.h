// The messages for a command line cuco refuses. "Did you mean": an unknown command or an unknown
// flag of a known command gets the closest names (util/text.h ClosestNames), e.g. "cuco: unknown
// command 'evolv'; did you mean 'evolve'?"; any other refusal is CLI11's message under the
// command's name. main() prints the message and exits kExitUsage. (Workload folders that do not
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

// CLI11's own message for a command line it refused (`error`: a missing argument, a value out of
// range...), said the way cuco says everything: "cuco <command>: <what> (`cuco <command> --help`
// lists its arguments)", "cuco: ..." when no command was named.
std::string ParseErrorMessage(CLI::App& app, int argc, char** argv, const CLI::ParseError& error);

}  // namespace cuco
