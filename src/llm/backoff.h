// Waits between retries: exponential backoff with jitter.
#pragma once

#include <random>

namespace cuco {

// The wait before retry number `retry` (1 = the first retry): initial_s * 2^(retry-1), capped at
// max_s, then scaled by a random factor in [0.5, 1] so that clients hit by the same outage do
// not return in step.
double BackoffDelay(double initial_s, double max_s, int retry, std::mt19937_64& rng);

}  // namespace cuco
