// Generation 0: where every search starts. The workload's generation0 file is slot 0; the seed,
// when it differs, is slot 1 (with the same text, slot 0 is the seed itself). Both are proposed
// by "workload" with mutation kind "seed" and evaluated like any candidate. The speed-up
// reference is the seed's time; the generation0 file's when the seed has none; none when
// neither passed. Once it is known, generation 0's speed-ups and feedback are rewritten against it.
#pragma once

#include <string>
#include <vector>

#include "search/population.h"
#include "store/candidate_store.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

// The candidates of generation 0, by slot (not yet stored).
std::vector<SearchCandidate> Generation0Candidates(const WorkloadConfig& wl, const std::string& seed_code,
                                                   const std::string& gen0_code);
// The reference candidate, or nullptr.
const SearchCandidate* Generation0Reference(const Population& pop);
// Rewrites every evaluated generation-0 candidate's speed-up and feedback against
// `reference_ms`, in `pop` and in `store`.
Status RescoreGeneration0(Population& pop, double reference_ms, CandidateStore& store);

}  // namespace cuco
