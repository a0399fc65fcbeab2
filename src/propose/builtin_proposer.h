// The builtin proposer: walks the workload's declared design space ([[knobs]] in
// workload.toml) by rewriting knob values on the parent's code with ApplyKnobs. No network,
// no cost, deterministic: the same context (rng_seed included) gives the same proposal.
//
//  - compose ("diff" requests, when the search has measured moves that helped:
//    ProposalContext::improving_moves): on the fastest passing candidate in view, every such move
//    applied together in gain order, then each alone, largest gain first; the first untried one
//    is proposed as mutation kind "compose", the moves' children recorded as extra parents. With
//    nothing untried to compose, a "diff" request is served as a mutation.
//  - mutation ("knobs"; "rewrite" requests are served the same way): one or two knobs changed. Explore: random neighbours at distance 1 or 2 (two-knob moves first with
//    probability temperature/2) of the parent; of a generation-0 parent (kind "seed"), every
//    one-knob move before any two-knob one, so each move is measured alone. Exploit: around the fastest passing candidate
//    in view (the parent, or a faster inspiration, then recorded as an extra parent): its
//    adjacent values first (the next or previous entry of each knob's `values` list), then
//    other one-knob and two-knob moves; the result is applied to the parent's code.
//  - crossover: each knob taken from the parent or one of up to two partners (the first
//    inspirations); falls back to a mutation when every mix was tried.
//  - never a configuration whose code `already_tried` reports; when no neighbour is left the
//    whole space (the island's restriction applied) is searched for an untried point, and when
//    there is none the proposal says `exhausted`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "propose/proposer.h"

namespace cuco {

struct BuiltinProposerOptions {
  // Spaces up to this many configurations are enumerated in full (so exhaustion is exact);
  // larger ones are sampled (random_draws points) when no neighbour is untried.
  int64_t enumerate_limit = 4096;
  int random_draws = 256;
  int crossover_draws = 32;
};

class BuiltinProposer : public Proposer {
 public:
  explicit BuiltinProposer(BuiltinProposerOptions options = {}) : options_(options) {}
  Result<Proposal> Propose(const ProposalContext& ctx) override;
  std::string Name() const override { return "builtin"; }

 private:
  BuiltinProposerOptions options_;
};

// The number of knob configurations of a workload under an island restriction (knob -> allowed
// values; knobs not listed keep all declared values).
int64_t KnobSpaceSize(const std::vector<Knob>& knobs, const std::map<std::string, std::vector<std::string>>& allowed);

}  // namespace cuco
