// moe_dispatch_combine: the frozen side (inputs, reference, comparison). Candidates never see it.
//
// One DeepSeek-V3 MoE layer under expert parallelism on W ranks. Sizes: T tokens per rank, H
// hidden, F expert intermediate size, E_PER_RANK experts per rank (E = E_PER_RANK W experts in
// all; global expert e lives on rank e / E_PER_RANK as local expert e % E_PER_RANK), TOPK experts
// per token, SKEW (routing imbalance, below).
//
// Inputs (harness buffers, per rank r):
//   x             [T, H] bf16           the rank's tokens
//   topk_ids      [T, TOPK] int32       the router's choices: TOPK DISTINCT global experts per token
//   topk_weights  [T, TOPK] f32         the routing weights, > 0, summing to 1 per token (fp32)
//   w1            [E_PER_RANK, H, 2F] bf16  rank r's experts' gate (columns 0..F-1) and up (F..2F-1)
//                                       projections, row-major
//   w2            [E_PER_RANK, F, H] bf16   rank r's experts' down projections, row-major
// Output:
//   y             [T, H] bf16, y[t] = sum_k topk_weights[t,k] FFN_{topk_ids[t,k]}(x[t]) with
//                 FFN_e(v) = (silu(v W1g_e) * (v W1u_e)) W2_e, silu(z) = z / (1 + exp(-z)).
//
// Routing (the router's output is an input, so the reference stays simple and the candidate still
// has to count, exchange counts and move tokens from the ids). Per token, a pure function of
// (seed, rank, token): expert e is included with probability pi_e (sum_e pi_e = TOPK, each <= 1)
// by systematic sampling over the experts in a cyclic order that starts at a random expert
// (random start u in [0,1): the experts whose cumulative-pi interval contains u + n for an integer
// n; exactly TOPK distinct experts, exact inclusion probabilities). The load factor of expert e is
// r_e and pi_e = TOPK r_e / sum r, capped at 1 (the excess redistributed; iterated):
//   SKEW = 0  uniform: r_e = 1 (every expert gets TOPK T W / E tokens on average)
//   SKEW = 1  the paper-style imbalance: r_e = 1 + 2 j(e) / (E - 1), so the hottest expert gets 3x
//             the tokens of the coldest; j(e) = (e % E_PER_RANK) W + e / E_PER_RANK interleaves hot
//             and cold experts over the ranks (every rank has hot and cold experts; rank loads
//             within ~10%): the imbalance is between the experts of a rank (uneven grouped GEMMs,
//             uneven all-to-all-v blocks)
//   SKEW = 2  as 1 with j(e) = e: the hot experts sit on the last ranks (rank-level imbalance)
// FP8 = 1: the dispatch is fp8 (DeepSeek-V3's): every token's x is quantised to e4m3 in blocks of
// 128 with one fp32 scale each and dequantised before the experts, as cuco/codesign/fp8_blocks.h
// defines it (the same functions here and in the candidates, so bit for bit alike); the reference
// computes the FFNs of those dequantised values. FP8 = 0 (default): bf16 dispatch.
// When E <= TOPK every token goes to every expert and SKEW changes nothing but nothing else (the
// issue's anchor, 2 ranks x 4 experts, top-8, is such a case; run the skews with E_PER_RANK >= 8
// there, when 1.5 TOPK <= E the 3x ratio is exact). Weights: s_k = 0.25 + 0.75 U[0,1) per
// chosen expert, w_k = s_k / sum s (fp32), in the order the experts were chosen.
//
// Value scales: x ~ U(-1,1); W1 ~ U(-1,1) 3/sqrt(H), so gate and up pre-activations have variance
// H (1/3)(3/H) = 1 (O(1), as in a trained model after the norm); W2 ~ U(-1,1) sqrt(3/F), so an
// expert's output has the variance of the activation, E[silu(g)^2 u^2] ~ 0.36 (RMS ~0.6); y has
// RMS ~0.6 sqrt(sum w^2) ~ 0.25 at TOPK = 8. All bf16-rounded as stored.
//
// Reference (fp64, per checked token = one row of H outputs): regenerate the token's routing and
// its experts' weights from the seed, compute the TOPK activations a_k[f] = silu(g) u exactly in
// fp64 (phase 1, one block per (row, k), into scratch), then every output element
// sum_k w_k sum_f a_k[f] W2_e[f][h] (phase 2, inside the frozen row comparison,
// cuco/impl/row_check.h). The scratch is zeroed and freed before check() returns.
#include <cuco/codesign/fp8_blocks.h>
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

constexpr uint64_t kTensorX = 1;
constexpr uint64_t kTensorRoute = 2;
constexpr uint64_t kTensorWeight = 3;
constexpr uint64_t kTensorW1 = 4;
constexpr uint64_t kTensorW2 = 5;
constexpr int kMaxExperts = 64;
constexpr int kMaxTopk = 16;

struct Dims {
  int64_t T = 0, H = 0, F = 0, EPR = 0, K = 0, skew = 0, E = 0, fp8 = 0;
  int W = 1;
};

Dims dims_of(const cuco::Sizes& s, int world) {
  Dims d;
  d.T = s.get("T");
  d.H = s.get("H");
  d.F = s.get("F");
  d.EPR = s.get("E_PER_RANK");
  d.K = s.get("TOPK");
  d.skew = s.get_or("SKEW", 0);
  d.fp8 = s.get_or("FP8", 0);
  d.W = world;
  d.E = d.EPR * world;
  return d;
}

float w1_scale(const Dims& d) { return static_cast<float>(3.0 / std::sqrt(static_cast<double>(d.H))); }
float w2_scale(const Dims& d) { return static_cast<float>(std::sqrt(3.0 / static_cast<double>(d.F))); }

// The router of one rank: inclusion probabilities and the keys of its random streams.
struct Router {
  uint64_t key_route = 0, key_weight = 0;
  int E = 1, K = 1;
  double pi[kMaxExperts] = {};

  // Token t's experts (distinct) and weights, in choice order.
  __host__ __device__ void route(int64_t t, int* ids, float* w) const {
    const uint64_t b0 = element_bits(key_route, static_cast<uint64_t>(t) * 2);
    const uint64_t b1 = element_bits(key_route, static_cast<uint64_t>(t) * 2 + 1);
    const int start = static_cast<int>(b0 % static_cast<uint64_t>(E));
    const double u = static_cast<double>(b1 >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
    int n = 0;
    double cum = 0;
    for (int j = 0; j < E && n < K; ++j) {
      const int e = (start + j) % E;
      cum = j == E - 1 ? static_cast<double>(K) : cum + pi[e];
      if (u + n < cum) ids[n++] = e;
    }
    float sum = 0;
    for (int k = 0; k < K; ++k) {
      const float v = uniform_pm1(key_weight, static_cast<uint64_t>(t * K + k));  // [-1, 1)
      w[k] = 0.25f + 0.375f * (v + 1.0f);
      sum += w[k];
    }
    for (int k = 0; k < K; ++k) w[k] = w[k] / sum;
  }
};

Router router_of(const Dims& d, uint64_t seed, int rank) {
  Router r;
  r.key_route = stream_key(seed, kTensorRoute, static_cast<uint64_t>(rank));
  r.key_weight = stream_key(seed, kTensorWeight, static_cast<uint64_t>(rank));
  r.E = static_cast<int>(d.E);
  r.K = static_cast<int>(d.K);
  std::vector<double> load(static_cast<size_t>(d.E), 1.0);
  for (int64_t e = 0; e < d.E; ++e) {
    const int64_t j = d.skew == 1 ? (e % d.EPR) * d.W + e / d.EPR : e;
    if (d.skew != 0 && d.E > 1) load[static_cast<size_t>(e)] = 1.0 + 2.0 * static_cast<double>(j) / static_cast<double>(d.E - 1);
  }
  // pi_e = K load_e / sum(load), capped at 1, the excess spread over the uncapped experts.
  std::vector<bool> capped(static_cast<size_t>(d.E), false);
  for (int it = 0; it <= d.E; ++it) {
    double free_load = 0;
    int64_t n_capped = 0;
    for (int64_t e = 0; e < d.E; ++e) {
      if (capped[static_cast<size_t>(e)]) ++n_capped;
      else free_load += load[static_cast<size_t>(e)];
    }
    bool changed = false;
    for (int64_t e = 0; e < d.E; ++e) {
      if (capped[static_cast<size_t>(e)]) {
        r.pi[e] = 1.0;
        continue;
      }
      r.pi[e] = static_cast<double>(d.K - n_capped) * load[static_cast<size_t>(e)] / free_load;
      if (r.pi[e] > 1.0) {
        capped[static_cast<size_t>(e)] = true;
        changed = true;
      }
    }
    if (!changed) break;
  }
  return r;
}

__device__ __forceinline__ float x_value(uint64_t key, uint64_t i) { return bf16_round(uniform_pm1(key, i)); }
__device__ __forceinline__ float w_value(uint64_t key, uint64_t i, float scale) {
  return bf16_round(uniform_pm1(key, i) * scale);
}

struct FillArgs {
  __nv_bfloat16 *x, *w1, *w2;
  int32_t* ids;
  float* weights;
  int64_t n_x, n_w1, n_w2, T;
  uint64_t key_x, key_w1, key_w2;
  uint64_t w1_base, w2_base;  // global element index of this rank's first expert
  float s1, s2;
};

__global__ void fill_kernel(FillArgs a) {
  const int64_t total = a.n_x + a.n_w1 + a.n_w2;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += stride) {
    if (i < a.n_x) {
      a.x[i] = __float2bfloat16_rn(x_value(a.key_x, static_cast<uint64_t>(i)));
    } else if (i < a.n_x + a.n_w1) {
      const int64_t k = i - a.n_x;
      a.w1[k] = __float2bfloat16_rn(w_value(a.key_w1, a.w1_base + static_cast<uint64_t>(k), a.s1));
    } else {
      const int64_t k = i - a.n_x - a.n_w1;
      a.w2[k] = __float2bfloat16_rn(w_value(a.key_w2, a.w2_base + static_cast<uint64_t>(k), a.s2));
    }
  }
}

__global__ void route_kernel(Router r, int64_t T, int32_t* ids, float* weights) {
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < T;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    int id[kMaxTopk];
    float w[kMaxTopk];
    r.route(t, id, w);
    for (int k = 0; k < r.K; ++k) {
      ids[t * r.K + k] = id[k];
      weights[t * r.K + k] = w[k];
    }
  }
}

// Phase 1: act[(i K + k) F + f] = silu(g) u in fp64 for checked row i (token rows[i]), choice k.
struct ActArgs {
  Router router;
  const int64_t* rows;
  double* act;
  int64_t H, F;
  uint64_t key_x, key_w1;
  float s1;
  bool fp8;  // x through the fp8 round trip first
};

__global__ void act_kernel(ActArgs a) {
  extern __shared__ double xs[];  // the token's H inputs
  const int64_t i = blockIdx.x;
  const int k = static_cast<int>(blockIdx.y);
  const int64_t t = a.rows[i];
  int ids[kMaxTopk];
  float w[kMaxTopk];
  a.router.route(t, ids, w);
  const int64_t e = ids[k];
  for (int64_t h = threadIdx.x; h < a.H; h += blockDim.x)
    xs[h] = x_value(a.key_x, static_cast<uint64_t>(t * a.H + h));
  __syncthreads();
  if (a.fp8) {  // each 128-block: its amax, its scale, every element's round trip
    for (int64_t b = threadIdx.x; b < a.H / cuco::codesign::kFp8Block; b += blockDim.x) {
      double* blk = xs + b * cuco::codesign::kFp8Block;
      float amax = 0.0f;
      for (int j = 0; j < cuco::codesign::kFp8Block; ++j) amax = fmaxf(amax, fabsf(static_cast<float>(blk[j])));
      const float scale = cuco::codesign::fp8_block_scale(amax);
      for (int j = 0; j < cuco::codesign::kFp8Block; ++j)
        blk[j] = __bfloat162float(cuco::codesign::fp8_round_trip(static_cast<float>(blk[j]), scale));
    }
    __syncthreads();
  }
  const int64_t n2 = 2 * a.F;
  for (int64_t f = threadIdx.x; f < a.F; f += blockDim.x) {
    double g = 0, u = 0;
    for (int64_t h = 0; h < a.H; ++h) {
      const uint64_t base = static_cast<uint64_t>((e * a.H + h) * n2);
      g += xs[h] * static_cast<double>(w_value(a.key_w1, base + static_cast<uint64_t>(f), a.s1));
      u += xs[h] * static_cast<double>(w_value(a.key_w1, base + static_cast<uint64_t>(a.F + f), a.s1));
    }
    a.act[(i * a.router.K + k) * a.F + f] = g / (1.0 + exp(-g)) * u;
  }
}

// Phase 2, element e of y: sum_k w_k sum_f act_k[f] W2_{id_k}[f][h].
struct Expected {
  Router router;
  const int32_t* slot;  // token -> checked-row index (every compared token has one)
  const double* act;
  int64_t H, F;
  uint64_t key_w2;
  float s2;

  __device__ double operator()(int64_t el) const {
    const int64_t t = el / H, h = el % H;
    int ids[kMaxTopk];
    float w[kMaxTopk];
    router.route(t, ids, w);
    const double* a = act + static_cast<int64_t>(slot[t]) * router.K * F;
    double y = 0;
    for (int k = 0; k < router.K; ++k) {
      double acc = 0;
      const uint64_t base = static_cast<uint64_t>(ids[k]) * static_cast<uint64_t>(F * H) + static_cast<uint64_t>(h);
      for (int64_t f = 0; f < F; ++f)
        acc += a[k * F + f] * static_cast<double>(w_value(key_w2, base + static_cast<uint64_t>(f * H), s2));
      y += static_cast<double>(w[k]) * acc;
    }
    return y;
  }
};

}  // namespace

const char* workload_name() { return "moe_dispatch_combine"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  for (const char* name : {"T", "H", "F", "E_PER_RANK", "TOPK"}) {
    if (!s.has(name)) return cuco::Status::Error(std::string("size ") + name + " is missing (give --size " + name + "=...)");
    if (s.get(name) <= 0) return cuco::Status::Error(std::string("size ") + name + " must be > 0");
  }
  const Dims d = dims_of(s, world);
  if (d.skew < 0 || d.skew > 2) return cuco::Status::Error("SKEW must be 0 (uniform), 1 (interleaved 3x) or 2 (blocked 3x)");
  if (d.fp8 != 0 && d.fp8 != 1) return cuco::Status::Error("FP8 must be 0 (bf16 dispatch) or 1 (e4m3, 128-blocks)");
  if (d.fp8 && d.H % cuco::codesign::kFp8Block != 0) return cuco::Status::Error("FP8 = 1 needs H a multiple of 128");
  if (world < 1 || world > 8) return cuco::Status::Error("moe_dispatch_combine runs on 1 to 8 ranks");
  if (d.E > kMaxExperts) return cuco::Status::Error("at most 64 experts in all (E_PER_RANK x world)");
  if (d.K > kMaxTopk || d.K > d.E)
    return cuco::Status::Error("TOPK must be <= 16 and <= E = E_PER_RANK x world = " + std::to_string(d.E));
  if (d.H % 8 != 0 || d.F % 8 != 0) return cuco::Status::Error("H and F must be multiples of 8 (16-byte rows of bf16)");
  if (d.H > 16384 || d.F > 16384 || d.T > (int64_t{1} << 20) ||
      static_cast<double>(d.EPR) * d.H * 2 * d.F > 4e9 || static_cast<double>(d.T) * d.H > 4e9)
    return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int /*rank*/, int world) {
  const Dims d = dims_of(s, world);
  return {
      {"x", Role::kInput, DType::kBF16, d.T * d.H},
      {"topk_ids", Role::kInput, DType::kI32, d.T * d.K},
      {"topk_weights", Role::kInput, DType::kF32, d.T * d.K},
      {"w1", Role::kInput, DType::kBF16, d.EPR * d.H * 2 * d.F},
      {"w2", Role::kInput, DType::kBF16, d.EPR * d.F * d.H},
      {"y", Role::kOutput, DType::kBF16, d.T * d.H},
  };
}

int64_t output_rows(const cuco::Sizes& s, int /*rank*/, int /*world*/) { return s.get("T"); }

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const Dims d = dims_of(s, world);
  FillArgs a{};
  a.x = static_cast<__nv_bfloat16*>(io.in("x").ptr);
  a.w1 = static_cast<__nv_bfloat16*>(io.in("w1").ptr);
  a.w2 = static_cast<__nv_bfloat16*>(io.in("w2").ptr);
  a.n_x = d.T * d.H;
  a.n_w1 = d.EPR * d.H * 2 * d.F;
  a.n_w2 = d.EPR * d.F * d.H;
  a.T = d.T;
  a.key_x = stream_key(seed, kTensorX, static_cast<uint64_t>(rank));
  a.key_w1 = stream_key(seed, kTensorW1, 0);  // indexed by GLOBAL expert: any rank can regenerate any expert
  a.key_w2 = stream_key(seed, kTensorW2, 0);
  a.w1_base = static_cast<uint64_t>(rank) * static_cast<uint64_t>(a.n_w1);
  a.w2_base = static_cast<uint64_t>(rank) * static_cast<uint64_t>(a.n_w2);
  a.s1 = w1_scale(d);
  a.s2 = w2_scale(d);
  int sms = 132, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t total = a.n_x + a.n_w1 + a.n_w2;
  const int64_t blocks = std::min<int64_t>((total + 255) / 256, static_cast<int64_t>(sms) * 16);
  fill_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 256, 0, stream>>>(a);
  const Router r = router_of(d, seed, rank);
  route_kernel<<<static_cast<unsigned>((d.T + 127) / 128), 128, 0, stream>>>(
      r, d.T, static_cast<int32_t*>(io.in("topk_ids").ptr), static_cast<float*>(io.in("topk_weights").ptr));
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? cuco::Status::Ok()
                          : cuco::Status::Error(std::string("moe fill kernels launch: ") + cudaGetErrorString(e));
}

cuco::Status check(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  const Dims d = dims_of(s, world);
  std::vector<int64_t> rows;
  cuco::Status st = planned_rows(plan, output_rows(s, rank, world), &rows);
  if (!st.ok() || rows.empty()) {
    *result = CheckResult{};
    return st;
  }
  const int64_t n = static_cast<int64_t>(rows.size());
  const size_t act_bytes = static_cast<size_t>(n * d.K * d.F) * sizeof(double);
  const size_t rows_bytes = static_cast<size_t>(n) * sizeof(int64_t);
  const size_t slot_bytes = static_cast<size_t>(d.T) * sizeof(int32_t);
  const size_t total = act_bytes + rows_bytes + slot_bytes;
  char* scratch = nullptr;
  cudaError_t e = cudaMalloc(&scratch, total);
  if (e != cudaSuccess) return cuco::Status::Error(std::string("moe check: cudaMalloc: ") + cudaGetErrorString(e));
  auto* act = reinterpret_cast<double*>(scratch);
  auto* d_rows = reinterpret_cast<int64_t*>(scratch + act_bytes);
  auto* d_slot = reinterpret_cast<int32_t*>(scratch + act_bytes + rows_bytes);
  std::vector<int32_t> slot(static_cast<size_t>(d.T), -1);
  for (int64_t i = 0; i < n; ++i) slot[static_cast<size_t>(rows[static_cast<size_t>(i)])] = static_cast<int32_t>(i);
  const Router router = router_of(d, seed, rank);
  e = cudaMemcpyAsync(d_rows, rows.data(), rows_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) e = cudaMemcpyAsync(d_slot, slot.data(), slot_bytes, cudaMemcpyHostToDevice, stream);
  if (e == cudaSuccess) {
    ActArgs a{};
    a.router = router;
    a.rows = d_rows;
    a.act = act;
    a.H = d.H;
    a.F = d.F;
    a.key_x = stream_key(seed, kTensorX, static_cast<uint64_t>(rank));
    a.key_w1 = stream_key(seed, kTensorW1, 0);
    a.s1 = w1_scale(d);
    a.fp8 = d.fp8 != 0;
    const size_t shared = static_cast<size_t>(d.H) * sizeof(double);
    if (shared > 48 * 1024) cudaFuncSetAttribute(act_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared));
    act_kernel<<<dim3(static_cast<unsigned>(n), static_cast<unsigned>(d.K)), 256, shared, stream>>>(a);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {
    Expected ex{};
    ex.router = router;
    ex.slot = d_slot;
    ex.act = act;
    ex.H = d.H;
    ex.F = d.F;
    ex.key_w2 = stream_key(seed, kTensorW2, 0);
    ex.s2 = w2_scale(d);
    st = check_rows(static_cast<const __nv_bfloat16*>(io.out("y").ptr), rows, d.H, ex, stream, result);
  }
  const cudaError_t scrub = cudaMemsetAsync(scratch, 0, total, stream);
  const cudaError_t sync = cudaStreamSynchronize(stream);
  const cudaError_t freed = cudaFree(scratch);
  if (e != cudaSuccess) return cuco::Status::Error(std::string("moe check: ") + cudaGetErrorString(e));
  if (!st.ok()) return st;
  if (scrub != cudaSuccess || sync != cudaSuccess || freed != cudaSuccess)
    return cuco::Status::Error("moe check: scrubbing the scratch failed");
  return cuco::Status::Ok();
}

}  // namespace cuco_frozen
