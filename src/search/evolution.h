// Evolution: the slow path's search loop (docs/search.md).
//
// Generational and synchronous: generation 0 is the workload's generation0 file (and the seed,
// when it differs: the seed's time is the speed-up reference). Each later generation proposes
// `per_generation` candidates, slot by slot (slot s works for island s % islands), every one
// from the state at the start of the generation (candidates of earlier generations only),
// evaluating each as soon as it is proposed on a pool of workers; the generation ends when
// all are evaluated, and every `interval` generations the islands exchange migrants.
//
// Every random choice is drawn from DeriveSeed(seed + island * seed_offset, generation, slot,
// attempt), so the same config, seed and evaluation outcomes give the same candidates in the
// same order, whatever the parallelism, and a resumed run continues exactly where the killed
// one stopped: the store holds every candidate and a cursor ("search.state": generation and
// next slot) written in the same transaction as each new candidate. Candidates stored as
// "pending" (in flight when killed) are evaluated again under their id; slots not yet stored
// are proposed again (the proposal is the same: same state, same seed).
//
// Not thread-safe itself; Run() uses worker threads internally. Proposer calls are made from
// the thread that calls Run().
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "evaluate/outcome.h"
#include "propose/proposer.h"
#include "search/run_config.h"
#include "store/candidate_store.h"
#include "workload/workload_config.h"

namespace cuco {

// Evaluates one candidate file; must be thread-safe (Cascade::Evaluate is). `label` is the path
// where the candidate's code was written; `work_dir` is run_dir/candidates/<id>; `best_hi_ms` the
// search's best so far, the upper end of its median's interval (0: none; EvaluateOptions::
// retime_unless_above_ms: an imprecise bench wholly above it is not timed again).
using EvaluateFn = std::function<EvalRecord(const std::string& code, const std::string& label,
                                            const std::filesystem::path& work_dir, double best_hi_ms)>;

struct SearchProgress {
  int generation = 0;
  std::string phase;
  int64_t candidates = 0;      // evaluated or being evaluated (all sessions)
  int in_flight = 0;
  int64_t session_done = 0;    // evaluations finished in this session
  double session_minutes = 0;
  double wall_s = 0;           // elapsed, all sessions
  double eta_s = -1;           // until the first budget limit binds (budget.h); < 0: no estimate
  std::string eta_limit;       // which limit that is
  int64_t best_id = 0;
  double best_ms = -1;
  double best_speedup = 0;     // over the seed
  std::map<std::string, int64_t> failures;  // status -> count (all sessions)
  double dollars = 0;
};

struct SearchOptions {
  std::filesystem::path run_dir;     // candidates/<id>/ go here
  std::string code_extension = ".cu";
  int evaluations = 1;               // in flight at once (resolved: >= 1)
  int carry_over = 0;                // evaluations of a generation that may still run while the next is proposed
                                     // (0: wait for all; [parallelism] overlap_generations sets the GPU groups)
  bool timings_available = true;     // false: CUDA without a GPU; generation 0 is compiled only and the search stops
  std::string hardware, comm_api;    // facts for the proposer
  std::function<void(const SearchProgress&)> on_progress;  // called on the Run() thread
  const std::atomic<bool>* interrupt = nullptr;            // set: propose no more, finish in-flight, stop
  // Set (after `interrupt`): the evaluations in flight were killed. Their results are not stored
  // and those not started are not run: they stay pending, and a resumed search evaluates them.
  const std::atomic<bool>* abort = nullptr;
  // The run binding (run_binding.h): a resumed search whose workload or config changed is refused,
  // unless accept_changes (a new lineage). config_text / config_path: the run's config.toml as
  // read, when there is one (a resumed run refuses an empty one).
  bool accept_changes = false;
  std::string config_text, config_path;
};

struct SearchResult {
  std::string stop_reason;
  bool generation0_failed = false;   // nothing passed in generation 0: the search could not start
  bool compiled_only = false;        // no timings here (no GPU)
  int64_t best_id = 0;
  double best_ms = -1;
  double best_speedup = 0;
  int64_t reference_id = 0;
  double reference_ms = -1;
  bool reference_is_seed = true;     // false: the seed failed and the generation0 file is the reference
  int generations = 0;               // the last generation worked on
  int64_t candidates = 0;            // evaluated (all sessions)
  int64_t not_evaluated = 0;         // stored but skipped by the novelty filter
  int64_t duplicates = 0;            // exact repeats dropped (this session)
  int64_t reevaluated = 0;           // pending candidates of a killed session evaluated again
  int64_t aborted = 0;               // evaluations aborted (SearchOptions::abort): left pending
  int64_t interrupted = 0;           // evaluations an interrupt cut short (EvalRecord::interrupted): stored pending
  int lineage = 1;                   // run_binding.h: the lineage this session judged in
  std::vector<std::string> lineage_changes;  // what changed, when this session began a new lineage
  std::map<std::string, int64_t> by_status;
  double dollars = 0;
  bool resumed = false;
};

class Evolution {
 public:
  // `store` must stay open for the search; `proposer` is only called from Run()'s thread.
  Evolution(const WorkloadConfig& workload, RunConfig config, CandidateStore* store, Proposer* proposer,
            EvaluateFn evaluate, SearchOptions options);
  ~Evolution();
  // Starts a new search in an empty store, or resumes the one the store holds.
  Result<SearchResult> Run();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Meta keys the search writes.
inline constexpr const char* kMetaState = "search.state";            // JSON cursor and island state
inline constexpr const char* kMetaSummary = "search.meta_summary";   // the latest meta-summary text
inline constexpr const char* kMetaWorkload = "search.workload";      // the workload folder
inline constexpr const char* kMetaConfig = "search.config";          // the run config text
inline constexpr const char* kMetaProvenance = "search.provenance";  // the latest session: time, host, command, git, toolchain (JSON)
// The meta-summary each generation was proposed with: "search.meta_summary.g<N>".
inline constexpr const char* kMetaSummaryOfGeneration = "search.meta_summary.g";

}  // namespace cuco
