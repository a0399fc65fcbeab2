// Population: every candidate of one search, in memory, by id; with the index of every stored
// code (exact repeats are never stored twice) and the novelty index of the evaluated ones. The
// one place that counts candidates and names the best.
//
// "Counted" candidates are those the budget counts: all but the ones the novelty filter skipped.
// The best is the fastest passing candidate (ties: the older id). Not thread-safe: the search
// guards it with its own mutex.
#pragma once

#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "search/novelty.h"
#include "search/search_candidate.h"
#include "store/candidate_store.h"
#include "util/status.h"

namespace cuco {

// What the population holds, counted once (progress lines and the search's result).
struct PopulationTally {
  int64_t counted = 0;
  int64_t not_evaluated = 0;
  std::map<std::string, int64_t> by_status;  // counted candidates, by status
  std::map<std::string, int64_t> failures;   // failed ones (not ok, not skipped, not pending), by status
  int64_t best_id = 0;
  double best_ms = -1;
};

class Population {
 public:
  explicit Population(int shingle_tokens) : novelty_(shingle_tokens) {}

  // Reads every candidate the store holds (a resumed search).
  Status Load(CandidateStore& store);
  // Adds a stored candidate (rec.id set): its code becomes known, and unless it was skipped by
  // the novelty filter, comparable for novelty.
  Status Add(SearchCandidate c);

  bool Knows(const std::string& code_hash) const { return hashes_.count(code_hash) > 0; }
  const SearchCandidate& at(int64_t id) const { return cands_.at(id); }
  SearchCandidate& at(int64_t id) { return cands_.at(id); }
  const SearchCandidate* Find(int64_t id) const;
  const std::map<int64_t, SearchCandidate>& all() const { return cands_; }
  std::map<int64_t, SearchCandidate>& all() { return cands_; }
  NoveltyIndex& novelty() { return novelty_; }
  const NoveltyIndex& novelty() const { return novelty_; }

  // Counted candidates of generations below `below_generation`.
  int64_t Counted(int below_generation = INT_MAX) const;
  // Counted candidates per generation.
  std::map<int, int64_t> CountedPerGeneration() const;
  PopulationTally Tally() const;
  // The best passing candidate's median's upper 95% bound (its time where the record has no
  // interval); 0 when none has passed.
  double BestIntervalHiMs() const;
  // Passing candidates that beat their passing parent.
  bool Improved(const SearchCandidate& c) const;
  // The evaluator's account of `c` for the store and later proposals: its time, speed-up over
  // the reference and over its parent, or its status and reason; and what changed.
  std::string FeedbackText(const SearchCandidate& c, double reference_ms) const;

 private:
  std::map<int64_t, SearchCandidate> cands_;
  std::set<std::string> hashes_;
  NoveltyIndex novelty_;
};

}  // namespace cuco
