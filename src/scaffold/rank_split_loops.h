// Loops that reach the communication, one in each branch of an `if` each rank decides for itself
// (`if (rank == 0) { for (c...) send(...); } else { for (c...) recv(...); }`: a producer and its
// consumers; `if (rank == 0) for (...) {ping} else if (rank == 1) for (...) {pong}`). The harness
// serves one loop every rank runs; these are one when every branch of the chain holds one loop
// (with statements before and after it that are no loops), the loops' headers are alike, and no loop
// sets what a condition reads: cuco init then serves `for (header) { if (c1) <body 1> else if (c2)
// <body 2> else <body 3> }`, the same passes on every rank (a rank no branch takes runs empty
// passes). A branch's statements before its loop run before the serve call, in an `if` of the same
// conditions (the set-up of that rank: filling what it sends), their declarations the loop uses
// declared in front of it (region_hoist.h); those after its loop are never reached in the harness,
// as after any served loop.
// Contract: a pure function of the tokens (tokens.h); indices are into the vector given.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "scaffold/loop_choice.h"
#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

struct RankSplit {
  struct Arm {
    std::string cond;       // the branch's condition as written; "" for the last `else`
    size_t loop = 0, last = 0;  // the branch's loop: its first (`for` / `while`) and last tokens
    std::string before;     // its statements before the loop, their hoisted declarations left as assignments
  };
  size_t if_token = 0, last = 0;  // the whole `if` statement's first and last tokens
  std::vector<Arm> arms;          // in the order they stand, at least two
  std::string declarations;       // the arms' declarations before their loops that the loops use
};

// What runs before the serve call: the declarations, then `if (c1) { <before 1> } else ...` ("" when
// no branch has statements before its loop).
std::string BranchingPrologue(const RankSplit& split);

// `branch` is the `if` that loops `x` and `y` sit in, in different branches. nullopt, with the
// reason in *why, when they cannot be served as one loop: a branch holding another loop, or
// declaring before its loop what the loop uses in a way that cannot move (`auto`, `const`, two
// branches declaring one name twice), headers that differ, a loop that sets what a condition reads.
std::optional<RankSplit> AsRankSplit(const std::string& text, const std::vector<Tok>& t, const Branch& branch,
                                     const CommLoop& x, const CommLoop& y, std::string* why);

// What a split's arms become in the served body: `if (c1) <body 1> else if (c2) <body 2> ...`, given
// each arm's loop body as held for serving (main_rewrite.cc's HoldLoopVariable), in arm order.
std::string BranchingBody(const RankSplit& split, const std::vector<std::string>& bodies);

}  // namespace cuco::scaffold_internal
