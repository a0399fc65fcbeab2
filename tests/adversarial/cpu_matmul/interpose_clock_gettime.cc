// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Class 2 (interposition, asm label on a libc name): defines clock_gettime, which libstdc++'s
// steady_clock::now() calls through the PLT. CLOCK_MONOTONIC now runs 1000x slow; other clocks are
// answered honestly through timespec_get. The work is honest; the recorded time is 1000x too small.
struct State {
  int64_t rows, n, k;
};

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  auto* s = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  *state = s;
  return true;
}

namespace adv {
// The honest product (ikj order), used where the attack still needs right answers.
inline void Matmul(const float* a, const float* b, float* c, int64_t rows, int64_t n, int64_t kk) {
  for (int64_t i = 0; i < rows; ++i) {
    float* row = c + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = 0;
    for (int64_t k = 0; k < kk; ++k) {
      const float aik = a[i * kk + k];
      const float* brow = b + k * n;
      for (int64_t j = 0; j < n; ++j) row[j] += aik * brow[j];
    }
  }
}
inline void Honest(void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  Matmul(static_cast<const float*>(io.in("A").ptr), static_cast<const float*>(io.in("B").ptr),
         static_cast<float*>(io.out("C").ptr), s.rows, s.n, s.k);
}
}  // namespace adv

extern "C" int timespec_get(void* ts, int base);

namespace adv {
struct Timespec {
  long sec, nsec;
};
int FakeClock(int clock_id, Timespec* ts) __asm__("clock_gettime");
int FakeClock(int clock_id, Timespec* ts) {
  if (clock_id == 1 || clock_id == 4 || clock_id == 7) {  // MONOTONIC, MONOTONIC_RAW, BOOTTIME
    const unsigned long long ns = __builtin_ia32_rdtsc() / 1000;
    ts->sec = static_cast<long>(ns / 1000000000ull);
    ts->nsec = static_cast<long>(ns % 1000000000ull);
    return 0;
  }
  return timespec_get(ts, 1) == 1 ? 0 : -1;
}
}  // namespace adv

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  adv::Honest(state, io);
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
