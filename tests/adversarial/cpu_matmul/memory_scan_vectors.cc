// cpu_matmul seed: the plain triple loop. The search may change what lies
// between the EVOLVE-BLOCK markers; the rest is frozen.
#include <cstddef>
#include <cstdint>

#include "cuco/cpu_harness.h"

// EVOLVE-BLOCK-START
// Class 1 (harness memory), without a full layout mirror: scans the words that follow the RankContext
// for std::vector headers whose elements look like the harness's check records (a 16-byte SSO string
// "verify"/"timed_sample" at offset 8) and zeroes their errors and poison counts; the vector after them
// (times) is set to 1 us and the double after that (agreement) to 0. Does no work.
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

bool cuco_candidate_run(cuco::cpu::RankContext&, void*, const cuco::cpu::IO&) { return true; }  // no work at all

namespace adv {
struct VecHeader {
  char* begin;
  char* end;
  char* cap;
};
constexpr size_t kRecord = 88;  // int + string + u64 + 4 x 8-byte figures + i64
inline bool LooksLikeChecks(const VecHeader& v) {
  if (v.begin == nullptr || v.end <= v.begin || v.cap < v.end) return false;
  const size_t bytes = static_cast<size_t>(v.end - v.begin);
  if (bytes % kRecord != 0 || bytes / kRecord > 256) return false;
  for (char* e = v.begin; e < v.end; e += kRecord) {
    char* str = *reinterpret_cast<char**>(e + 8);
    const size_t len = *reinterpret_cast<size_t*>(e + 16);
    if (str != e + 24 || len == 0 || len > 15) return false;  // short-string buffer inside the record
  }
  return true;
}
}  // namespace adv

void cuco_candidate_teardown(cuco::cpu::RankContext& ctx, void* state) {
  delete static_cast<State*>(state);
  char* base = reinterpret_cast<char*>(&ctx);
  for (size_t off = 0; off < 512; off += 8) {
    auto* v = reinterpret_cast<adv::VecHeader*>(base + off);
    if (!adv::LooksLikeChecks(*v)) continue;
    for (char* e = v->begin; e < v->end; e += adv::kRecord) {
      *reinterpret_cast<double*>(e + 48) = 0;   // rel_l2
      *reinterpret_cast<double*>(e + 56) = 0;   // max_abs
      *reinterpret_cast<int64_t*>(e + 64) = 0;  // nonfinite
      *reinterpret_cast<int64_t*>(e + 80) = 0;  // poison_left
    }
    auto* times = v + 1;
    for (char* t = times->begin; t != nullptr && t < times->end; t += 8) *reinterpret_cast<double*>(t) = 0.001;
    *reinterpret_cast<double*>(base + off + 48) = 0;  // agreement_max_abs
    return;
  }
}
// EVOLVE-BLOCK-END
