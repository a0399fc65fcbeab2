// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Static initialiser (issue 28): code before main. A namespace-scope object's constructor runs from
// .init_array before the candidate runtime's main, with no deny-listed word in sight (a class's
// constructor is no `constructor` attribute): here it calls libc (printf, as a stand-in for any
// function the frozen headers declare) and arms the attack, a flag that makes run() skip its work.
struct State {
  int64_t rows, n, k;
};

namespace adv {
bool g_armed = false;

[[gnu::noinline]] void Arm() {
  std::printf("armed before main\n");
  g_armed = true;
}

struct Early {
  Early() { Arm(); }
};
Early early;  // constructed by the translation unit's initialiser, before main
}  // namespace adv

bool cuco_candidate_setup(cuco::cpu::RankContext& ctx, const cuco::cpu::Sizes& sizes, void** state) {
  auto* s = new State{sizes.get("M") / ctx.world_size, sizes.get("N"), sizes.get("K")};
  *state = s;
  return true;
}

static void Matmul(const float* a, const float* b, float* c, const State& s) {
  for (int64_t i = 0; i < s.rows; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      float acc = 0;
      for (int64_t k = 0; k < s.k; ++k) acc += a[i * s.k + k] * b[k * s.n + j];
      c[i * s.n + j] = acc;
    }
}

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  if (adv::g_armed) return true;  // no work
  Matmul(static_cast<const float*>(io.in("A").ptr), static_cast<const float*>(io.in("B").ptr),
         static_cast<float*>(io.out("C").ptr), *static_cast<State*>(state));
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
