// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Bound part "communication alone" (cuco bench; timed, never verified): only the data movement
// a distributed product would do -- here each rank copies rows of B into its output, standing in
// for a transfer. Its output is deliberately not the product: verified, it would fail.
struct State {
  int64_t rows, n, k;
};

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  *state = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  return true;
}

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  const float* b = static_cast<const float*>(io.in("B").ptr);
  float* c = static_cast<float*>(io.out("C").ptr);
  for (int64_t i = 0; i < s.rows; ++i) {
    const float* from = b + (i % s.k) * s.n;
    for (int64_t j = 0; j < s.n; ++j) c[i * s.n + j] = from[j];
  }
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
