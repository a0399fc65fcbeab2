// What a failed stage's logs say, for its record's feedback: the last lines of a text, of each
// rank's log of a launcher job, and of the candidate ranks' own logs that the supervisor writes
// beside its own (<logs>/candidate-rank<R>.log). Unreadable or empty logs are left out.
#pragma once

#include <filesystem>
#include <string>

#include "launch/launcher.h"

namespace cuco {

// The last `n` lines of `text` (all of it when it has fewer).
std::string LastLines(const std::string& text, int n);
// "--- rank R (path) ---" and the last `lines` lines of each rank's log of `job`.
std::string RankLogsTail(const JobOutcome& job, int lines);
// "--- candidate rank R (path) ---" and the last `lines` lines of each candidate-rank<R>.log.
std::string CandidateLogsTail(const std::filesystem::path& logs, int world, int lines);

}  // namespace cuco
