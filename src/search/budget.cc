#include "search/budget.h"

#include <algorithm>
#include <string_view>

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

std::string SpentBudgetKey(const std::string& stop_reason) {
  static constexpr std::string_view kPrefix = "budget: ";
  if (stop_reason.rfind(kPrefix, 0) != 0) return "";
  for (const char* key : {"max_candidates", "max_generations", "max_dollars", "max_wall_s"})
    if (stop_reason.compare(kPrefix.size(), std::string_view(key).size() + 2, std::string(key) + " (") == 0) return key;
  return "";
}

BudgetEta EstimateBudgetEta(const RunConfig& cfg, const BudgetUse& use) {
  BudgetEta eta;
  const auto consider = [&eta](double seconds, const char* limit) {
    if (seconds < 0) seconds = 0;
    if (eta.seconds < 0 || seconds < eta.seconds) eta = {seconds, limit};
  };
  if (cfg.max_wall_s > 0) consider(cfg.max_wall_s - use.wall_s, "max_wall_s");
  if (use.session_s <= 0) return eta;
  const double per_s = static_cast<double>(use.session_done) / use.session_s;
  if (per_s > 0) {
    if (cfg.max_candidates > 0) consider(static_cast<double>(cfg.max_candidates - use.counted) / per_s, "max_candidates");
    if (cfg.max_generations > 0) {
      const int later = std::max(0, cfg.max_generations - use.generation);  // generations after this one
      const double left = use.slots_left + static_cast<double>(later) * std::max(1, use.per_generation);
      consider(left / per_s, "max_generations");
    }
  }
  const double dollars_per_s = use.wall_s > 0 ? use.dollars / use.wall_s : 0;
  if (cfg.max_dollars > 0 && dollars_per_s > 0) consider((cfg.max_dollars - use.dollars) / dollars_per_s, "max_dollars");
  return eta;
}

}  // namespace cuco
