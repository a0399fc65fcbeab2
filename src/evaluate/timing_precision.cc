#include "evaluate/timing_precision.h"

#include <algorithm>
#include <cmath>

namespace cuco {

std::optional<MedianInterval> MedianConfidenceInterval(std::vector<double> times) {
  if (times.empty()) return std::nullopt;
  std::sort(times.begin(), times.end());
  const int n = static_cast<int>(times.size());
  const int half = (n + 1) / 2;
  // cdf[k] = P(X <= k) for X ~ Binomial(n, 1/2), k = 0 .. half, each term from the one before
  // (in logs: P(X = 0) = 2^-n underflows a double from n = 1075 on).
  std::vector<double> cdf(half + 1);
  double log_pmf = -n * std::log(2.0);
  cdf[0] = std::exp(log_pmf);
  for (int k = 1; k <= half; ++k) {
    log_pmf += std::log(static_cast<double>(n - k + 1)) - std::log(static_cast<double>(k));
    cdf[k] = std::min(1.0, cdf[k - 1] + std::exp(log_pmf));
  }
  // The largest j (1-based) with P(X <= j - 1) <= 2.5%: [x(j), x(n + 1 - j)] covers the median
  // with probability 1 - 2 P(X <= j - 1).
  int j = 1;
  while (j + 1 <= half && cdf[j] <= 0.025) ++j;
  MedianInterval m;
  m.lo = times[j - 1];
  m.hi = times[n - j];
  m.coverage = 1 - 2 * cdf[j - 1];
  return m;
}

int RetimeIterations(double precision, int iters, int warmup, double first_stage_s, double stage_limit_s) {
  if (iters < 1) return 0;
  const double ratio = precision > kMedianPrecision ? precision / kMedianPrecision : 1;
  double want = std::max(4.0 * iters, std::ceil(1.2 * iters * ratio * ratio - 1e-9));
  want = std::min(want, static_cast<double>(kMaxRetimeIters));
  if (first_stage_s > 0) {
    const double per_iteration_s = first_stage_s / (warmup + iters);
    const double budget_s = std::min(kRetimeLimitShare * stage_limit_s, kRetimeMaxSeconds);
    want = std::min(want, std::floor(budget_s / per_iteration_s) - warmup);
  }
  return want >= 2.0 * iters ? static_cast<int>(want) : 0;
}

}  // namespace cuco
