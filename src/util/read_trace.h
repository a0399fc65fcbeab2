// What a command reads or detects that it should read or detect once (issue 31: read once, decide
// once): each call of NoteRead counts one read of `what` (a kind: "toolchain", "workload.toml")
// of `subject` (a path; "" for a kind with one subject), process-wide. With CUCO_TRACE=reads in
// the environment each is also printed to stderr, "cuco trace: <what> <subject>", which is how the
// end-to-end tests check a whole command (tests/cli_test.sh); ReadCount is how unit tests do.
// Thread-safe.
#pragma once

#include <string>

namespace cuco {

void NoteRead(const std::string& what, const std::string& subject = "");
// How many times `what` of `subject` was noted in this process (since ResetReadCounts).
int ReadCount(const std::string& what, const std::string& subject = "");
void ResetReadCounts();

}  // namespace cuco
