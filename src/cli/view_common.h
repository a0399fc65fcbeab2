// What the run viewers (show, diff, best, export, ls, report, serve) share: the error line and
// exit code of a failing Status, and a run loaded by its directory.
#pragma once

#include <string>

#include "report/run_data.h"
#include "util/status.h"

namespace cuco {

// Prints "cuco <command>: <message>" to stderr and returns ExitCodeFor(s).
int ViewFail(const std::string& command, const Status& s);

}  // namespace cuco
