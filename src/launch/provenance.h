// Where and from what a command ran: the time, the host, the command line and cuco's git commit
// (`cuco bench`'s JSON and table head, a search session's provenance in its store).
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

namespace cuco {

// Now, as "2026-11-25T11:47:38Z".
std::string UtcNow();
std::string HostName();
// This process's command line, as given (argv joined; words with spaces quoted).
std::string CommandLine();
// {commit, dirty, source}: $CUCO_GIT_COMMIT (for a binary carried to a machine without the
// checkout), else `git rev-parse HEAD` in the source tree cuco was built from or the workload's;
// nulls when unknown.
nlohmann::json GitInfo(const std::filesystem::path& workload_dir);

}  // namespace cuco
