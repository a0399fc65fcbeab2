#include "search/move_effects.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace cuco {

std::vector<KnobMove> ImprovingMoves(const Population& pop, int below_generation, double min_gain) {
  struct Pooled {
    KnobMove move;
    double log_sum = 0;
  };
  std::map<std::map<std::string, std::string>, Pooled> by_set;
  for (const auto& [id, c] : pop.all()) {
    if (c.rec.generation >= below_generation || c.not_evaluated || !c.Ok() || c.knobs.empty()) continue;
    const SearchCandidate* parent = pop.Find(c.rec.parent_id);
    if (!parent || !parent->Ok() || parent->knobs.empty()) continue;
    std::map<std::string, std::string> set;
    for (const auto& [knob, value] : c.knobs) {
      auto p = parent->knobs.find(knob);
      if (p != parent->knobs.end() && p->second != value) set[knob] = value;
    }
    if (set.empty()) continue;  // not a knob move (the same knobs, other code)
    Pooled& pooled = by_set[set];
    pooled.move.set = set;
    pooled.move.children.push_back(id);
    pooled.log_sum += std::log(parent->rec.time_ms / c.rec.time_ms);
  }
  std::vector<KnobMove> out;
  for (auto& [set, pooled] : by_set) {
    pooled.move.observations = static_cast<int>(pooled.move.children.size());
    pooled.move.gain = std::exp(pooled.log_sum / pooled.move.observations);
    if (pooled.move.gain >= min_gain) out.push_back(std::move(pooled.move));
  }
  std::sort(out.begin(), out.end(), [](const KnobMove& a, const KnobMove& b) {
    if (a.gain != b.gain) return a.gain > b.gain;
    return a.children.front() < b.children.front();
  });
  return out;
}

}  // namespace cuco
