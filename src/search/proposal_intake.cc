#include "search/proposal_intake.h"

#include <algorithm>

#include <fmt/format.h>

#include "edit/line_diff.h"
#include "util/clock.h"
#include "util/sha256.h"

namespace cuco {

SearchCandidate CandidateOf(const Proposal& p, const ProposalContext& ctx, const std::string& proposer_name, int slot,
                            int attempt, const CandidateView** parent) {
  *parent = &ctx.parent;
  for (const auto& v : ctx.inspirations)
    if (p.parent_id > 0 && v.id == p.parent_id) *parent = &v;
  SearchCandidate c;
  c.rec.code = p.code;
  c.rec.parent_id = (*parent)->id;
  c.rec.extra_parent_ids = p.extra_parent_ids;
  c.rec.mutation_kind = p.mutation_kind.empty() ? ctx.mutation_kind : p.mutation_kind;
  c.rec.proposer = proposer_name;
  c.rec.island = ctx.island;
  c.rec.generation = ctx.generation;
  c.knobs = KnobsOf(p.code);
  c.search = {{"slot", slot},          {"attempt", attempt},        {"phase", ctx.phase},
              {"requested", ctx.mutation_kind}, {"description", p.description}, {"dollars", p.dollars},
              {"input_tokens", p.input_tokens}, {"output_tokens", p.output_tokens}, {"model", p.model}};
  return c;
}

namespace {

// `c` judged without an evaluation: its status and why, the feedback they make, its end time. A
// `skipped` one is marked not evaluated, `kind` saying what kept it out.
void JudgedUnevaluated(SearchCandidate* c, const std::string& status, const char* kind, const std::string& reason,
                       const Population& pop, double reference_ms) {
  c->rec.status = status;
  if (status == "skipped") {
    c->not_evaluated = true;
    c->search["not_evaluated"] = kind;
  }
  c->search["reason"] = reason;
  c->rec.feedback = pop.FeedbackText(*c, reference_ms);
  c->rec.finished_ms = NowMs();
}

}  // namespace

Result<ProposalVerdict> JudgeProposal(SearchCandidate* c, const Proposal& p, const CandidateView& parent,
                                      const Population& pop, const RunConfig& cfg, const WorkloadConfig& wl,
                                      double reference_ms) {
  if (!p.failure.empty()) {
    JudgedUnevaluated(c, "rejected", "", "proposal failed: " + p.failure, pop, reference_ms);
    return ProposalVerdict::kRejected;
  }
  if (pop.Knows(Sha256Hex(p.code))) return ProposalVerdict::kRepeat;
  if (const KnobExclusion* x = wl.ExclusionOf(c->knobs)) {
    std::string settings;
    for (const auto& [k, v] : x->knobs) settings += (settings.empty() ? "" : " with ") + k + " = \"" + v + "\"";
    JudgedUnevaluated(c, "skipped", "excluded",
                      fmt::format("not evaluated: {} cannot run together ({}; workload.toml:{})", settings, x->why, x->line),
                      pop, reference_ms);
    return ProposalVerdict::kExcluded;
  }
  const auto& kinds = cfg.novelty_kinds;
  if (std::find(kinds.begin(), kinds.end(), c->rec.mutation_kind) != kinds.end()) {
    auto near = pop.novelty().Query(p.code);
    if (!near.ok()) return near.status();
    if (near->id != 0 && near->similarity >= cfg.novelty_threshold) {
      c->search["similar_to"] = near->id;
      c->search["similarity"] = near->similarity;
      JudgedUnevaluated(c, "skipped", "novelty",
                        fmt::format("not evaluated: {:.3f} similar to #{} (novelty.threshold {})", near->similarity,
                                    near->id, cfg.novelty_threshold),
                        pop, reference_ms);
      return ProposalVerdict::kTooSimilar;
    }
  }
  c->rec.diff_from_parent = UnifiedDiff(parent.code, p.code, fmt::format("#{} (parent)", parent.id), "new candidate");
  c->rec.status = "pending";
  c->rec.feedback = p.description;
  return ProposalVerdict::kNew;
}

}  // namespace cuco
