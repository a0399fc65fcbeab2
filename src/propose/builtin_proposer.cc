#include "propose/builtin_proposer.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <optional>
#include <set>

#include "workload/knob_marks.h"

namespace cuco {
namespace {

using Config = std::map<std::string, std::string>;

// SplitMix64: small, fast and identical on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }
  template <typename T>
  void Shuffle(std::vector<T>* v) {
    for (size_t i = v->size(); i > 1; --i) std::swap((*v)[i - 1], (*v)[Below(i)]);
  }

 private:
  uint64_t s_;
};

struct Space {
  std::vector<std::string> names;                  // mutable knobs (declared and marked), declared order
  std::map<std::string, std::vector<std::string>> domain;  // allowed values, declared order
};

bool InDomain(const Space& sp, const Config& c) {
  for (const auto& n : sp.names) {
    const auto& d = sp.domain.at(n);
    if (std::find(d.begin(), d.end(), c.at(n)) == d.end()) return false;
  }
  return true;
}

std::string Describe(const Config& from, const Config& to) {
  std::string s;
  for (const auto& [k, v] : to) {
    auto it = from.find(k);
    if (it != from.end() && it->second == v) continue;
    s += (s.empty() ? "" : ", ") + k + " " + (it == from.end() ? "?" : it->second) + " -> " + v;
  }
  return s.empty() ? "no change" : s;
}

// Configurations differing from `base` in exactly `dist` (1 or 2) knobs, within the domain.
std::vector<Config> Neighbours(const Space& sp, const Config& base, int dist) {
  std::vector<Config> out;
  const size_t n = sp.names.size();
  for (size_t i = 0; i < n; ++i) {
    const auto& a = sp.names[i];
    for (const auto& va : sp.domain.at(a)) {
      if (va == base.at(a)) continue;
      if (dist == 1) {
        Config c = base;
        c[a] = va;
        out.push_back(std::move(c));
        continue;
      }
      for (size_t j = i + 1; j < n; ++j) {
        const auto& b = sp.names[j];
        for (const auto& vb : sp.domain.at(b)) {
          if (vb == base.at(b)) continue;
          Config c = base;
          c[a] = va;
          c[b] = vb;
          out.push_back(std::move(c));
        }
      }
    }
  }
  return out;
}

// One-knob moves to the next or previous value of the knob's list.
std::vector<Config> Adjacent(const Space& sp, const Config& base) {
  std::vector<Config> out;
  for (const auto& n : sp.names) {
    const auto& d = sp.domain.at(n);
    auto it = std::find(d.begin(), d.end(), base.at(n));
    if (it == d.end()) continue;
    size_t i = static_cast<size_t>(it - d.begin());
    for (size_t j : {i + 1, i - 1}) {
      if (j >= d.size()) continue;  // i - 1 wraps for i == 0
      Config c = base;
      c[n] = d[j];
      out.push_back(std::move(c));
    }
  }
  return out;
}

// The candidate to vary: the parent, or, when it has no knob marks (the seed, or an LLM's rewrite),
// the fastest passing marked candidate the search showed (out->parent_id, and *stand_in says so).
const CandidateView* MarkedParentOf(const ProposalContext& ctx, Proposal* out, std::string* stand_in) {
  const CandidateView* from = &ctx.parent;
  if (ctx.parent.knobs.empty()) {
    const CandidateView* best = nullptr;
    for (const auto& v : ctx.inspirations)
      if (!v.knobs.empty() && v.status == "ok" && (!best || (v.time_ms > 0 && (best->time_ms <= 0 || v.time_ms < best->time_ms))))
        best = &v;
    if (best) {
      from = best;
      out->parent_id = best->id;
      *stand_in = "(parent #" + std::to_string(ctx.parent.id) + " has no knob marks; from #" + std::to_string(best->id) + ") ";
    }
  }
  return from;
}

// The knobs this proposal may change (*sp: each with the values the island allows) and their values
// in the parent (*parent): the searched knobs its code marks. kInvalidArgument when the island's
// restriction leaves a knob no value.
Status SearchableKnobs(const ProposalContext& ctx, const Config& marked, Space* sp, Config* parent) {
  for (const auto& k : ctx.workload->knobs) {
    if (!k.search) continue;  // `search = false`: only variants set it (e.g. bench-only `part`)
    auto m = marked.find(k.name);
    if (m == marked.end()) continue;  // not marked in this code: cannot be changed here
    auto al = ctx.allowed_knobs.find(k.name);
    std::vector<std::string> d;
    for (const auto& v : k.values)
      if (al == ctx.allowed_knobs.end() || std::find(al->second.begin(), al->second.end(), v) != al->second.end())
        d.push_back(v);
    if (d.empty())
      return Status::InvalidArgument("builtin proposer: the island's restriction leaves knob '" + k.name + "' no declared value");
    sp->names.push_back(k.name);
    sp->domain[k.name] = std::move(d);
    (*parent)[k.name] = m->second;
  }
  return Status::Ok();
}

// The fastest passing marked candidate in view (the parent or an inspiration); nullptr when none
// is faster than the parent.
const CandidateView* FasterInView(const ProposalContext& ctx, const CandidateView& par) {
  const CandidateView* best = nullptr;
  for (const auto& v : ctx.inspirations)
    if (v.status == "ok" && v.time_ms > 0 && !v.knobs.empty() && (!best || v.time_ms < best->time_ms)) best = &v;
  if (best && best->id != par.id && (par.time_ms <= 0 || best->time_ms < par.time_ms)) return best;
  return nullptr;
}

// `parent` with the searched knobs of `view` (knobs `view` does not mark keep the parent's value).
Config KnobsFrom(const CandidateView& view, const Space& sp, const Config& parent) {
  Config c = parent;
  for (const auto& n : sp.names) {
    auto it = view.knobs.find(n);
    if (it != view.knobs.end()) c[n] = it->second;
  }
  return c;
}

// Where mutation starts: the parent's knobs; in the exploit phase the fastest passing candidate the
// search showed (the parent or an inspiration), recorded as an extra parent (*around says so).
Config ExploitBaseOf(const ProposalContext& ctx, const CandidateView& par, const Space& sp, const Config& parent,
                     Proposal* out, std::string* around) {
  if (ctx.phase != "exploit") return parent;
  const CandidateView* best = FasterInView(ctx, par);
  if (!best) return parent;
  Config base = KnobsFrom(*best, sp, parent);
  if (base != parent) {
    out->extra_parent_ids = {best->id};
    *around = " (around the best, #" + std::to_string(best->id) + ")";
  }
  return base;
}

// A composition of measured moves: the configuration, the children whose moves it applies, and
// their gains for the description.
struct Composition {
  Config config;
  std::vector<int64_t> from;
  std::string what;
};

// Compositions of the moves that helped (ctx.improving_moves, best first) on `base`: every usable
// move applied together in gain order (a move that would change a knob an earlier move of the
// composition set is left out), then each usable move alone. A move is usable when every knob it
// sets is searched here, its value allowed, and `base` lacks at least one of its values.
std::vector<Composition> CompositionsOf(const ProposalContext& ctx, const Space& sp, const Config& base) {
  std::vector<const KnobMove*> usable;
  for (const auto& m : ctx.improving_moves) {
    bool ok = !m.set.empty() && !m.children.empty(), news = false;
    for (const auto& [k, v] : m.set) {
      auto d = sp.domain.find(k);
      if (d == sp.domain.end() || std::find(d->second.begin(), d->second.end(), v) == d->second.end()) ok = false;
      else news = news || base.at(k) != v;
    }
    if (ok && news) usable.push_back(&m);
  }
  auto gain_text = [](const KnobMove& m) {
    char g[32];
    std::snprintf(g, sizeof g, "%.2fx", m.gain);
    return "#" + std::to_string(m.children.front()) + "'s move (" + g + ")";
  };
  std::vector<Composition> out;
  if (usable.size() >= 2) {
    Composition all{base, {}, ""};
    std::set<std::string> set_here;
    for (const KnobMove* m : usable) {
      bool clash = false;
      for (const auto& [k, v] : m->set) clash = clash || (set_here.count(k) && all.config.at(k) != v);
      if (clash) continue;
      for (const auto& [k, v] : m->set) {
        all.config[k] = v;
        set_here.insert(k);
      }
      all.from.push_back(m->children.front());
      all.what += (all.what.empty() ? "" : " + ") + gain_text(*m);
    }
    if (all.from.size() >= 2) out.push_back(std::move(all));
  }
  for (const KnobMove* m : usable) {
    Composition one{base, {m->children.front()}, gain_text(*m)};
    for (const auto& [k, v] : m->set) one.config[k] = v;
    out.push_back(std::move(one));
  }
  return out;
}

// The first untried composition (CompositionsOf) on the fastest passing candidate in view, its
// code in *code, `from` widened to every extra parent (the base and the moves' children) and
// `what` to the description's head; nullopt when there is none.
std::optional<Composition> FirstUntriedComposition(const ProposalContext& ctx, const CandidateView& par, const Space& sp,
                                                   const Config& parent,
                                                   const std::function<bool(const Config&, std::string*)>& try_config,
                                                   std::string* code) {
  if (ctx.improving_moves.empty()) return std::nullopt;
  const CandidateView* best = FasterInView(ctx, par);
  const Config base = best ? KnobsFrom(*best, sp, parent) : parent;
  for (auto& comp : CompositionsOf(ctx, sp, base)) {
    if (!InDomain(sp, comp.config) || !try_config(comp.config, code)) continue;
    std::set<int64_t> extra(comp.from.begin(), comp.from.end());
    if (best) extra.insert(best->id);
    extra.erase(par.id);
    comp.from.assign(extra.begin(), extra.end());
    comp.what = "compose on #" + std::to_string(best ? best->id : par.id) + ": " + comp.what + ": ";
    return comp;
  }
  return std::nullopt;
}

// Up to two crossover partners: the first inspirations with knob marks, other than `par`.
std::vector<const CandidateView*> PartnersOf(const ProposalContext& ctx, const CandidateView& par) {
  std::vector<const CandidateView*> partners;
  for (const auto& v : ctx.inspirations)
    if (v.id != par.id && !v.knobs.empty() && partners.size() < 2) partners.push_back(&v);
  return partners;
}

// Every configuration of the space, in its order.
std::vector<Config> EveryConfig(const Space& sp) {
  std::vector<Config> all{Config{}};
  for (const auto& n : sp.names) {
    std::vector<Config> next;
    for (const auto& c : all)
      for (const auto& v : sp.domain.at(n)) {
        Config x = c;
        x[n] = v;
        next.push_back(std::move(x));
      }
    all = std::move(next);
  }
  return all;
}

// The mutations to try, in tiers tried in order: one or two knobs from `base` (shuffled), adjacent
// values first in the exploit phase; in the explore phase one knob first from generation 0 (a
// parent of mutation kind "seed"), else two knobs first with a probability that grows with temperature.
std::vector<std::vector<Config>> MutationTiersOf(const ProposalContext& ctx, const Space& sp, const Config& base, Rng* rng) {
  std::vector<std::vector<Config>> tiers;
  std::vector<Config> n1 = Neighbours(sp, base, 1), n2 = Neighbours(sp, base, 2);
  // A parent outside the island's restriction: only moves that bring it inside count.
  auto outside = [&](const Config& c) { return !InDomain(sp, c); };
  n1.erase(std::remove_if(n1.begin(), n1.end(), outside), n1.end());
  n2.erase(std::remove_if(n2.begin(), n2.end(), outside), n2.end());
  rng->Shuffle(&n1);
  rng->Shuffle(&n2);
  if (ctx.phase == "exploit") {
    std::vector<Config> adj = Adjacent(sp, base);
    adj.erase(std::remove_if(adj.begin(), adj.end(), outside), adj.end());
    rng->Shuffle(&adj);
    tiers = {adj, n1, n2};
  } else if (ctx.parent.mutation_kind == "seed") {
    // From generation 0, every move alone before any pair: each move's effect is then measured on
    // its own (move_effects.h), which compose builds on; a pair mixes a good move with a bad one.
    tiers = {n1, n2};
  } else {
    const double p2 = std::clamp(ctx.temperature / 2, 0.1, 0.9);
    if (rng->Uniform() < p2) tiers = {n2, n1};
    else tiers = {n1, n2};
  }
  return tiers;
}

// One crossover draw: each knob from the parent or one of `partners` (a value outside the island's
// restriction redrawn inside it); *used gets the partners whose values differ from the parent's.
Config CrossoverDraw(const Space& sp, const Config& parent, const std::vector<const CandidateView*>& partners, Rng* rng,
                     std::set<int64_t>* used) {
  Config c;
  for (const auto& n : sp.names) {
    size_t src = rng->Below(partners.size() + 1);
    std::string v = parent.at(n);
    if (src > 0) {
      auto it = partners[src - 1]->knobs.find(n);
      if (it != partners[src - 1]->knobs.end()) v = it->second;
    }
    const auto& d = sp.domain.at(n);
    if (std::find(d.begin(), d.end(), v) == d.end()) v = d[rng->Below(d.size())];
    if (v != parent.at(n) && src > 0) used->insert(partners[src - 1]->id);
    c[n] = v;
  }
  return c;
}

}  // namespace

int64_t KnobSpaceSize(const std::vector<Knob>& knobs, const std::map<std::string, std::vector<std::string>>& allowed) {
  int64_t size = 1;
  for (const auto& k : knobs) {
    if (!k.search) continue;  // fixed at its default for searches (e.g. bench-only `part`)
    int64_t n = 0;
    auto it = allowed.find(k.name);
    for (const auto& v : k.values)
      if (it == allowed.end() || std::find(it->second.begin(), it->second.end(), v) != it->second.end()) ++n;
    if (n == 0) return 0;
    size = size > (int64_t{1} << 40) / n ? (int64_t{1} << 40) : size * n;
  }
  return size;
}

Result<Proposal> BuiltinProposer::Propose(const ProposalContext& ctx) {
  if (!ctx.workload) return Status::Internal("builtin proposer: no workload in the context");
  Proposal out;
  out.mutation_kind = "knobs";
  // A parent without knob marks (the seed, or an LLM's rewrite) cannot be varied here: mutate
  // the fastest passing marked candidate the search showed instead, and say so.
  std::string stand_in;
  const CandidateView* from = MarkedParentOf(ctx, &out, &stand_in);
  const CandidateView& par = *from;
  const std::string label = "candidate " + std::to_string(par.id);
  auto marks = FindKnobMarks(par.code, label);
  if (!marks.ok()) {
    out.failure = "builtin proposer: the parent's knob marks do not parse: " + marks.status().message();
    return out;
  }
  const Config marked = KnobValues(*marks);
  Space sp;
  Config parent;
  CUCO_RETURN_IF_ERROR(SearchableKnobs(ctx, marked, &sp, &parent));
  if (sp.names.empty()) {
    out.exhausted = true;
    out.description = "the builtin proposer only changes declared knobs, and the parent has none marked";
    return out;
  }

  std::set<Config> seen;  // configurations already checked in this call
  auto try_config = [&](const Config& c, std::string* code) -> bool {
    if (c == parent || !seen.insert(c).second) return false;
    auto applied = ApplyKnobs(par.code, label, c, ctx.workload->knobs);
    if (!applied.ok()) return false;
    if (ctx.already_tried && ctx.already_tried(*applied)) return false;
    *code = std::move(*applied);
    return true;
  };
  auto finish = [&](const Config& c, std::string code, const std::string& kind, const std::string& what) {
    out.code = std::move(code);
    out.mutation_kind = kind;
    out.description = stand_in + what + Describe(parent, c);
    return out;
  };

  Rng rng(ctx.rng_seed);
  std::string code;

  // Crossover: each knob from the parent or a partner.
  if (ctx.mutation_kind == "crossover") {
    const std::vector<const CandidateView*> partners = PartnersOf(ctx, par);
    for (int draw = 0; !partners.empty() && draw < options_.crossover_draws; ++draw) {
      std::set<int64_t> used;
      const Config c = CrossoverDraw(sp, parent, partners, &rng, &used);
      if (try_config(c, &code)) {
        out.extra_parent_ids.assign(used.begin(), used.end());
        std::string ids;
        for (int64_t id : used) ids += " #" + std::to_string(id);
        return finish(c, std::move(code), "crossover", "crossover of #" + std::to_string(par.id) + " with" + ids + ": ");
      }
    }
  }

  // Compose ("diff" requests: the builtin proposer's targeted edit): the moves that helped, applied
  // together and one by one to the fastest passing candidate in view.
  if (ctx.mutation_kind == "diff")
    if (auto comp = FirstUntriedComposition(ctx, par, sp, parent, try_config, &code)) {
      out.extra_parent_ids = comp->from;
      return finish(comp->config, std::move(code), "compose", comp->what);
    }

  // Mutation: one or two knobs, around the parent; in the exploit phase around the fastest
  // passing candidate the search showed (the parent or an inspiration), applied to the parent's
  // code, with that candidate recorded as an extra parent.
  std::string around;
  const Config base = ExploitBaseOf(ctx, par, sp, parent, &out, &around);
  const std::vector<std::vector<Config>> tiers = MutationTiersOf(ctx, sp, base, &rng);
  for (const auto& tier : tiers)
    for (const auto& c : tier)
      if (try_config(c, &code)) return finish(c, std::move(code), "knobs", "knobs" + around + ": ");
  out.extra_parent_ids.clear();

  // No neighbour left: anywhere in the space.
  const int64_t size = KnobSpaceSize(ctx.workload->knobs, ctx.allowed_knobs);
  if (size <= options_.enumerate_limit) {
    std::vector<Config> all = EveryConfig(sp);
    rng.Shuffle(&all);
    for (const auto& c : all)
      if (try_config(c, &code)) return finish(c, std::move(code), "knobs", "knobs (no untried neighbour; jumped): ");
    out.exhausted = true;
    out.description = "knob space exhausted: all " + std::to_string(all.size()) + " configurations" +
                      (ctx.allowed_knobs.empty() ? "" : " allowed on this island") + " have been tried";
    return out;
  }
  for (int draw = 0; draw < options_.random_draws; ++draw) {
    Config c;
    for (const auto& n : sp.names) c[n] = sp.domain.at(n)[rng.Below(sp.domain.at(n).size())];
    if (try_config(c, &code)) return finish(c, std::move(code), "knobs", "knobs (no untried neighbour; jumped): ");
  }
  out.exhausted = true;
  out.description = "knob space nearly exhausted: no untried configuration in " + std::to_string(options_.random_draws) +
                    " random draws of " + std::to_string(size);
  return out;
}

}  // namespace cuco
