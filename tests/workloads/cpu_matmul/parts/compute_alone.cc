// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Bound part "compute alone" (cuco bench; timed, never verified): the local product with the
// fastest loop order (ikj, unrolled by 4), and nothing else. In a multi-GPU workload this is the GEMM without its
// collective; this CPU workload has no communication, so it is the whole product.
struct State {
  int64_t rows, n, k;
};

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  *state = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  return true;
}

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  const float* a = static_cast<const float*>(io.in("A").ptr);
  const float* b = static_cast<const float*>(io.in("B").ptr);
  float* c = static_cast<float*>(io.out("C").ptr);
  for (int64_t i = 0; i < s.rows; ++i) {
    float* row = c + i * s.n;
    for (int64_t j = 0; j < s.n; ++j) row[j] = 0;
    for (int64_t k = 0; k < s.k; ++k) {
      const float aik = a[i * s.k + k];
      const float* brow = b + k * s.n;
      int64_t j = 0;
      for (; j + 4 <= s.n; j += 4) {
        row[j] += aik * brow[j];
        row[j + 1] += aik * brow[j + 1];
        row[j + 2] += aik * brow[j + 2];
        row[j + 3] += aik * brow[j + 3];
      }
      for (; j < s.n; ++j) row[j] += aik * brow[j];
    }
  }
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
