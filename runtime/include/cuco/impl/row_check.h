// cuco/impl/row_check.h: the frozen comparison a reference.cu runs on the candidate's output (frozen
// side only; candidates may not name impl/).
//
// check_rows(out, rows, row_elems, expected, stream, result): for each listed row (row_elems
// consecutive elements of `out` starting at row * row_elems), compares every element with
// expected(e) (e: the element's index in `out`, fp64), one CUDA block per row, and fills rel_l2 /
// max_abs / nonfinite / rows_checked / elements_checked. Per-block partial sums are summed on the
// host in a fixed order (deterministic); the scratch memory is zeroed before it is freed.
// `Expected` is a trivially copyable functor with `__device__ double operator()(int64_t e) const`.
//
// A reference with its own compare kernel (the expected values computed in the kernel) folds its
// elements with the same device helpers: accumulate_element per element, reduce_block_partial per
// block, then summarize_partials on the host; the figures are then those check_rows would give.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <cuco/workload_spec.h>

namespace cuco_frozen {

// One block's share of a check: sums of squared errors and references, the largest error, and the
// count of non-finite outputs. A reference with its own compare kernel writes these per block and
// calls summarize_partials.
struct CheckPartial {
  double d2, r2, max_abs, nonfinite;
};

// The figures of a check from its blocks' partials, summed in a fixed order (deterministic).
inline void summarize_partials(const std::vector<CheckPartial>& partials, int64_t rows, int64_t elems_per_row,
                               CheckResult* result) {
  double d2 = 0, r2 = 0, max_abs = 0, nonfinite = 0;
  for (const CheckPartial& p : partials) {
    d2 += p.d2;
    r2 += p.r2;
    max_abs = std::max(max_abs, p.max_abs);
    nonfinite += p.nonfinite;
  }
  result->rel_l2 = r2 > 0 ? std::sqrt(d2 / r2) : (d2 > 0 ? INFINITY : 0.0);
  result->max_abs = max_abs;
  result->nonfinite = static_cast<int64_t>(nonfinite);
  result->rows_checked = rows;
  result->elements_checked = rows * elems_per_row;
}

// Folds one output element `o` (read as float) against its expected value `ref` into a thread's
// partial: a non-finite o is counted, never summed; ref always enters r2.
__device__ __forceinline__ void accumulate_element(CheckPartial& p, float o, double ref) {
  if (!isfinite(o)) {
    p.nonfinite += 1;
  } else {
    const double d = static_cast<double>(o) - ref;
    p.d2 += d * d;
    p.max_abs = fmax(p.max_abs, fabs(d));
  }
  p.r2 += ref * ref;
}

// Sums every thread's partial `p` over its block in a fixed tree (deterministic) through `red`, shared
// memory of blockDim.x entries (blockDim.x a power of two), and stores the block's partial at *out from
// thread 0. Every thread of the block must call it; red may be reused once it returns.
__device__ __forceinline__ void reduce_block_partial(CheckPartial* red, const CheckPartial& p, CheckPartial* out) {
  red[threadIdx.x] = p;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) {
      red[threadIdx.x].d2 += red[threadIdx.x + s].d2;
      red[threadIdx.x].r2 += red[threadIdx.x + s].r2;
      red[threadIdx.x].max_abs = fmax(red[threadIdx.x].max_abs, red[threadIdx.x + s].max_abs);
      red[threadIdx.x].nonfinite += red[threadIdx.x + s].nonfinite;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = red[0];
}

namespace row_check_detail {

constexpr int kThreads = 256;
constexpr int kMaxGrid = 65535;
using Partial = CheckPartial;

__device__ __forceinline__ float as_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float as_float(float v) { return v; }

template <class T, class Expected>
__global__ void compare_kernel(const T* out, const int64_t* rows, int64_t n_rows, int64_t row_elems, Expected expected,
                               Partial* partials) {
  __shared__ Partial red[kThreads];
  Partial p{0, 0, 0, 0};
  for (int64_t ri = blockIdx.x; ri < n_rows; ri += gridDim.x)
    for (int64_t t = threadIdx.x; t < row_elems; t += blockDim.x) {
      const int64_t e = rows[ri] * row_elems + t;
      accumulate_element(p, as_float(out[e]), expected(e));
    }
  reduce_block_partial(red, p, &partials[blockIdx.x]);
}

inline cuco::Status fail(cudaError_t e, const char* what) {
  return cuco::Status::Error(std::string("reference check: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace row_check_detail

// The rows a plan names (all of them, or its sample), or an error for one out of range.
inline cuco::Status planned_rows(const CheckPlan& plan, int64_t n_rows, std::vector<int64_t>* rows) {
  rows->clear();
  if (plan.all_rows) {
    for (int64_t i = 0; i < n_rows; ++i) rows->push_back(i);
    return cuco::Status::Ok();
  }
  for (int64_t r : plan.rows) {
    if (r < 0 || r >= n_rows) return cuco::Status::Error("check plan row " + std::to_string(r) + " out of range");
    rows->push_back(r);
  }
  return cuco::Status::Ok();
}

template <class T, class Expected>
cuco::Status check_rows(const T* out, const std::vector<int64_t>& rows, int64_t row_elems, Expected expected,
                        cudaStream_t stream, CheckResult* result) {
  namespace d = row_check_detail;
  *result = CheckResult{};
  if (rows.empty()) return cuco::Status::Ok();
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(static_cast<int64_t>(rows.size()), d::kMaxGrid));
  const size_t rows_bytes = rows.size() * sizeof(int64_t), partial_bytes = grid * sizeof(d::Partial);
  char* scratch = nullptr;
  cudaError_t e = cudaMalloc(&scratch, rows_bytes + partial_bytes);
  if (e != cudaSuccess) return d::fail(e, "cudaMalloc scratch");
  int64_t* d_rows = reinterpret_cast<int64_t*>(scratch);
  d::Partial* d_partials = reinterpret_cast<d::Partial*>(scratch + rows_bytes);
  std::vector<d::Partial> partials(grid);
  e = cudaMemcpyAsync(d_rows, rows.data(), rows_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    d::compare_kernel<<<grid, d::kThreads, 0, stream>>>(out, d_rows, static_cast<int64_t>(rows.size()), row_elems,
                                                        expected, d_partials);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(partials.data(), d_partials, partial_bytes, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  const cudaError_t scrub = cudaMemsetAsync(scratch, 0, rows_bytes + partial_bytes, stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  const cudaError_t freed = cudaFree(scratch);
  if (e != cudaSuccess) return d::fail(e, "compare kernel");
  if (scrub != cudaSuccess || sync != cudaSuccess || freed != cudaSuccess)
    return d::fail(scrub != cudaSuccess ? scrub : sync != cudaSuccess ? sync : freed, "scratch");
  summarize_partials(partials, static_cast<int64_t>(rows.size()), row_elems, result);
  return cuco::Status::Ok();
}

}  // namespace cuco_frozen
