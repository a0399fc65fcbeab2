// The exit codes of every cuco subcommand, and the one for a failing Status. Scripts and CI read
// them: 0 done, 1 a candidate failed (its record says why), 2 bad command line or input file, 3 a
// missing tool, 4 a cuco bug or an I/O failure, 5 a search stopped by Ctrl-C (in-flight
// evaluations finished and stored), 6 a search aborted by a second Ctrl-C (in-flight evaluations
// killed, left for --resume). Commands reach this through commands.h.
#pragma once

#include "util/status.h"

namespace cuco {

enum ExitCode {
  kExitOk = 0,               // done; every candidate passed (or could only be compiled here: no GPU)
  kExitCandidateFailed = 1,  // a candidate was evaluated and failed (its record says why)
  kExitUsage = 2,            // bad command line or bad input file (the message names file and line)
  kExitEnvironment = 3,      // a needed tool is missing (run `cuco doctor`)
  kExitInternal = 4,         // a cuco bug or an I/O failure
  kExitStopped = 5,          // evolve/run: Ctrl-C (or SIGTERM); in-flight evaluations finished and stored
  kExitAborted = 6,          // evolve/run: a second Ctrl-C; in-flight evaluations killed, pending for --resume
};

// The exit code for a failing Status: bad input (kInvalidArgument, kNotFound) -> kExitUsage, a
// missing tool (kUnavailable) -> kExitEnvironment, anything else -> kExitInternal.
int ExitCodeFor(const Status& s);

}  // namespace cuco
