// Proposal intake: what a proposer's answer becomes, before it is stored.
//
// The candidate derives from the context's parent, or from the inspiration the proposal names
// (Proposal::parent_id); its kind is the proposal's, else the one requested. Then, in this order:
//  - kRejected: the proposal failed (no usable code): stored as "rejected", never evaluated;
//  - kRepeat: its exact code is already stored: dropped;
//  - kExcluded: its knob values have every setting of one of the workload's [[excluded]] tables
//    (knob settings that cannot run together): stored as "skipped" (not_evaluated) with why, the
//    slot not used up;
//  - kTooSimilar: a kind the novelty filter covers and at least novelty.threshold similar to an
//    evaluated candidate: stored as "skipped" (not_evaluated), the slot not used up;
//  - kNew: stored as "pending" with its diff from the parent, and evaluated.
#pragma once

#include <string>

#include "propose/proposer.h"
#include "search/population.h"
#include "search/run_config.h"
#include "workload/workload_config.h"
#include "util/status.h"

namespace cuco {

enum class ProposalVerdict { kRejected, kRepeat, kExcluded, kTooSimilar, kNew };

// The candidate `p` makes; `*parent` is set to the view it derives from (inside `ctx`).
SearchCandidate CandidateOf(const Proposal& p, const ProposalContext& ctx, const std::string& proposer_name, int slot,
                            int attempt, const CandidateView** parent);

// Judges `c` (from CandidateOf) and fills in its status, reason, feedback and diff accordingly.
Result<ProposalVerdict> JudgeProposal(SearchCandidate* c, const Proposal& p, const CandidateView& parent,
                                      const Population& pop, const RunConfig& cfg, const WorkloadConfig& wl,
                                      double reference_ms);

}  // namespace cuco
