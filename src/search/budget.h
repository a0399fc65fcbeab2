// Budget: why a search must stop proposing now, or "" while it may go on; and when it will stop.
// Checked before every slot, in this order: an interrupt (the user's Ctrl-C; the run continues
// with --resume), then [budget] max_candidates (counted candidates: all but those the novelty
// filter skipped), max_dollars, max_wall_s (all sessions). A limit of 0 is no limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "search/run_config.h"

namespace cuco {

std::string BudgetReason(const RunConfig& cfg, const std::atomic<bool>* interrupt, int64_t counted, double dollars,
                         double wall_s);

// The [budget] key a stop reason says was spent ("budget: max_candidates (50) reached" ->
// "max_candidates", and so for max_generations, max_dollars and max_wall_s); "" for any other
// reason (an interrupt, the proposer running dry, generation 0 failing...).
std::string SpentBudgetKey(const std::string& stop_reason);

// Where a search stands against its budget, for the estimate below.
struct BudgetUse {
  int64_t counted = 0;        // counted candidates, all sessions
  double dollars = 0;         // spent, all sessions
  double wall_s = 0;          // elapsed, all sessions
  int generation = 0;         // the generation being worked on
  int slots_left = 0;         // proposals still to make in it
  int per_generation = 1;
  int64_t session_done = 0;   // evaluations finished in this session
  double session_s = 0;       // this session's wall time
};

// The time left until the first limit binds, from this session's rate: max_candidates and
// max_generations by candidates per second, max_dollars by dollars per second, max_wall_s by the
// clock. `seconds` < 0 when nothing can be estimated yet (no rate, or no limit).
struct BudgetEta {
  double seconds = -1;
  std::string limit;  // "max_candidates", "max_generations", "max_dollars" or "max_wall_s"
};
BudgetEta EstimateBudgetEta(const RunConfig& cfg, const BudgetUse& use);

}  // namespace cuco
