// When the supervisor reads the GPU's state again after the candidate (gpu_state.h): the MPS server
// tears a client's context down after its process has ended, and a reading taken meanwhile (a
// canary slower, its samples spread) is not the state the next candidate meets. An "after" reading
// slower than the stage's "before" by more than kSettleSlack in either canary is read again, up to
// kSettleRereads times, kSettlePauseMs apart, and the last reading is the one reported and judged
// (src/evaluate/gpu_state_check.h, with its own tolerance). A change that lasts (an MPS limit, work
// left running) reads the same every time; the first reading's medians stay in the report.
#pragma once

#include <cmath>

#include "supervisor/gpu_state.h"

namespace cuco::supervisor {

constexpr int kSettleRereads = 3;
constexpr int kSettlePauseMs = 100;
constexpr double kSettleSlack = 0.10;

// Whether `after` is to be read again: a canary more than kSettleSlack slower than in `before`
// (both timed; an unknown figure asks for nothing).
inline bool ReadAgain(const GpuReading& before, const GpuReading& after) {
  auto slower = [](double base, double later) {
    return std::isfinite(base) && std::isfinite(later) && base > 0 && later > base * (1 + kSettleSlack);
  };
  return before.taken && after.taken && before.error.empty() && after.error.empty() &&
         (slower(before.kernel_ms, after.kernel_ms) || slower(before.copy_ms, after.copy_ms));
}

}  // namespace cuco::supervisor
