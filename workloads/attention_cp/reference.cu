// attention_cp: the frozen side (inputs, reference, comparison). Candidates never see it.
//
// Context-parallel attention on W ranks. The total sequence of S tokens is sharded contiguously:
// rank r holds tokens [r L, (r+1) L), L = S / W, as
//   q [L][HQ][D], k [L][HKV][D], v [L][HKV][D]   (bf16, token-major, dense)
// and must produce o [L][HQ][D] (bf16): for each of its queries (global position p = r L + i) and
// query head h, softmax(q . k_j / sqrt(D)) v_j over the keys j of ALL ranks (global positions),
// restricted to j <= p when CAUSAL = 1. GQA: query head h reads KV head h / (HQ / HKV).
//
// Inputs (every element a pure function of (seed, tensor, rank, index), cuco/impl/random.h):
//   q = bf16(4 U(-1,1)), k = bf16(U(-1,1)), v = bf16(U(-1,1)).
// Scores q.k/sqrt(128) then have a standard deviation of ~1.33: the softmax is neither uniform
// (which would make the output ~ mean of v, nearly independent of which keys are included) nor
// one-hot, so a missing, duplicated or misplaced key block moves every row's output.
//
// Reference: one CUDA block per (checked query token, KV head), the exact softmax in fp64 over the
// visible keys regenerated from the seed (two passes: row max and sum, then P V), compared on the
// spot with the candidate's bf16 output for the HQ / HKV query heads of that KV head. A row of the
// check is one query token: HQ * D output elements. The reference values live in registers and
// shared memory only; per-block partial sums go to scratch memory that is zeroed before it is freed.
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

constexpr uint64_t kTensorQ = 1;
constexpr uint64_t kTensorK = 2;
constexpr uint64_t kTensorV = 3;
constexpr float kQScale = 4.0f;
constexpr int kD = 128;
constexpr int kMaxWorld = 8;
constexpr int kMaxGroup = 8;  // HQ / HKV
constexpr int kThreads = 256;
constexpr int kMaxGrid = 65535;

struct Dims {
  int64_t S = 0, L = 0, HQ = 0, HKV = 0, W = 1;
  bool causal = true;
};

Dims dims_of(const cuco::Sizes& s, int world) {
  Dims d;
  d.S = s.get("S");
  d.HQ = s.get("HQ");
  d.HKV = s.get("HKV");
  d.causal = s.get("CAUSAL") != 0;
  d.W = world;
  d.L = d.S / world;
  return d;
}

__device__ __forceinline__ float q_value(uint64_t key, uint64_t i) { return bf16_round(uniform_pm1(key, i) * kQScale); }
__device__ __forceinline__ float kv_value(uint64_t key, uint64_t i) { return bf16_round(uniform_pm1(key, i)); }

__global__ void fill_kernel(__nv_bfloat16* q, int64_t n_q, uint64_t key_q, __nv_bfloat16* k, __nv_bfloat16* v,
                            int64_t n_kv, uint64_t key_k, uint64_t key_v) {
  const int64_t total = n_q + 2 * n_kv;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (i < n_q) {
      q[i] = __float2bfloat16_rn(q_value(key_q, static_cast<uint64_t>(i)));
    } else if (i < n_q + n_kv) {
      const int64_t j = i - n_q;
      k[j] = __float2bfloat16_rn(kv_value(key_k, static_cast<uint64_t>(j)));
    } else {
      const int64_t j = i - n_q - n_kv;
      v[j] = __float2bfloat16_rn(kv_value(key_v, static_cast<uint64_t>(j)));
    }
  }
}

using Partial = CheckPartial;  // cuco/impl/row_check.h

struct RefArgs {
  const __nv_bfloat16* out;  // this rank's o [L][HQ][D]
  const int64_t* rows;       // checked query tokens (local index)
  int64_t n_rows;
  uint64_t key_q;            // this rank's q stream
  uint64_t keys_k[kMaxWorld], keys_v[kMaxWorld];
  int64_t L, S, r;
  int hq, hkv, group;
  bool causal;
  double scale;
};

// Block b handles pairs (row, g) = (b / hkv, b % hkv), grid-strided.
__global__ void __launch_bounds__(kThreads) reference_compare_kernel(RefArgs a, Partial* partials) {
  __shared__ double qs[kMaxGroup][kD];
  __shared__ double pt[kMaxGroup][kThreads];  // pass 1: per-thread max / pass 2: this tile's P
  __shared__ double lt[kMaxGroup][kThreads];  // pass 1: per-thread sums
  __shared__ double m_tot[kMaxGroup], l_tot[kMaxGroup];
  Partial* red = reinterpret_cast<Partial*>(&lt[0][0]);  // the final reduction reuses lt (48 KiB static limit)
  static_assert(sizeof(Partial) * kThreads <= sizeof(double) * kMaxGroup * kThreads, "red must fit in lt");
  const int t = threadIdx.x;
  const int G = a.group;
  Partial p{0, 0, 0, 0};
  const int64_t n_pairs = a.n_rows * a.hkv;
  for (int64_t b = blockIdx.x; b < n_pairs; b += gridDim.x) {
    const int64_t i = a.rows[b / a.hkv];
    const int g = static_cast<int>(b % a.hkv);
    const int64_t pos = a.r * a.L + i;
    const int64_t n_keys = a.causal ? pos + 1 : a.S;
    __syncthreads();  // shared memory of the previous pair is no longer read
    for (int e = t; e < G * kD; e += kThreads) {
      const int h = g * G + e / kD, d = e % kD;
      qs[e / kD][d] = q_value(a.key_q, static_cast<uint64_t>((i * a.hq + h) * kD + d));
    }
    __syncthreads();
    // The scaled scores of key j for the G query heads.
    auto scores = [&](int64_t j, double (&s)[kMaxGroup]) {
      const int64_t owner = j / a.L, jj = j - owner * a.L;
      const uint64_t kk = a.keys_k[owner];
      for (int h = 0; h < kMaxGroup; ++h) s[h] = 0;
      const uint64_t base = static_cast<uint64_t>((jj * a.hkv + g) * kD);
      for (int d = 0; d < kD; ++d) {
        const double kd = kv_value(kk, base + d);
        for (int h = 0; h < kMaxGroup; ++h)
          if (h < G) s[h] += qs[h][d] * kd;
      }
      for (int h = 0; h < kMaxGroup; ++h) s[h] *= a.scale;
    };
    // Pass 1: row max and sum per head.
    double m[kMaxGroup], l[kMaxGroup];
    for (int h = 0; h < kMaxGroup; ++h) {
      m[h] = -INFINITY;
      l[h] = 0;
    }
    for (int64_t j = t; j < n_keys; j += kThreads) {
      double s[kMaxGroup];
      scores(j, s);
      for (int h = 0; h < G; ++h) {
        if (s[h] > m[h]) {
          l[h] = l[h] * exp(m[h] - s[h]) + 1.0;
          m[h] = s[h];
        } else {
          l[h] += exp(s[h] - m[h]);
        }
      }
    }
    for (int h = 0; h < G; ++h) {
      pt[h][t] = m[h];
      lt[h][t] = l[h];
    }
    __syncthreads();
    if (t < G) {
      double mm = -INFINITY;
      for (int u = 0; u < kThreads; ++u) mm = fmax(mm, pt[t][u]);
      double ll = 0;
      for (int u = 0; u < kThreads; ++u)
        if (lt[t][u] > 0) ll += lt[t][u] * exp(pt[t][u] - mm);
      m_tot[t] = mm;
      l_tot[t] = ll;
    }
    __syncthreads();
    // Pass 2: O = sum_j p_j v_j / l, key tiles of kThreads. Thread t owns dim t % kD of the heads
    // h with h % 2 == t / kD.
    const int d = t % kD, half = t / kD;
    double acc[kMaxGroup / 2];
    for (int u = 0; u < kMaxGroup / 2; ++u) acc[u] = 0;
    for (int64_t j0 = 0; j0 < n_keys; j0 += kThreads) {
      const int64_t j = j0 + t;
      if (j < n_keys) {
        double s[kMaxGroup];
        scores(j, s);
        for (int h = 0; h < G; ++h) pt[h][t] = exp(s[h] - m_tot[h]);
      } else {
        for (int h = 0; h < G; ++h) pt[h][t] = 0;
      }
      __syncthreads();
      const int64_t tile = n_keys - j0 < kThreads ? n_keys - j0 : kThreads;
      for (int64_t u = 0; u < tile; ++u) {
        const int64_t jk = j0 + u, owner = jk / a.L, jj = jk - owner * a.L;
        const double vd = kv_value(a.keys_v[owner], static_cast<uint64_t>((jj * a.hkv + g) * kD + d));
        for (int x = 0; x < kMaxGroup / 2; ++x) {
          const int h = 2 * x + half;
          if (h < G) acc[x] += pt[h][u] * vd;
        }
      }
      __syncthreads();
    }
    for (int x = 0; x < kMaxGroup / 2; ++x) {
      const int h = 2 * x + half;
      if (h >= G) continue;
      const double ref = acc[x] / l_tot[h];
      accumulate_element(p, __bfloat162float(a.out[(i * a.hq + g * G + h) * kD + d]), ref);
    }
  }
  __syncthreads();  // red reuses lt: no thread reads it any more
  reduce_block_partial(red, p, &partials[blockIdx.x]);  // blockDim.x == kThreads
}

cuco::Status cuda_status(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return cuco::Status::Ok();
  return cuco::Status::Error(std::string("attention_cp reference: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

const char* workload_name() { return "attention_cp"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  for (const char* name : {"S", "HQ", "HKV", "D", "CAUSAL"})
    if (!s.has(name)) return cuco::Status::Error(std::string("size ") + name + " is missing (give --size " + name + "=...)");
  if (world < 1 || world > kMaxWorld) return cuco::Status::Error("world size must be 1..8");
  const int64_t S = s.get("S"), HQ = s.get("HQ"), HKV = s.get("HKV"), D = s.get("D"), C = s.get("CAUSAL");
  if (D != kD) return cuco::Status::Error("D must be 128 (the attention kernel's head dimension)");
  if (C != 0 && C != 1) return cuco::Status::Error("CAUSAL must be 0 or 1");
  if (HQ <= 0 || HKV <= 0 || HQ % HKV != 0 || HQ / HKV > kMaxGroup || HQ > 256)
    return cuco::Status::Error("HQ must be a positive multiple of HKV with HQ / HKV <= 8 and HQ <= 256");
  if (S <= 0 || S % world != 0)
    return cuco::Status::Error("S=" + std::to_string(S) + " must be a positive multiple of the world size " +
                               std::to_string(world) + " (each rank holds S/W tokens)");
  if (S > (int64_t{1} << 22) || S / world > 65535 * 64) return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int /*rank*/, int world) {
  const Dims d = dims_of(s, world);
  return {
      {"q", Role::kInput, DType::kBF16, d.L * d.HQ * kD},
      {"k", Role::kInput, DType::kBF16, d.L * d.HKV * kD},
      {"v", Role::kInput, DType::kBF16, d.L * d.HKV * kD},
      {"o", Role::kOutput, DType::kBF16, d.L * d.HQ * kD},
  };
}

int64_t output_rows(const cuco::Sizes& s, int /*rank*/, int world) { return s.get("S") / world; }

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const Dims d = dims_of(s, world);
  const int64_t n_q = d.L * d.HQ * kD, n_kv = d.L * d.HKV * kD;
  const uint64_t r = static_cast<uint64_t>(rank);
  int sms = 132, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t blocks = std::min<int64_t>((n_q + 2 * n_kv + 255) / 256, static_cast<int64_t>(sms) * 16);
  fill_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 256, 0, stream>>>(
      static_cast<__nv_bfloat16*>(io.in("q").ptr), n_q, stream_key(seed, kTensorQ, r),
      static_cast<__nv_bfloat16*>(io.in("k").ptr), static_cast<__nv_bfloat16*>(io.in("v").ptr), n_kv,
      stream_key(seed, kTensorK, r), stream_key(seed, kTensorV, r));
  return cuda_status(cudaGetLastError(), "fill_kernel launch");
}

cuco::Status check(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  const Dims d = dims_of(s, world);
  std::vector<int64_t> rows;
  if (cuco::Status st = planned_rows(plan, d.L, &rows); !st.ok()) return st;
  *result = CheckResult{};
  if (rows.empty()) return cuco::Status::Ok();

  RefArgs a{};
  a.out = static_cast<const __nv_bfloat16*>(io.out("o").ptr);
  a.n_rows = static_cast<int64_t>(rows.size());
  a.key_q = stream_key(seed, kTensorQ, static_cast<uint64_t>(rank));
  for (int q = 0; q < world; ++q) {
    a.keys_k[q] = stream_key(seed, kTensorK, static_cast<uint64_t>(q));
    a.keys_v[q] = stream_key(seed, kTensorV, static_cast<uint64_t>(q));
  }
  a.L = d.L;
  a.S = d.S;
  a.r = rank;
  a.hq = static_cast<int>(d.HQ);
  a.hkv = static_cast<int>(d.HKV);
  a.group = static_cast<int>(d.HQ / d.HKV);
  a.causal = d.causal;
  a.scale = 1.0 / std::sqrt(static_cast<double>(kD));
  const int64_t n_pairs = a.n_rows * d.HKV;
  const unsigned grid = static_cast<unsigned>(std::min<int64_t>(n_pairs, kMaxGrid));

  const size_t rows_bytes = rows.size() * sizeof(int64_t), partial_bytes = grid * sizeof(Partial);
  char* scratch = nullptr;
  cuco::Status st = cuda_status(cudaMalloc(&scratch, rows_bytes + partial_bytes), "cudaMalloc scratch");
  if (!st.ok()) return st;
  int64_t* d_rows = reinterpret_cast<int64_t*>(scratch);
  Partial* d_partials = reinterpret_cast<Partial*>(scratch + rows_bytes);
  a.rows = d_rows;
  std::vector<Partial> partials(grid);
  cudaError_t e = cudaMemcpyAsync(d_rows, rows.data(), rows_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    reference_compare_kernel<<<grid, kThreads, 0, stream>>>(a, d_partials);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) e = cudaMemcpyAsync(partials.data(), d_partials, partial_bytes, cudaMemcpyDeviceToHost, stream);
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
  const cudaError_t e_scrub = cudaMemsetAsync(scratch, 0, rows_bytes + partial_bytes, stream);
  const cudaError_t e_sync = cudaStreamSynchronize(stream);
  const cudaError_t e_free = cudaFree(scratch);
  if (e != cudaSuccess) return cuda_status(e, "reference kernel");
  if (e_scrub != cudaSuccess) return cuda_status(e_scrub, "scrub");
  if (e_sync != cudaSuccess) return cuda_status(e_sync, "scrub sync");
  if (e_free != cudaSuccess) return cuda_status(e_free, "cudaFree scratch");

  summarize_partials(partials, static_cast<int64_t>(rows.size()), d.HQ * kD, result);
  return cuco::Status::Ok();
}

}  // namespace cuco_frozen
