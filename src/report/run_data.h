// RunData: one search run as the viewers see it (`cuco report`, `serve`, `show`, `diff`, `best`,
// `export`, `ls`): its directory, every candidate in its store (by id, oldest first) and the
// run-level metadata the search wrote (workload folder, config text, search state, meta-summary).
//
// LoadRun only reads: a run directory without cuco.db is an error naming it (no store is
// created), and reading runs alongside a live `cuco evolve` (WAL: the writer is never blocked).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "store/candidate_store.h"
#include "util/status.h"

namespace cuco {

struct RunData {
  std::string dir;                            // as given
  std::string label;                          // the directory's last component
  std::map<std::string, std::string> meta;    // search.* keys present in the store
  std::map<int, std::string> summaries;       // the meta-summary each generation was proposed with
  std::vector<CandidateRecord> candidates;    // ascending id
  std::string workload_dir;                   // meta search.workload, may be empty
  std::string config_text;                    // the run's config.toml (or meta search.config)

  // The candidate with this id, or nullptr.
  const CandidateRecord* Find(int64_t id) const;
  // The seed (first candidate of generation 0), or nullptr.
  const CandidateRecord* Seed() const;
  // The fastest verified candidate (status ok, time_ms >= 0; ties to the older), or nullptr.
  const CandidateRecord* Best() const;
};

// The store of a run directory (or of a cuco.db path given directly). InvalidArgument naming the
// path when there is no store there.
Result<std::unique_ptr<CandidateStore>> OpenRunStore(const std::string& run_dir);

// Every candidate and the metadata. summary_only leaves code, diffs and logs empty.
Result<RunData> LoadRun(const std::string& run_dir, bool summary_only = false);

// Candidates with id > after_id (a live view's tail), full records.
Result<std::vector<CandidateRecord>> LoadCandidatesAfter(const std::string& run_dir, int64_t after_id);

// A candidate id from a command-line word: a positive integer, or "best" / "seed" resolved in
// `run`. InvalidArgument naming the word otherwise; NotFound when the run has no such candidate.
Result<int64_t> ResolveCandidateId(const RunData& run, const std::string& word);

}  // namespace cuco
