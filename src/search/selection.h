// Parent selection: which of an island's passing candidates the next proposal starts from.
// Failures are never parents: callers pass only candidates with status ok and a time.
//
//  - power_law: rank the pool by time (fastest = rank 1); p(rank r) ~ r^-exploitation
//    (0 = uniform; larger = greedier).
//  - fitness_weighted (ShinkaEvolve's weighted sampling): fitness = 1/time; each candidate
//    weighs sigmoid(lambda * (f - median f) / spread) / (1 + children), so strong candidates
//    are favoured and those already expanded many times are less so.
//  - beam: uniform among the `beam_width` fastest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/rng.h"

namespace cuco {

struct Scored {
  int64_t id = 0;
  double time_ms = 0;  // > 0
  int children = 0;    // proposals already made from it
};

struct SelectionParams {
  std::string kind = "power_law";
  double exploitation = 1.0;
  double lambda = 10.0;
  int beam_width = 4;
};

// The pool ordered fastest first (ties: older id first).
std::vector<Scored> RankByTime(std::vector<Scored> pool);
// The selection probabilities of a ranked pool (sum 1), for tests and reports.
std::vector<double> SelectionWeights(const std::vector<Scored>& ranked, const SelectionParams& p);
// The id of the chosen parent; 0 when the pool is empty.
int64_t SelectParent(const std::vector<Scored>& pool, const SelectionParams& p, Rng& rng);

}  // namespace cuco
