// Two loops that reach the communication, one in each branch of an `if` each rank decides for
// itself (`if (rank == 0) { for (c...) send(...); } else { for (c...) recv(...); }`: a producer and
// its consumers, a ping and its pong). The harness serves one loop every rank runs; these two are
// one when each branch holds nothing but its loop and the loops' headers are alike: cuco init then
// serves `for (header) { if (cond) <then-body> else <else-body> }`, the same passes on every rank.
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
  size_t if_token = 0, last = 0;          // the `if` statement's first and last tokens
  size_t then_loop = 0, else_loop = 0;    // the first token (`for` / `while`) of each branch's loop
  size_t then_last = 0, else_last = 0;    // and their last tokens
  std::string cond;                       // the condition's text, as written
};

// `branch` is the `if` both loops sit in (`x` in one of its branches, `y` in the other). nullopt,
// with the reason in *why, when they cannot be served as one loop: a branch holds more than its
// loop, an `else if`, headers that differ.
std::optional<RankSplit> AsRankSplit(const std::string& text, const std::vector<Tok>& t, const Branch& branch,
                                     const CommLoop& x, const CommLoop& y, std::string* why);

}  // namespace cuco::scaffold_internal
