// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Fault test: allocates and touches 64 MiB blocks until allocation fails (capped at 3 GiB per rank so that
// running it without a sandbox cannot take a shared machine down), then reports failure. A sandbox
// must stop it at its memory limit.
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

bool cuco_candidate_run(cuco::cpu::RankContext& ctx, void*, const cuco::cpu::IO&) {
  std::vector<char*> blocks;
  const size_t block = size_t{64} << 20;
  for (int i = 0; i < 48; ++i) {
    char* p = new (std::nothrow) char[block];
    if (p == nullptr) break;
    for (size_t j = 0; j < block; j += 4096) p[j] = static_cast<char>(j);
    blocks.push_back(p);
  }
  ctx.error = "held " + std::to_string(blocks.size() * 64) + " MiB";
  for (char* p : blocks) delete[] p;
  return false;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
