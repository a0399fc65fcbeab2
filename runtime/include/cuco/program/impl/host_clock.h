// cuco/program/impl/host_clock.h: the host clocks a program reads inside its EVOLVE blocks. `cuco
// init` spells std::chrono there as cuco_program::host_time, and clock_gettime and gettimeofday as
// its ticking_clock_gettime and ticking_gettimeofday (the deny list keeps the real clocks, by any
// qualified name, out of EVOLVE blocks).
//
// Contract: every clock here advances one millisecond at each read, on any thread, all of them
// the same counter. The harness times the iteration itself, so the program's own figures mean
// nothing; but an interval it divides by is never zero, a loop it bounds by time still ends, and a
// candidate learns nothing of the real time from it. Durations, time points and casts are
// std::chrono's own, so the program's code outside the blocks takes what these return.
#pragma once

#include <sys/time.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace cuco_program::host_time {

// std::chrono's names besides its clocks, as the program spells them (`host_time::milliseconds`);
// named one by one, so that `using namespace cuco_program::host_time` meets no second clock.
using std::chrono::abs;
using std::chrono::ceil;
using std::chrono::duration;
using std::chrono::duration_cast;
using std::chrono::duration_values;
using std::chrono::floor;
using std::chrono::hours;
using std::chrono::microseconds;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::round;
using std::chrono::seconds;
using std::chrono::time_point;
using std::chrono::time_point_cast;
using std::chrono::treat_as_floating_point;
#if __cplusplus >= 202002L
using std::chrono::days;
using std::chrono::months;
using std::chrono::weeks;
using std::chrono::years;
#endif

// Milliseconds since the clocks' epoch: one more at every read.
inline std::int64_t NextTickMs() {
  static std::atomic<std::int64_t> ticks{0};
  return ticks.fetch_add(1, std::memory_order_relaxed) + 1;
}

// One of std::chrono's clocks with now() ticking (its time_point is the clock's own).
template <typename Clock>
struct TickingClock : Clock {
  static typename Clock::time_point now() noexcept {
    return typename Clock::time_point(
        std::chrono::duration_cast<typename Clock::duration>(std::chrono::milliseconds(NextTickMs())));
  }
};
using steady_clock = TickingClock<std::chrono::steady_clock>;
using system_clock = TickingClock<std::chrono::system_clock>;
using high_resolution_clock = TickingClock<std::chrono::high_resolution_clock>;

inline int ticking_clock_gettime(clockid_t, timespec* ts) {
  const std::int64_t ms = NextTickMs();
  ts->tv_sec = static_cast<time_t>(ms / 1000);
  ts->tv_nsec = static_cast<long>(ms % 1000) * 1000000L;
  return 0;
}

// The second argument (a timezone, NULL in practice) is ignored, as Linux does.
template <typename Zone>
inline int ticking_gettimeofday(timeval* tv, Zone) {
  const std::int64_t ms = NextTickMs();
  tv->tv_sec = static_cast<time_t>(ms / 1000);
  tv->tv_usec = static_cast<suseconds_t>(ms % 1000) * 1000;
  return 0;
}

}  // namespace cuco_program::host_time
