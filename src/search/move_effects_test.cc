#include "search/move_effects.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

SearchCandidate Cand(int64_t id, int64_t parent, double ms, const std::string& strategy, const std::string& backend,
                     int generation = 1, const std::string& status = "ok") {
  SearchCandidate c;
  c.rec.id = id;
  c.rec.parent_id = parent;
  c.rec.generation = generation;
  c.rec.status = status;
  c.rec.time_ms = status == "ok" ? ms : -1;
  c.knobs = {{"strategy", strategy}, {"backend", backend}};
  return c;
}

// MoE at W=2 (2x H200, 2026-11-29): from generation 0 (chunked, lsa) the strategy move and the
// backend move each helped alone; both are reported, largest gain first, with what they set only.
TEST(MoveEffects, EachMeasuredMoveWithItsGainLargestFirst) {
  Population pop(4);
  pop.all()[1] = Cand(1, 0, 6.08, "chunked", "lsa", 0);
  pop.all()[2] = Cand(2, 1, 5.78, "interleaved", "lsa");   // 1.05x
  pop.all()[3] = Cand(3, 1, 5.60, "chunked", "ce");        // 1.09x
  pop.all()[4] = Cand(4, 1, 6.10, "chunked", "nccl");      // slower: not a move that helped
  const auto moves = ImprovingMoves(pop, 2);
  ASSERT_EQ(moves.size(), 2u);
  EXPECT_EQ(moves[0].set, (std::map<std::string, std::string>{{"backend", "ce"}}));
  EXPECT_NEAR(moves[0].gain, 6.08 / 5.60, 1e-9);
  EXPECT_EQ(moves[0].children, std::vector<int64_t>{3});
  EXPECT_EQ(moves[1].set, (std::map<std::string, std::string>{{"strategy", "interleaved"}}));
  // A generation not yet closed is not counted.
  EXPECT_TRUE(ImprovingMoves(pop, 1).empty());
}

// The same move seen twice is pooled by the geometric mean: one lucky pair does not carry it.
TEST(MoveEffects, RepeatedMovesArePooledAndNoiseIsNotAGain) {
  Population pop(4);
  pop.all()[1] = Cand(1, 0, 2.0, "chunked", "lsa", 0);
  pop.all()[2] = Cand(2, 0, 2.0, "interleaved", "lsa", 0);
  pop.all()[3] = Cand(3, 1, 1.6, "chunked", "ce");       // 1.25x
  pop.all()[4] = Cand(4, 2, 2.5, "interleaved", "ce");   // 0.80x: the same move, the other way
  pop.all()[5] = Cand(5, 1, 1.99, "local_first", "lsa");  // 1.005x: within noise
  EXPECT_TRUE(ImprovingMoves(pop, 2).empty());
  EXPECT_EQ(ImprovingMoves(pop, 2, 0.5).size(), 2u);
  const auto both = ImprovingMoves(pop, 2, 0.5);
  EXPECT_EQ(both[0].set, (std::map<std::string, std::string>{{"strategy", "local_first"}}));
  EXPECT_EQ(both[1].observations, 2);
  EXPECT_NEAR(both[1].gain, 1.0, 1e-9);
}

// Failures, parents without knob marks (the seed) and children with the parent's knobs are no
// observation of a knob move.
TEST(MoveEffects, OnlyPassingPairsOfMarkedCandidatesThatDifferInKnobs) {
  Population pop(4);
  SearchCandidate seed = Cand(1, 0, 3.0, "", "", 0);
  seed.knobs.clear();
  pop.all()[1] = seed;
  pop.all()[2] = Cand(2, 1, 2.0, "chunked", "lsa", 0);
  pop.all()[3] = Cand(3, 2, 1.0, "chunked", "ce", 1, "wrong_result");
  pop.all()[4] = Cand(4, 2, 1.0, "chunked", "lsa");
  EXPECT_TRUE(ImprovingMoves(pop, 2).empty());
}

}  // namespace
}  // namespace cuco
