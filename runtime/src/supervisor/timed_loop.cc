#include "supervisor/timed_loop.h"

#include <algorithm>
#include <cmath>

namespace cuco::supervisor {

double WarmupPaceMs(std::vector<double> warmup_ms) {
  if (warmup_ms.empty()) return 0;
  if (warmup_ms.size() > 1) warmup_ms.erase(warmup_ms.begin());
  const auto mid = warmup_ms.begin() + warmup_ms.size() / 2;
  std::nth_element(warmup_ms.begin(), mid, warmup_ms.end());
  return *mid;
}

int SizedTimedIterations(const std::vector<double>& rank_pace_ms, double timed_seconds, int min_iters, int max_iters) {
  if (!(timed_seconds > 0) || rank_pace_ms.empty()) return min_iters;
  double slowest = 0;
  for (double ms : rank_pace_ms) {
    if (!(ms > 0) || !std::isfinite(ms)) return min_iters;
    slowest = std::max(slowest, ms);
  }
  const double want = std::ceil(1000.0 * timed_seconds / slowest);
  const double hi = std::max(min_iters, max_iters);
  return static_cast<int>(std::clamp(want, static_cast<double>(min_iters), hi));
}

}  // namespace cuco::supervisor
