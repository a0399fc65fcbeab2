// How precisely a bench's median is known, and how many iterations a second bench takes to know it
// better. The judge puts each rank's interval into the record (TimingFigures::median_lo_ms/_hi_ms);
// the cascade times a bench again when its median is imprecise (Cascade::RetimeNoisy).
#pragma once

#include <optional>
#include <vector>

namespace cuco {

// The median's half-width, as a fraction of the median, above which a time is called imprecise:
// two candidates closer than twice this are not told apart by one evaluation.
inline constexpr double kMedianPrecision = 0.02;
// The most timed iterations a second bench runs, and the share of the bench stage's limit it may
// expect to take (its first run's wall time, set-up included, scaled to the new count).
inline constexpr int kMaxRetimeIters = 640;
inline constexpr double kRetimeLimitShare = 0.5;
inline constexpr double kRetimeMaxSeconds = 60;

struct MedianInterval {
  double lo = 0, hi = 0;  // x(j) and x(n+1-j) of the sorted times
  double coverage = 0;    // the probability that [lo, hi] holds the true median (>= 0.95 from n = 9 on)
};

// The distribution-free 95% interval of the median of `times` (order statistics, Binomial(n, 1/2)):
// no assumption on the shape, so a bimodal or heavy-tailed run is judged as it is. Fewer than 6
// times: [min, max], with the lower coverage said. nullopt for no times.
std::optional<MedianInterval> MedianConfidenceInterval(std::vector<double> times);

// The timed iterations of a second bench whose median is known to `precision` (half-width over the
// median) after `iters`: enough to reach kMedianPrecision (the half-width falls as 1/sqrt(n)), at
// least 4 times `iters`, at most kMaxRetimeIters, and no more than fit in kRetimeLimitShare of
// `stage_limit_s` or kRetimeMaxSeconds at the first run's pace (`first_stage_s` over `warmup` + `iters`).
// 0: no longer bench fits (not even 2 times `iters`).
int RetimeIterations(double precision, int iters, int warmup, double first_stage_s, double stage_limit_s);

// The timed loop a first bench aims at: the supervisor sizes it after its warm-up, at the bench's
// sizes, to fill this long at the slowest rank's pace, from the workload's iters up to
// kMaxRetimeIters (runtime/src/supervisor/timed_loop.h). 20 iterations of 2 ms timed 40 ms, and
// were nearly always timed again, in a second start of the candidate (seconds).
inline constexpr double kFirstBenchTimedSeconds = 0.5;

}  // namespace cuco
