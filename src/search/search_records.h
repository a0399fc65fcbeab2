// SearchRecords: a search's memory (every candidate: Population; where it stands: SearchState)
// and the store that persists both, kept consistent under one mutex. A new candidate is inserted
// together with the state (its cursor moved past the slot) in one store transaction, so a killed
// search loses nothing and repeats nothing; an evaluation updates its row when it completes.
//
// The evaluation workers and the search's thread share it: `mu` guards state, pop and
// store_error, and the *Locked methods expect the caller to hold it. Open() runs before any
// worker starts.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "evaluate/outcome.h"
#include "search/evolution.h"
#include "search/population.h"
#include "search/search_state.h"
#include "store/candidate_store.h"
#include "util/status.h"

namespace cuco {

class SearchRecords {
 public:
  SearchRecords(CandidateStore* store, std::string run_id, int shingle_tokens)
      : store(store), run_id(std::move(run_id)), pop(shingle_tokens) {}

  // A new search (an empty store: the state is written with `per_generation` and the workload
  // folder recorded): false; a resumed one (the state and every candidate read back): true.
  Result<bool> Open(int per_generation, const std::string& workload_dir);

  // The candidates to evaluate again, now marked pending: those a killed session left pending,
  // and (with timings available) those skipped for want of a GPU. Locks.
  std::vector<int64_t> MarkUnfinishedPending(bool timings_available);

  // Wall time of every session so far.
  double WallS() const;
  double SessionMinutes() const;

  Status SaveLocked();
  Status AdvanceCursor(int next_slot);  // locks
  // Stores `c` (hash, times, run id and JSON filled in) and moves the cursor to `cursor_after`,
  // in one transaction; returns its id.
  Result<int64_t> InsertLocked(SearchCandidate c, int cursor_after);
  // Records an evaluation (status, time, speed-up, reason, feedback, logs); a store error is
  // kept in store_error.
  void CompleteLocked(int64_t id, const EvalRecord& er);
  // An IOError naming the first failed update, if any.
  Status StoreErrorLocked() const { return store_error.empty() ? Status::Ok() : Status::IOError(store_error); }
  // The population's part of progress lines and of the result.
  void FillLocked(SearchProgress* p) const;
  void FillLocked(SearchResult* r) const;

  CandidateStore* const store;
  const std::string run_id;
  std::mutex mu;
  SearchState state;
  Population pop;
  std::string store_error;  // the first failed update
  int lineage = 1;          // run_binding.h: evaluations record it from lineage 2 on (search.lineage)

 private:
  std::chrono::steady_clock::time_point session_start_ = std::chrono::steady_clock::now();
};

}  // namespace cuco
