#include "search/selection.h"

#include <algorithm>
#include <cmath>

namespace cuco {

std::vector<Scored> RankByTime(std::vector<Scored> pool) {
  std::sort(pool.begin(), pool.end(), [](const Scored& a, const Scored& b) {
    return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.id < b.id;
  });
  return pool;
}

std::vector<double> SelectionWeights(const std::vector<Scored>& ranked, const SelectionParams& p) {
  const size_t n = ranked.size();
  std::vector<double> w(n, 0.0);
  if (n == 0) return w;
  if (p.kind == "beam") {
    const size_t width = std::min(n, static_cast<size_t>(std::max(1, p.beam_width)));
    for (size_t i = 0; i < width; ++i) w[i] = 1;
  } else if (p.kind == "fitness_weighted") {
    std::vector<double> f(n);
    for (size_t i = 0; i < n; ++i) f[i] = 1.0 / std::max(ranked[i].time_ms, 1e-12);
    std::vector<double> sorted = f;
    std::sort(sorted.begin(), sorted.end());
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    // Spread: the median absolute deviation, or the median itself when every f is equal.
    std::vector<double> dev(n);
    for (size_t i = 0; i < n; ++i) dev[i] = std::fabs(f[i] - median);
    std::sort(dev.begin(), dev.end());
    double spread = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
    if (!(spread > 0)) spread = std::max(median, 1e-12);
    for (size_t i = 0; i < n; ++i) {
      const double s = 1.0 / (1.0 + std::exp(-p.lambda * (f[i] - median) / spread));
      w[i] = s / (1.0 + ranked[i].children);
    }
  } else {  // power_law
    for (size_t i = 0; i < n; ++i) w[i] = std::pow(static_cast<double>(i + 1), -p.exploitation);
  }
  double total = 0;
  for (double x : w) total += x;
  if (!(total > 0)) {
    std::fill(w.begin(), w.end(), 1.0 / n);
    return w;
  }
  for (double& x : w) x /= total;
  return w;
}

int64_t SelectParent(const std::vector<Scored>& pool, const SelectionParams& p, Rng& rng) {
  if (pool.empty()) return 0;
  const std::vector<Scored> ranked = RankByTime(pool);
  return ranked[rng.Weighted(SelectionWeights(ranked, p))].id;
}

}  // namespace cuco
