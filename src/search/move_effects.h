// Move effects: what each knob move did where the search has measured it. A passing candidate
// whose passing parent has knob marks is one observation of the move from the parent's knob
// values to its own (only the knobs that differ). Observations of the same move are pooled by
// their geometric mean. The builtin proposer composes the moves that helped (builtin_proposer.h).
#pragma once

#include <vector>

#include "propose/proposer.h"
#include "search/population.h"

namespace cuco {

// A move counts as improving from this gain on: below it, the difference is within what two
// evaluations of one code differ by (a few tenths of a percent to 1%, bench/results).
inline constexpr double kMoveGainFloor = 1.02;

// The moves of candidates of generations below `below_generation` whose pooled gain is at least
// `min_gain`, largest gain first (ties: the move seen first, by its first child's id).
std::vector<KnobMove> ImprovingMoves(const Population& pop, int below_generation, double min_gain = kMoveGainFloor);

}  // namespace cuco
