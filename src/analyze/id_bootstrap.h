// How a program's ncclUniqueId reaches its other ranks, where the analysis can tell it does not:
// rank 0 makes the id with ncclGetUniqueId and hands it on only through setenv or putenv, which
// change that one process's environment (and that of processes it starts later), never another
// rank's. Its other ranks then call ncclCommInitRank with an id they never received.
#pragma once

#include <string>
#include <vector>

#include "analyze/frontend.h"

namespace cuco::analyze_internal {

// A warning for each id given by address to ncclGetUniqueId (`&id`, `&ctx.id`) whose only other
// uses in `calls` are setenv/putenv, a communicator's init, sizeof and prints: "FILE:LINE: ..." with
// the setenv's place (`files`: the analysed files, by RawCall::file_index). An id passed to any
// other call (MPI_Bcast, fwrite, send, memcpy, a helper of the program) is taken as handed on.
std::vector<std::string> IdOnlyInOwnEnvironment(const std::vector<RawCall>& calls, const std::vector<std::string>& files);

}  // namespace cuco::analyze_internal
