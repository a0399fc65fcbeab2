// Frozen side of cpu_exchange: inputs and a float64 reference of C = A*B.
// Rank r holds rows [r*M/W, (r+1)*M/W) of A (M x K) and all of B (K x N); its output C holds
// the same rows of C. Row-major float32. The simulated exchange is the candidate's business:
// only the sum reaches the output, so only the sum is checked.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cuco/cpu_harness.h"

namespace cuco_frozen::cpu {
namespace {

struct Shape {
  int64_t m, n, k, rows;
};

Shape ShapeOf(const cuco::cpu::Sizes& s, int world) {
  Shape sh{s.get("M"), s.get("N"), s.get("K"), s.get("M") / world};
  if (sh.m % world != 0 || sh.k % 2 != 0) {
    std::fprintf(stderr, "cpu_exchange: M=%lld must divide by the world size %d and K=%lld by 2\n",
                 (long long)sh.m, world, (long long)sh.k);
    std::exit(2);
  }
  return sh;
}

// Tensor 11 is A (indexed by global row), tensor 12 is B.
float In(uint64_t seed, uint64_t tensor, int64_t row, int64_t cols, int64_t col) {
  return static_cast<float>(uniform(seed, tensor, 0, static_cast<uint64_t>(row * cols + col)));
}

}  // namespace

std::vector<cuco::cpu::BufferSpec> workload_buffers(const cuco::cpu::Sizes& s, int, int world) {
  const Shape sh = ShapeOf(s, world);
  return {{"A", static_cast<size_t>(sh.rows * sh.k) * sizeof(float), cuco::cpu::Role::kInput},
          {"B", static_cast<size_t>(sh.k * sh.n) * sizeof(float), cuco::cpu::Role::kInput},
          {"C", static_cast<size_t>(sh.rows * sh.n) * sizeof(float), cuco::cpu::Role::kOutput}};
}

int64_t workload_rows(const cuco::cpu::Sizes& s, int, int world) { return ShapeOf(s, world).rows; }

void workload_fill_inputs(const cuco::cpu::Sizes& s, int rank, int world, uint64_t seed, const cuco::cpu::IO& io) {
  const Shape sh = ShapeOf(s, world);
  float* a = static_cast<float*>(io.in("A").ptr);
  float* b = static_cast<float*>(io.in("B").ptr);
  for (int64_t e = 0; e < sh.rows * sh.k; ++e) a[e] = In(seed, 11, rank * sh.rows + e / sh.k, sh.k, e % sh.k);
  for (int64_t e = 0; e < sh.k * sh.n; ++e) b[e] = In(seed, 12, e / sh.n, sh.n, e % sh.n);
}

CheckResult workload_check(const cuco::cpu::Sizes& s, int rank, int world, uint64_t seed, const cuco::cpu::IO& io,
                           const std::vector<int64_t>& rows) {
  const Shape sh = ShapeOf(s, world);
  std::vector<int64_t> check = rows;
  if (check.empty())
    for (int64_t i = 0; i < sh.rows; ++i) check.push_back(i);
  const float* c = static_cast<const float*>(io.out("C").ptr);
  CheckResult r;
  double diff2 = 0, norm2 = 0;
  for (int64_t i : check)
    for (int64_t j = 0; j < sh.n; ++j) {
      double want = 0;
      for (int64_t k = 0; k < sh.k; ++k)
        want += static_cast<double>(In(seed, 11, rank * sh.rows + i, sh.k, k)) * In(seed, 12, k, sh.n, j);
      const double got = c[i * sh.n + j];
      ++r.elements;
      if (!std::isfinite(got)) {
        ++r.nonfinite;
        continue;
      }
      diff2 += (got - want) * (got - want);
      norm2 += want * want;
      r.max_abs = std::fmax(r.max_abs, std::fabs(got - want));
    }
  r.rel_l2 = r.nonfinite ? NAN : std::sqrt(diff2 / (norm2 > 0 ? norm2 : 1));
  if (r.nonfinite) r.max_abs = NAN;
  return r;
}

}  // namespace cuco_frozen::cpu
