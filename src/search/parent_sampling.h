// Parent and inspiration sampling: what one proposal of generation G is shown.
//
// IslandPopulations: island i's passing candidates are its own, generation 0's and its
// immigrants'; in id order.
//
// GenerationPool is built once per generation from the candidates of earlier generations only
// (so every slot of a generation sees the same state, whatever finished meanwhile): the phase,
// the MAP-Elites archive of passing candidates, each island's population (its own, generation 0
// and its immigrants), every passing candidate, failures newest first, the meta-summary
// (refreshed every summary_interval generations) and the knob moves that sped their parent up.
//
// SampleInputs draws, in this order from the slot's Rng: the parent (SelectParent over the
// island's population with children counted so far; everyone's when the island has none), the
// mutation kind (crossover only when the archive holds two or more), the archive's elite picks,
// and for crossover the partners' shuffle. Inspirations are crossover partners first, then the
// top-k, then elites of other cells (no repeats); failures are the most recent, the island's own
// first. The same pool, population and Rng state give the same inputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "propose/proposer.h"
#include "search/archive.h"
#include "search/population.h"
#include "search/rng.h"
#include "search/run_config.h"
#include "search/search_state.h"
#include "search/selection.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct GenerationPool {
  std::string phase;
  Archive archive;
  std::string summary;
  std::vector<std::vector<Scored>> populations;  // per island: passing candidates (generation < G)
  std::vector<Scored> everyone;                  // every passing candidate
  std::vector<int64_t> failures_by_recency;      // failed candidates, newest first
  std::map<std::string, std::string> keep;       // knobs_to_keep.h: knob -> the only value proposed
  std::vector<KnobMove> moves;                   // move_effects.h: measured moves that helped, best first
};

GenerationPool BuildGenerationPool(const Population& pop, const SearchState& state, const RunConfig& cfg,
                                   const WorkloadConfig& wl, int generation);

// Passing candidates of generations below `below_generation`, per island.
std::vector<std::vector<Scored>> IslandPopulations(const Population& pop, const SearchState& state, int islands,
                                                   int below_generation);

struct SampledInputs {
  int64_t parent_id = 0;
  std::string mutation_kind;           // what the search asks for
  std::vector<int64_t> inspirations;   // ids, in the order shown
  std::vector<int64_t> failures;       // ids, in the order shown
};

Result<SampledInputs> SampleInputs(const Population& pop, const GenerationPool& pool, const RunConfig& cfg,
                                   const PhaseMix& mix, int island, Rng& rng);

// What a proposer is told besides candidates.
struct ProposalFacts {
  const WorkloadConfig* workload = nullptr;
  std::string seed_code, hardware, comm_api;
};

// One proposal's context: the facts, the island's knob restrictions and prompt, the pool's
// phase and meta-summary, SampleInputs' choices as views, and rng_seed, drawn last from `rng`.
// already_tried is left for the caller to set.
Result<ProposalContext> ProposalContextFor(const Population& pop, const GenerationPool& pool, const RunConfig& cfg,
                                           const ProposalFacts& facts, int generation, int island, Rng& rng);

}  // namespace cuco
