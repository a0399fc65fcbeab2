#include "search/parent_sampling.h"

#include <algorithm>
#include <set>

#include "search/knobs_to_keep.h"
#include "search/meta_summary.h"
#include "search/move_effects.h"

namespace cuco {
namespace {

std::string DrawKind(const PhaseMix& mix, bool crossover_possible, Rng& rng) {
  std::vector<double> w = {mix.knobs, mix.diff, mix.rewrite, crossover_possible ? mix.crossover : 0.0};
  static const char* const kNames[] = {"knobs", "diff", "rewrite", "crossover"};
  if (!(w[0] + w[1] + w[2] + w[3] > 0)) return "knobs";
  return kNames[rng.Weighted(w)];
}

// The meta-summary of candidates before the generation it was last refreshed at.
std::string SummaryAt(const Population& pop, const RunConfig& cfg, const WorkloadConfig& wl, double reference_ms, int g) {
  const int gs = g - ((g - 1) % cfg.summary_interval);
  std::vector<SummaryItem> items;
  for (const auto& [id, c] : pop.all()) {
    if (c.rec.generation >= gs || c.not_evaluated || !c.Final()) continue;
    items.push_back({id, c.rec.status, c.rec.time_ms, c.knobs, c.rec.mutation_kind, c.Ok() ? "" : c.ReasonLine(c.rec.feedback)});
  }
  return MetaSummary(items, wl.knobs, reference_ms, gs - 1);
}

// Crossover partners first, then the top-k, then elites of other cells; each id once.
std::vector<int64_t> Inspirations(const GenerationPool& pool, const RunConfig& cfg, const std::string& kind,
                                  int64_t parent_id, Rng& rng) {
  std::vector<int64_t> top = pool.archive.TopK(cfg.top_k, {parent_id});
  std::set<int64_t> exclude(top.begin(), top.end());
  exclude.insert(parent_id);
  std::vector<int64_t> picks = pool.archive.ElitePicks(cfg.cell_picks, exclude, rng);
  std::vector<int64_t> order;
  if (kind == "crossover") {
    std::vector<int64_t> partners = top;
    partners.insert(partners.end(), picks.begin(), picks.end());
    if (partners.empty())
      for (const auto& s : pool.everyone)
        if (s.id != parent_id) partners.push_back(s.id);
    rng.Shuffle(&partners);
    if (partners.size() > 2) partners.resize(2);
    order = partners;
  }
  for (int64_t id : top) order.push_back(id);
  for (int64_t id : picks) order.push_back(id);
  std::vector<int64_t> out;
  std::set<int64_t> seen;
  for (int64_t id : order)
    if (seen.insert(id).second) out.push_back(id);
  return out;
}

// The most recent failures, the island's own first.
std::vector<int64_t> RecentFailures(const Population& pop, const GenerationPool& pool, int limit, int island) {
  std::vector<int64_t> fails;
  for (int64_t id : pool.failures_by_recency)
    if (pop.at(id).rec.island == island && static_cast<int>(fails.size()) < limit) fails.push_back(id);
  for (int64_t id : pool.failures_by_recency)
    if (static_cast<int>(fails.size()) < limit && std::find(fails.begin(), fails.end(), id) == fails.end())
      fails.push_back(id);
  return fails;
}

}  // namespace

std::vector<std::vector<Scored>> IslandPopulations(const Population& pop, const SearchState& state, int islands,
                                                   int below_generation) {
  std::vector<std::vector<Scored>> pops(islands);
  for (const auto& [id, c] : pop.all())
    if (c.Ok() && c.rec.generation < below_generation)
      for (int i = 0; i < islands; ++i)
        if (state.InIsland(id, c.rec.generation, c.rec.island, i)) pops[i].push_back({id, c.rec.time_ms, 0});
  return pops;
}

GenerationPool BuildGenerationPool(const Population& pop, const SearchState& state, const RunConfig& cfg,
                                   const WorkloadConfig& wl, int g) {
  GenerationPool pool{cfg.PhaseAt(g, pop.Counted(g)), Archive(cfg.feature_knobs), "", {}, {}, {}, {}, {}};
  for (const auto& [id, c] : pop.all()) {
    if (c.rec.generation >= g || c.not_evaluated || !c.Ok()) continue;
    pool.archive.Offer(id, c.rec.time_ms, c.knobs);
    pool.everyone.push_back({id, c.rec.time_ms, 0});
  }
  pool.populations = IslandPopulations(pop, state, cfg.islands, g);
  const auto& all = pop.all();
  for (auto it = all.rbegin(); it != all.rend(); ++it)
    if (it->second.rec.generation < g && it->second.Failed()) pool.failures_by_recency.push_back(it->first);
  pool.summary = SummaryAt(pop, cfg, wl, state.reference_ms, g);
  pool.keep = KnobsToKeep(pop, wl.knobs);
  pool.moves = ImprovingMoves(pop, g);
  return pool;
}

Result<SampledInputs> SampleInputs(const Population& pop, const GenerationPool& pool, const RunConfig& cfg,
                                   const PhaseMix& mix, int island, Rng& rng) {
  SampledInputs in;
  // Parent: from the island's passing candidates (children counted so far), else anyone's.
  std::vector<Scored> candidates = pool.populations[island].empty() ? pool.everyone : pool.populations[island];
  for (auto& s : candidates)
    for (const auto& [id, c] : pop.all()) s.children += !c.not_evaluated && c.rec.parent_id == s.id;
  SelectionParams sel{cfg.selection, cfg.exploitation, cfg.fitness_lambda, cfg.beam_width};
  in.parent_id = SelectParent(candidates, sel, rng);
  if (in.parent_id == 0) return Status::Internal("no passing candidate to select a parent from");
  in.mutation_kind = DrawKind(mix, pool.archive.size() >= 2, rng);
  in.inspirations = Inspirations(pool, cfg, in.mutation_kind, in.parent_id, rng);
  in.failures = RecentFailures(pop, pool, cfg.recent_failures, island);
  return in;
}

Result<ProposalContext> ProposalContextFor(const Population& pop, const GenerationPool& pool, const RunConfig& cfg,
                                           const ProposalFacts& facts, int generation, int island, Rng& rng) {
  ProposalContext ctx;
  ctx.workload = facts.workload;
  ctx.seed_code = facts.seed_code;
  ctx.island = island;
  ctx.generation = generation;
  ctx.phase = pool.phase;
  ctx.temperature = cfg.Mix(pool.phase).temperature;
  ctx.meta_summary = pool.summary;
  ctx.improving_moves = pool.moves;
  ctx.hardware = facts.hardware;
  ctx.comm_api = facts.comm_api;
  auto spec = cfg.island_specs.find(island);
  if (spec != cfg.island_specs.end()) {
    ctx.allowed_knobs = spec->second.knobs;
    ctx.island_prompt = spec->second.prompt;
  }
  ctx.allowed_knobs = WithKeptKnobs(std::move(ctx.allowed_knobs), pool.keep);
  auto in = SampleInputs(pop, pool, cfg, cfg.Mix(pool.phase), island, rng);
  if (!in.ok()) return in.status();
  ctx.mutation_kind = in->mutation_kind;
  ctx.parent = pop.at(in->parent_id).View();
  for (int64_t id : in->inspirations) ctx.inspirations.push_back(pop.at(id).View());
  for (int64_t id : in->failures) ctx.failures.push_back(pop.at(id).View());
  ctx.rng_seed = rng.Next();
  return ctx;
}

}  // namespace cuco
