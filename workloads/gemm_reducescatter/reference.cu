// gemm_reducescatter: the frozen side (inputs, reference, comparison). Candidates never see it.
//
// Row-parallel linear layer. With W ranks, rank r holds
//   A_r: M x K/W, row-major bf16 (columns [r K/W, (r+1) K/W) of the full A)
//   B_r: K/W x N, row-major bf16 (rows    [r K/W, (r+1) K/W) of the full B)
// and must produce C (bf16, M/W x N, row-major): rows [r M/W, (r+1) M/W) of sum_q A_q B_q.
//
// Inputs (scaled so that outputs are O(1)):
//   A ~ U(-1, 1)                    variance 1/3
//   B ~ U(-1, 1) * sqrt(3 / K)      variance 1/K   (K: the full inner dimension)
//   C_ij = sum over the K products   variance K * (1/3) * (1/K) = 1/3, i.e. |C| ~ 0.58 typical
// each value rounded to bf16 as stored. Every element is a pure function of (seed, tensor, rank,
// index) (cuco/impl/random.h), so the reference regenerates all ranks' shards from the seed and
// never reads the input buffers.
//
// Reference: one CUDA thread per (checked row, column), the inner product over all K in fp64
// (bf16 x bf16 products are exact), compared on the spot with the candidate's bf16 output. The
// reference values exist only in registers; per-block partial sums go to scratch memory that is
// zeroed before it is freed. Slow (K hash evaluations per element) and obviously correct.
#include <cuco/impl/random.h>
#include <cuco/impl/row_check.h>
#include <cuco/workload_spec.h>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace cuco_frozen {
namespace {

constexpr uint64_t kTensorA = 1;
constexpr uint64_t kTensorB = 2;
constexpr int kRefThreads = 256;
constexpr int kMaxGridY = 65535;

struct Dims {
  int64_t M = 0, N = 0, K = 0, W = 1, m_local = 0, k_local = 0;
};

Dims dims_of(const cuco::Sizes& s, int world) {
  Dims d;
  d.M = s.get("M");
  d.N = s.get("N");
  d.K = s.get("K");
  d.W = world;
  d.m_local = d.M / world;
  d.k_local = d.K / world;
  return d;
}

float b_scale(const Dims& d) { return static_cast<float>(std::sqrt(3.0 / static_cast<double>(d.K))); }

__device__ __forceinline__ float a_value(uint64_t key, uint64_t index) { return bf16_round(uniform_pm1(key, index)); }

__device__ __forceinline__ float b_value(uint64_t key, uint64_t index, float scale) {
  return bf16_round(uniform_pm1(key, index) * scale);
}

__global__ void fill_kernel(__nv_bfloat16* A, int64_t n_a, uint64_t key_a, __nv_bfloat16* B, int64_t n_b,
                            uint64_t key_b, float scale) {
  const int64_t total = n_a + n_b;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (i < n_a) {
      A[i] = __float2bfloat16_rn(a_value(key_a, static_cast<uint64_t>(i)));
    } else {
      const int64_t k = i - n_a;
      B[k] = __float2bfloat16_rn(b_value(key_b, static_cast<uint64_t>(k), scale));
    }
  }
}

using Partial = CheckPartial;  // cuco/impl/row_check.h: d2, r2, max_abs, nonfinite

// grid.x covers the N columns, grid.y strides over the checked rows.
__global__ void reference_compare_kernel(const __nv_bfloat16* C, const int64_t* rows, int64_t n_rows,
                                         const uint64_t* keys_a, const uint64_t* keys_b, int64_t N, int64_t m_local,
                                         int64_t k_local, int W, int rank, float scale, Partial* partials) {
  __shared__ float a_tile[kRefThreads];
  __shared__ Partial red[kRefThreads];
  const int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  Partial p{0, 0, 0, 0};
  for (int64_t ri = blockIdx.y; ri < n_rows; ri += gridDim.y) {
    const int64_t row_local = rows[ri];
    const int64_t g = static_cast<int64_t>(rank) * m_local + row_local;  // row of the full C
    double acc = 0;
    for (int q = 0; q < W; ++q) {
      const uint64_t ka = keys_a[q], kb = keys_b[q];
      for (int64_t k0 = 0; k0 < k_local; k0 += kRefThreads) {
        __syncthreads();
        const int64_t kk = k0 + threadIdx.x;
        if (kk < k_local) a_tile[threadIdx.x] = a_value(ka, static_cast<uint64_t>(g * k_local + kk));
        __syncthreads();
        if (j < N) {
          const int tn = k_local - k0 < kRefThreads ? static_cast<int>(k_local - k0) : kRefThreads;
          for (int t = 0; t < tn; ++t) {
            const float b = b_value(kb, static_cast<uint64_t>((k0 + t) * N + j), scale);
            acc += static_cast<double>(a_tile[t]) * static_cast<double>(b);
          }
        }
      }
    }
    if (j < N) {
      accumulate_element(p, __bfloat162float(C[row_local * N + j]), acc);
    }
  }
  reduce_block_partial(red, p, &partials[blockIdx.y * gridDim.x + blockIdx.x]);
}

cuco::Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return cuco::Status::Ok();
  return cuco::Status::Error(std::string("gemm_reducescatter reference: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

const char* workload_name() { return "gemm_reducescatter"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  for (const char* name : {"M", "N", "K"}) {
    if (!s.has(name)) return cuco::Status::Error(std::string("size ") + name + " is missing (give --size " + name + "=...)");
    if (s.get(name) <= 0) return cuco::Status::Error(std::string("size ") + name + " must be > 0");
  }
  if (world < 1) return cuco::Status::Error("world size must be >= 1");
  const int64_t M = s.get("M"), N = s.get("N"), K = s.get("K");
  if (M % world != 0)
    return cuco::Status::Error("M=" + std::to_string(M) + " is not divisible by the world size " + std::to_string(world) +
                               " (each rank's output is M/W rows)");
  if (K % world != 0)
    return cuco::Status::Error("K=" + std::to_string(K) + " is not divisible by the world size " + std::to_string(world) +
                               " (each rank holds K/W of the inner dimension)");
  if (M > (int64_t{1} << 31) || N > (int64_t{1} << 31) || K > (int64_t{1} << 31) ||
      static_cast<double>(M) * static_cast<double>(std::max(N, K)) > 9e15)
    return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int /*rank*/, int world) {
  const Dims d = dims_of(s, world);
  return {
      {"A", Role::kInput, DType::kBF16, d.M * d.k_local},
      {"B", Role::kInput, DType::kBF16, d.k_local * d.N},
      {"C", Role::kOutput, DType::kBF16, d.m_local * d.N},
  };
}

int64_t output_rows(const cuco::Sizes& s, int /*rank*/, int world) { return s.get("M") / world; }

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const Dims d = dims_of(s, world);
  const int64_t n_a = d.M * d.k_local, n_b = d.k_local * d.N;
  const uint64_t key_a = stream_key(seed, kTensorA, static_cast<uint64_t>(rank));
  const uint64_t key_b = stream_key(seed, kTensorB, static_cast<uint64_t>(rank));
  int sms = 132, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t blocks = std::min<int64_t>((n_a + n_b + 255) / 256, static_cast<int64_t>(sms) * 16);
  fill_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 256, 0, stream>>>(
      static_cast<__nv_bfloat16*>(io.in("A").ptr), n_a, key_a, static_cast<__nv_bfloat16*>(io.in("B").ptr), n_b, key_b,
      b_scale(d));
  return cuda_status(cudaGetLastError(), "fill_kernel launch");
}

cuco::Status check(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  const Dims d = dims_of(s, world);
  std::vector<int64_t> rows;
  if (cuco::Status st = planned_rows(plan, d.m_local, &rows); !st.ok()) return st;
  *result = CheckResult{};
  if (rows.empty()) return cuco::Status::Ok();

  std::vector<uint64_t> keys(2 * static_cast<size_t>(world));
  for (int q = 0; q < world; ++q) {
    keys[static_cast<size_t>(q)] = stream_key(seed, kTensorA, static_cast<uint64_t>(q));
    keys[static_cast<size_t>(world + q)] = stream_key(seed, kTensorB, static_cast<uint64_t>(q));
  }
  const unsigned gx = static_cast<unsigned>((d.N + kRefThreads - 1) / kRefThreads);
  const unsigned gy = static_cast<unsigned>(std::min<int64_t>(static_cast<int64_t>(rows.size()), kMaxGridY));
  const size_t n_partials = static_cast<size_t>(gx) * gy;

  // One scratch block: keys | rows | partials.
  const size_t keys_bytes = keys.size() * sizeof(uint64_t);
  const size_t rows_bytes = rows.size() * sizeof(int64_t);
  const size_t partial_bytes = n_partials * sizeof(Partial);
  const size_t scratch_bytes = keys_bytes + rows_bytes + partial_bytes;
  char* scratch = nullptr;
  cuco::Status st = cuda_status(cudaMalloc(&scratch, scratch_bytes), "cudaMalloc scratch");
  if (!st.ok()) return st;
  uint64_t* d_keys = reinterpret_cast<uint64_t*>(scratch);
  int64_t* d_rows = reinterpret_cast<int64_t*>(scratch + keys_bytes);
  Partial* d_partials = reinterpret_cast<Partial*>(scratch + keys_bytes + rows_bytes);

  std::vector<Partial> partials(n_partials);
  cudaError_t e = cudaMemcpyAsync(d_keys, keys.data(), keys_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(d_rows, rows.data(), rows_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    reference_compare_kernel<<<dim3(gx, gy), kRefThreads, 0, stream>>>(
        static_cast<const __nv_bfloat16*>(io.out("C").ptr), d_rows, static_cast<int64_t>(rows.size()), d_keys,
        d_keys + world, d.N, d.m_local, d.k_local, world, rank, b_scale(d), d_partials);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess)
    e = cudaMemcpyAsync(partials.data(), d_partials, partial_bytes, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  // Scrub and free the scratch whatever happened.
  const cudaError_t e_scrub = cudaMemsetAsync(scratch, 0, scratch_bytes, stream);
  const cudaError_t e_sync = cudaStreamSynchronize(stream);
  const cudaError_t e_free = cudaFree(scratch);
  if (e != cudaSuccess) return cuda_status(e, "reference kernel");
  if (e_scrub != cudaSuccess) return cuda_status(e_scrub, "scrub");
  if (e_sync != cudaSuccess) return cuda_status(e_sync, "scrub sync");
  if (e_free != cudaSuccess) return cuda_status(e_free, "cudaFree scratch");

  summarize_partials(partials, static_cast<int64_t>(rows.size()), d.N, result);
  return cuco::Status::Ok();
}

}  // namespace cuco_frozen
