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
// For a stage that ran past its time limit: the last line a program's reference wrote in the
// supervisor's log (rank 0's log of `job`; "cuco reference: ...", its waits said every 20 s:
// cuco/program/impl/reference_engine.h), as "the reference said last: ...", or "" when none.
std::string ReferenceLastWords(const JobOutcome& job);
// The same from the log's text.
std::string ReferenceLastWordsIn(const std::string& log_text);

}  // namespace cuco
