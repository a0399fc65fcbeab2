#include "evaluate/timing_precision.h"

#include <algorithm>
#include <cmath>

namespace cuco {

namespace {

// P(X <= k) for X ~ Binomial(n, 1/2).
double BinomialHalfCdf(int n, int k) {
  double sum = 0;
  for (int i = 0; i <= k; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) - n * std::log(2.0));
  return std::min(1.0, sum);
}

}  // namespace

std::optional<MedianInterval> MedianConfidenceInterval(std::vector<double> times) {
  if (times.empty()) return std::nullopt;
  std::sort(times.begin(), times.end());
  const int n = static_cast<int>(times.size());
  // The largest j (1-based) with P(X <= j - 1) <= 2.5%: [x(j), x(n + 1 - j)] covers the median
  // with probability 1 - 2 P(X <= j - 1).
  int j = 1;
  while (j + 1 <= (n + 1) / 2 && BinomialHalfCdf(n, j) <= 0.025) ++j;
  MedianInterval m;
  m.lo = times[j - 1];
  m.hi = times[n - j];
  m.coverage = 1 - 2 * BinomialHalfCdf(n, j - 1);
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
