// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Every run computes its product 8 times over, every third 48 times (the same result): the timed
// iterations spread widely, and are slow enough that the first bench is sized below the most a
// second one may time. Expected: ok, timed again over more iterations, and still flagged noisy.
struct State {
  int64_t rows, n, k;
};

constexpr const char* kLoopOrder = "ijk";  // cuco:knob loop_order
constexpr int kUnroll = 1;                 // cuco:knob unroll

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  auto* s = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  *state = s;
  return true;
}

static void MatmulIjk(const float* a, const float* b, float* c, const State& s) {
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < s.k; ++k) acc += a[i * s.k + k] * b[k * s.n + j];
      c[i * s.n + j] = acc;
    }
}

static void MatmulIkj(const float* a, const float* b, float* c, const State& s) {
  for (int64_t i = 0; i < s.rows; ++i) {
    float* row = c + i * s.n;
    for (int64_t j = 0; j < s.n; ++j) row[j] = 0;
    for (int64_t k = 0; k < s.k; ++k) {
      const float aik = a[i * s.k + k];
      const float* brow = b + k * s.n;
      int64_t j = 0;
      if (kUnroll == 4)
        for (; j + 4 <= s.n; j += 4) {
          row[j] += aik * brow[j];
          row[j + 1] += aik * brow[j + 1];
          row[j + 2] += aik * brow[j + 2];
          row[j + 3] += aik * brow[j + 3];
        }
      for (; j < s.n; ++j) row[j] += aik * brow[j];
    }
  }
}

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  const float* a = static_cast<const float*>(io.in("A").ptr);
  const float* b = static_cast<const float*>(io.in("B").ptr);
  float* c = static_cast<float*>(io.out("C").ptr);
  static int runs = 0;
  const int repeats = ++runs % 3 == 0 ? 48 : 8;
  for (int r = 0; r < repeats; ++r) {
    if (kLoopOrder[1] == 'k') MatmulIkj(a, b, c, s);
    else MatmulIjk(a, b, c, s);
  }
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
