// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Class 1 (harness memory): the RankContext is a member of the harness object on main's stack. This
// candidate mirrors the harness's layout, does no work, and in teardown (before the metrics are written)
// rewrites every recorded check to zero error and every recorded time to 1 us.
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

namespace adv {
struct Args {
  std::string stage, metrics_dir;
  std::map<std::string, int64_t> sizes;
  int warmup, iters, verify_runs;
  double verify_fraction;
  bool have_input_seed;
  uint64_t input_seed;
  bool timing_only;
  double iteration_limit_s;
};
struct Result {
  double rel_l2, max_abs;
  int64_t nonfinite, elements;
};
struct Record {
  int iteration;
  std::string kind;
  uint64_t input_seed;
  Result r;
  int64_t poison_left;
};
struct Mirror {
  Args args;
  int rank, world;
  std::string nonce;
  cuco::cpu::Sizes sizes{{}};
  std::vector<cuco::cpu::BufferSpec> specs;
  cuco::cpu::RankContext ctx;
  void* state;
  std::vector<Record> checks;
  std::vector<double> times_ms;
  double agreement_max_abs;
};
}  // namespace adv

bool cuco_candidate_run(cuco::cpu::RankContext&, void*, const cuco::cpu::IO&) { return true; }  // no work at all

void cuco_candidate_teardown(cuco::cpu::RankContext& ctx, void* state) {
  delete static_cast<State*>(state);
  auto* h = reinterpret_cast<adv::Mirror*>(reinterpret_cast<char*>(&ctx) - offsetof(adv::Mirror, ctx));
  for (auto& c : h->checks) {
    c.r.rel_l2 = 0;
    c.r.max_abs = 0;
    c.r.nonfinite = 0;
    c.poison_left = 0;
  }
  for (double& t : h->times_ms) t = 0.001;
  h->agreement_max_abs = 0;
}
// EVOLVE-BLOCK-END
