// `cuco eval`'s work as a library: candidates evaluated through the cascade, `jobs` at a time, each
// one stored in the run's SQLite store: inserted as pending before its evaluation (its id names
// its folder, <run_dir>/candidates/<id>), updated with its record after. The command parses its
// options, calls EvaluateAndStore and prints the records.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "evaluate/cascade.h"
#include "store/candidate_store.h"

namespace cuco {

struct EvalCandidate {
  std::string label;  // where its code came from (a file path), the store's feedback
  std::string code;
};

struct EvaluatedCandidate {
  EvalRecord record;
  int64_t store_id = 0;  // 0: the store refused it (the record is still the evaluation's)
  std::string note;      // printed beside the record: what its failure means (seed_disagreement.h), or ""
};

// One result per candidate, in the candidates' order. `mutation_kind`: what the store calls them
// ("seed" or "manual"; their proposer is "manual"); the run's id is run_dir's name.
std::vector<EvaluatedCandidate> EvaluateAndStore(Cascade& cascade, CandidateStore& store,
                                                 const std::filesystem::path& run_dir,
                                                 const std::vector<EvalCandidate>& candidates,
                                                 const std::string& mutation_kind, int jobs);

}  // namespace cuco
