// cuco init's choice of the iteration in a function's body (FindTimedLoop's, main_rewrite.h): among
// the loops reaching the communication, the one the harness serves and what of it (a loop a pass at
// a time, a group or a loop over the GPUs run whole, the stages of one computation, a lambda handed
// to the program's timing helper, or the statements reaching the communication when no loop does),
// following the program's clocks through sweeps, with every decision in the search's trace.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scaffold/main_rewrite.h"
#include "scaffold/rank_split_loops.h"
#include "scaffold/tokens.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

// A host clock: the program's own timing, which the harness does itself (and the deny list keeps
// out of EVOLVE blocks).
bool HostClock(const Tok& t);

// The device or communication work a statement does: a CUDA/library/NCCL/MPI call or a launch.
bool DoesWork(const std::vector<Tok>& t, size_t from, size_t to);

// What the harness serves: a loop (one iteration per pass) or statements run whole (`region`).
struct Chosen {
  size_t first = 0, last = 0;
  int sweep_line = 0;
  std::vector<std::string> earlier_other;  // TimedLoop::earlier_other
  bool region = false;
  std::string what;
  std::optional<RankSplit> split;  // two loops, one per branch of a per-rank `if`, served as one
};

// The iteration in the function whose body is tokens [body_open, body_close] of `t` (`text` of
// `file`, the function `loop_function` defined at line fn_line), the names reaching the
// communication `names`: kInvalidArgument naming the line when loops cannot be told apart or none
// runs by default, kNotFound (the function's line) when nothing reaches the communication and no
// region is allowed (LoopSearch::allow_region).
Result<Chosen> ChooseIteration(const std::string& file, const std::string& text, const std::vector<Tok>& t, size_t body_open,
                               size_t body_close, const std::set<std::string>& names, const std::string& loop_function,
                               const LoopSearch& search, int fn_line);

}  // namespace cuco::scaffold_internal
