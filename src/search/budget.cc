#include "search/budget.h"

#include <fmt/format.h>

namespace cuco {

std::string BudgetReason(const RunConfig& cfg, const std::atomic<bool>* interrupt, int64_t counted, double dollars,
                         double wall_s) {
  if (interrupt && interrupt->load()) return "interrupted (continue with --resume)";
  if (cfg.max_candidates > 0 && counted >= cfg.max_candidates)
    return fmt::format("budget: max_candidates ({}) reached", cfg.max_candidates);
  if (cfg.max_dollars > 0 && dollars >= cfg.max_dollars)
    return fmt::format("budget: max_dollars (${:.2f}) reached (${:.2f} spent)", cfg.max_dollars, dollars);
  if (cfg.max_wall_s > 0 && wall_s >= cfg.max_wall_s) return fmt::format("budget: max_wall_s ({:.0f} s) reached", cfg.max_wall_s);
  return "";
}

}  // namespace cuco
