// Running external programs for toolchain detection. Internal to src/toolchain/.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace cuco::toolchain_internal {

struct CommandOutput {
  int exit_code = -1;  // the program's exit status; 124 when it ran past the time limit, -1 when it could not start
  std::string output;  // stdout and stderr together
};

// The absolute path of `name` (or of `name` itself when it contains a '/') if it is an executable
// file, found through PATH; "" when there is none.
std::string FindProgram(const std::string& name);

// Runs argv[0] with the given arguments under a wall-clock limit, stdin from /dev/null, stderr
// merged into stdout. Prints nothing. argv[0] should come from FindProgram(), so that a missing
// program is never started.
CommandOutput RunCommand(const std::vector<std::string>& argv, int timeout_s = 10);

// The first line of `text` that is not blank, trimmed.
std::string FirstLine(const std::string& text);

// The environment variable's value; "" when unset.
std::string Getenv(const char* name);

// True when `p` is a regular file (following symlinks); no error for a missing one.
bool IsFile(const std::filesystem::path& p);

}  // namespace cuco::toolchain_internal
