// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Class 3 (outside the timed call): run() only makes the output pages PROT_NONE (mprotect) and returns
// at once. A SIGSEGV handler, installed with glibc's __sigaction, computes C when the verifier first
// touches the output, after the timer has stopped; the handler then restores access and the read is
// retried. Timed iterations cost one mprotect.
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

extern "C" int mprotect(void* addr, unsigned long len, int prot);

namespace adv {
struct KernelSigaction {  // glibc's struct sigaction on x86-64
  void (*handler)(int, void*, void*);
  unsigned long mask[16];
  int flags;
  void (*restorer)();
};
}  // namespace adv
extern "C" int __sigaction(int sig, const adv::KernelSigaction* act, adv::KernelSigaction* old);

namespace adv {
struct Pending {
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  int64_t rows = 0, n = 0, k = 0;
  char* lo = nullptr;
  unsigned long len = 0;
  bool armed = false;
};
Pending pending;

void LateCompute(int, void*, void*) {
  if (!pending.armed) {  // not ours: fall back to the default action
    KernelSigaction dfl{};
    __sigaction(11, &dfl, nullptr);
    return;
  }
  mprotect(pending.lo, pending.len, 3);
  pending.armed = false;
  Matmul(pending.a, pending.b, pending.c, pending.rows, pending.n, pending.k);
}

inline void Install() {
  static bool done = false;
  if (done) return;
  KernelSigaction act{};
  act.handler = &LateCompute;
  act.flags = 4 | 0x40000000;  // SA_SIGINFO | SA_NODEFER
  __sigaction(11, &act, nullptr);
  done = true;
}
}  // namespace adv

bool cuco_candidate_run(cuco::cpu::RankContext&, void* state, const cuco::cpu::IO& io) {
  const auto& s = *static_cast<State*>(state);
  adv::Install();
  auto& p = adv::pending;
  if (p.armed) mprotect(p.lo, p.len, 3);
  p.a = static_cast<const float*>(io.in("A").ptr);
  p.b = static_cast<const float*>(io.in("B").ptr);
  p.c = static_cast<float*>(io.out("C").ptr);
  p.rows = s.rows;
  p.n = s.n;
  p.k = s.k;
  const uintptr_t page = 4096;
  const uintptr_t lo = reinterpret_cast<uintptr_t>(p.c) & ~(page - 1);
  const uintptr_t hi = (reinterpret_cast<uintptr_t>(p.c) + io.out("C").bytes + page - 1) & ~(page - 1);
  p.lo = reinterpret_cast<char*>(lo);
  p.len = hi - lo;
  p.armed = true;
  mprotect(p.lo, p.len, 0);  // PROT_NONE: the first touch after return computes
  return true;
}

void cuco_candidate_teardown(cuco::cpu::RankContext&, void* state) { delete static_cast<State*>(state); }
// EVOLVE-BLOCK-END
