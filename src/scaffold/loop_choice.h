// Which code of the function holding it becomes the harness's iteration (cuco init; FindTimedLoop in
// main_rewrite.h puts these together). On the function's tokens (tokens.h):
//   CommLoops      every outermost loop of the function that reaches the communication, with the
//                  `if` branches it sits in (a loop inside a loop is its outer loop's; whether
//                  such a branch runs is program_defaults.h's BranchTruth);
//   GroupAround    the ncclGroupStart ... ncclGroupEnd statements around a loop (its per-peer or
//                  per-GPU loop is one grouped operation, never an iteration);
//   PerGpuLoop     a loop over the program's GPUs (one process driving every GPU): each pass is one
//                  GPU's part, so the whole loop is what every rank runs;
//   CommRegion     when no loop reaches the communication: the statements of the function's body
//                  from the first to the last that does.
// Contract: pure functions of their arguments; token indices are into the vector given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scaffold/program_defaults.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

// One `if` a loop sits in: the tokens of its condition, and which branch the loop is in.
struct Branch {
  size_t open = 0, close = 0;  // the `(` and `)` around the condition
  bool then = true;            // in the `if` branch (else: the `else` branch)
};

struct CommLoop {
  size_t first = 0, last = 0;  // the loop statement's first and last tokens
  int line = 0;
  std::vector<Branch> branches;  // outermost first
};

// The `if` branches that begin in tokens [from, to) and hold tokens [first, last], outermost first.
std::vector<Branch> BranchesHolding(const std::vector<Tok>& t, size_t from, size_t to, size_t first, size_t last);

std::vector<CommLoop> CommLoops(const std::vector<Tok>& t, size_t body_open, size_t body_close,
                                const std::set<std::string>& names);

// The first and last tokens of the statements `ncclGroupStart` ... `ncclGroupEnd` in the block
// holding tokens [first, last], when a group started before them ends after them; nullopt when not.
std::optional<std::pair<size_t, size_t>> GroupAround(const std::vector<Tok>& t, size_t block_open, size_t first, size_t last);

// A `for` over `var = 0 .. < gpu_count` (or indexing per-GPU `comms[var]`): one GPU per pass.
bool PerGpuLoop(const std::vector<Tok>& t, size_t loop, const std::string& gpu_count);

// The first and last tokens of the statements of the block [open, close] from the first to the last
// that calls one of `names`; nullopt when none does.
std::optional<std::pair<size_t, size_t>> CommRegion(const std::vector<Tok>& t, size_t open, size_t close,
                                                    const std::set<std::string>& names);

}  // namespace cuco::scaffold_internal
