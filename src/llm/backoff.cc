#include "llm/backoff.h"

#include <algorithm>
#include <cmath>

namespace cuco {

double BackoffDelay(double initial_s, double max_s, int retry, std::mt19937_64& rng) {
  double d = std::min(max_s, initial_s * std::pow(2.0, std::max(0, retry - 1)));
  std::uniform_real_distribution<double> jitter(0.5, 1.0);
  return std::max(0.0, d * jitter(rng));
}

}  // namespace cuco
