// Frozen side of cpu_matmul: inputs from the seed, and a float64 reference.
// Rank r holds A_r = rows [r*M/W, (r+1)*M/W) of A (M x K) and all of B (K x N);
// its output C_r holds the same rows of C = A*B. Row-major float32.
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "cuco/cpu_harness.h"

namespace cuco_frozen::cpu {
namespace {

struct Dims {
  int64_t m, n, k, rows;
};

Dims DimsOf(const cuco::cpu::Sizes& s, int world) {
  Dims d{s.get("M"), s.get("N"), s.get("K"), 0};
  if (d.m % world != 0) {
    std::fprintf(stderr, "cpu_matmul: M=%lld is not divisible by the world size %d\n", (long long)d.m, world);
    std::exit(2);
  }
  d.rows = d.m / world;
  return d;
}

float A(uint64_t seed, int64_t k_dim, int64_t global_row, int64_t col) {
  return static_cast<float>(uniform(seed, 1, 0, static_cast<uint64_t>(global_row * k_dim + col)));
}
float B(uint64_t seed, int64_t n_dim, int64_t row, int64_t col) {
  return static_cast<float>(uniform(seed, 2, 0, static_cast<uint64_t>(row * n_dim + col)));
}

}  // namespace

std::vector<cuco::cpu::BufferSpec> workload_buffers(const cuco::cpu::Sizes& s, int, int world) {
  Dims d = DimsOf(s, world);
  return {{"A", static_cast<size_t>(d.rows * d.k) * 4, cuco::cpu::Role::kInput},
          {"B", static_cast<size_t>(d.k * d.n) * 4, cuco::cpu::Role::kInput},
          {"C", static_cast<size_t>(d.rows * d.n) * 4, cuco::cpu::Role::kOutput}};
}

int64_t workload_rows(const cuco::cpu::Sizes& s, int, int world) { return DimsOf(s, world).rows; }

void workload_fill_inputs(const cuco::cpu::Sizes& s, int rank, int world, uint64_t seed, const cuco::cpu::IO& io) {
  Dims d = DimsOf(s, world);
  float* a = static_cast<float*>(io.in("A").ptr);
  float* b = static_cast<float*>(io.in("B").ptr);
  for (int64_t i = 0; i < d.rows; ++i)
    for (int64_t k = 0; k < d.k; ++k) a[i * d.k + k] = A(seed, d.k, rank * d.rows + i, k);
  for (int64_t k = 0; k < d.k; ++k)
    for (int64_t j = 0; j < d.n; ++j) b[k * d.n + j] = B(seed, d.n, k, j);
}

CheckResult workload_check(const cuco::cpu::Sizes& s, int rank, int world, uint64_t seed, const cuco::cpu::IO& io,
                           const std::vector<int64_t>& rows) {
  Dims d = DimsOf(s, world);
  std::vector<int64_t> check = rows;
  if (check.empty())
    for (int64_t i = 0; i < d.rows; ++i) check.push_back(i);
  const float* c = static_cast<const float*>(io.out("C").ptr);
  CheckResult r;
  double err2 = 0, ref2 = 0;
  for (int64_t i : check) {
    for (int64_t j = 0; j < d.n; ++j) {
      double ref = 0;
      for (int64_t k = 0; k < d.k; ++k) ref += static_cast<double>(A(seed, d.k, rank * d.rows + i, k)) * B(seed, d.n, k, j);
      double out = c[i * d.n + j];
      ++r.elements;
      if (!std::isfinite(out)) { ++r.nonfinite; continue; }
      double e = std::fabs(out - ref);
      err2 += e * e;
      ref2 += ref * ref;
      if (e > r.max_abs) r.max_abs = e;
    }
  }
  r.rel_l2 = r.nonfinite ? NAN : std::sqrt(err2 / (ref2 > 0 ? ref2 : 1));
  if (r.nonfinite) r.max_abs = NAN;
  return r;
}

}  // namespace cuco_frozen::cpu
