// runtime/src/supervisor/timed_loop.h: how many timed iterations a bench runs when the supervisor
// sizes its loop after the warm-up (--timed-seconds): every rank runs the same count, decided from
// the slowest rank's warm-up pace at the bench's own sizes. Plain C++.
#pragma once

#include <vector>

namespace cuco::supervisor {

// One rank's warm-up pace: the median of its warm-up iteration times after the first (which pays
// one-time costs: first launches, lazy loading); the one time when there is only one. 0 (unknown)
// without warm-up.
double WarmupPaceMs(std::vector<double> warmup_ms);

// The timed iterations that fill `timed_seconds` at the slowest pace in `rank_pace_ms`: at least
// `min_iters`, at most `max_iters` (never below `min_iters`). `min_iters` when a pace is unknown
// (0, negative, not finite) or timed_seconds <= 0.
int SizedTimedIterations(const std::vector<double>& rank_pace_ms, double timed_seconds, int min_iters, int max_iters);

}  // namespace cuco::supervisor
