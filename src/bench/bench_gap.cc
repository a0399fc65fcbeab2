#include "bench/bench_gap.h"

#include <algorithm>

#include <fmt/format.h>

namespace cuco {

std::optional<BestGap> ExplainBestsGap(const BenchSummary& s) {
  if (!s.bound.known) return std::nullopt;
  BestGap g;
  g.bound_ms = s.bound.ms;
  for (const BenchRow& r : s.rows) {
    if (!RowIsTimed(r)) continue;
    if (r.kind == "candidate" && (g.best_ms < 0 || r.median_ms < g.best_ms)) {
      g.best_ms = r.median_ms;
      g.best = r.name;
    }
    if (r.kind == "part" && r.name == kBestComputePart) g.own_compute_ms = r.median_ms;
    if (r.kind == "part" && r.name == kBestCommPart) g.own_comm_ms = r.median_ms;
  }
  if (g.best_ms <= 0 || g.own_compute_ms <= 0 || g.own_comm_ms <= 0) return std::nullopt;
  g.own_bound_ms = std::max(g.own_compute_ms, g.own_comm_ms);
  g.comm_smaller = g.own_comm_ms <= g.own_compute_ms;
  g.settings_ms = g.own_bound_ms - g.bound_ms;
  g.exposed_ms = g.best_ms - g.own_bound_ms;
  g.exposed_share = g.exposed_ms / std::min(g.own_compute_ms, g.own_comm_ms);
  return g;
}

std::string BestGapLine(const std::optional<BestGap>& g) {
  if (!g) return "";
  const char* hidden = g->comm_smaller ? "communication" : "computation";
  return fmt::format(
      "the best's gap to the bound: {} {:.4f} ms - bound {:.4f} ms = {:.4f} ms = its settings' cost to its parts "
      "{:.4f} ms (own compute {:.4f}, own communication {:.4f} ms [{}, {}]) + its {} left exposed {:.4f} ms ({:.0f}% "
      "of its {:.4f} ms alone)\n",
      g->best, g->best_ms, g->bound_ms, g->best_ms - g->bound_ms, g->settings_ms, g->own_compute_ms, g->own_comm_ms,
      kBestComputePart, kBestCommPart, hidden, g->exposed_ms, 100 * g->exposed_share,
      std::min(g->own_compute_ms, g->own_comm_ms));
}

nlohmann::json BestGapJson(const std::optional<BestGap>& g) {
  if (!g) return nullptr;
  return {{"best", g->best},
          {"best_ms", g->best_ms},
          {"bound_ms", g->bound_ms},
          {"own_compute_ms", g->own_compute_ms},
          {"own_comm_ms", g->own_comm_ms},
          {"own_bound_ms", g->own_bound_ms},
          {"settings_ms", g->settings_ms},
          {"exposed_ms", g->exposed_ms},
          {"exposed_share", g->exposed_share},
          {"exposed_part", g->comm_smaller ? "comm" : "compute"}};
}

}  // namespace cuco
