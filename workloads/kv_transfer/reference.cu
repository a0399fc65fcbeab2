// kv_transfer: the frozen side (inputs, reference, comparison). Candidates never see it.
//
// Disaggregated serving on 2 ranks: rank 0 (prefill) computes the K/V cache of L layers, rank 1
// (decode) must end with all of it in its paged KV cache.
//
// Sizes: L layers, S tokens, H hidden, KVH KV heads, D head dim, P page size (tokens per page,
// divides S); N = 2 KVH D (K and V side by side), pages = S / P.
//
// Inputs (harness buffers):
//   X           [L, S, H] bf16, rank 0 only (rank 1's has 0 elements): layer l's input hidden states
//   W           [L, H, N] bf16, rank 0 only: layer l's K and V projections side by side
//               (column (kv KVH + h) D + d is head h, element d of K (kv = 0) or V (kv = 1))
//   page_table  [pages] int32, the SAME table on both ranks (the decode rank's allocation, told to
//               the prefill rank ahead of time as a serving scheduler does): logical page p of the
//               sequence is stored at physical page page_table[p]; a random permutation of
//               [0, pages) (a 4-round Feistel network on the seed, cycle-walked into range: a pure
//               function of (seed, index), invertible, so the reference never builds a table).
// Output:
//   cache       rank 1: [L][pages][2][KVH][P][D] bf16, physical page order (FlashInfer's "HND"
//               paged layout per layer); cache[l][page_table[p]][kv][h][t][d] = KV_l[p P + t][(kv KVH + h) D + d]
//               with KV_l = X_l W_l (fp32 accumulate, one bf16 rounding).
//               rank 0: 0 elements (nothing to check; the prefill rank's job is to compute and send).
//
// Row unit of the check: one (layer, physical page, kv, head) block of P D contiguous elements;
// rank 1 has L pages 2 KVH rows. Small sizes are checked fully, bench sizes by sampled rows.
//
// Inputs (scaled so that K/V are O(1)): X ~ U(-1, 1), W ~ U(-1, 1) sqrt(3 / H), both bf16-rounded as
// stored, so every K/V element has variance H (1/3)(1/H) = 1/3 (|KV| ~ 0.58, ~3.5 at the extreme of
// 537M elements). Each element is a pure function of (seed, tensor, index) (cuco/impl/random.h).
//
// Reference: the expected value of each compared element is the length-H inner product in fp64
// (bf16 x bf16 products are exact), recomputed from the seed per element inside the frozen
// comparison (cuco/impl/row_check.h); the page of a physical page comes from inverting the
// permutation, not from the candidate-visible table. Nothing of the reference is left in memory.
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
constexpr uint64_t kTensorW = 2;
constexpr uint64_t kTensorPageTable = 3;
constexpr int kPrefill = 0;
constexpr int kDecode = 1;

struct Dims {
  int64_t L = 0, S = 0, H = 0, KVH = 0, D = 0, P = 0, N = 0, pages = 0;
};

Dims dims_of(const cuco::Sizes& s) {
  Dims d;
  d.L = s.get("L");
  d.S = s.get("S");
  d.H = s.get("H");
  d.KVH = s.get("KVH");
  d.D = s.get("D");
  d.P = s.get("P");
  d.N = 2 * d.KVH * d.D;
  d.pages = d.P > 0 ? d.S / d.P : 0;
  return d;
}

float w_scale(const Dims& d) { return static_cast<float>(std::sqrt(3.0 / static_cast<double>(d.H))); }

__device__ __forceinline__ float x_value(uint64_t key, uint64_t index) { return bf16_round(uniform_pm1(key, index)); }
__device__ __forceinline__ float w_value(uint64_t key, uint64_t index, float scale) {
  return bf16_round(uniform_pm1(key, index) * scale);
}

// The page permutation: a balanced 4-round Feistel network on 2 * half_bits bits (the smallest
// domain 4^half_bits >= pages), cycle-walked into [0, pages). A bijection of [0, pages).
struct PagePermutation {
  uint64_t key = 0;
  uint32_t n = 1;
  int half_bits = 1;

  __host__ __device__ uint32_t round_fn(int round, uint32_t half) const {
    return static_cast<uint32_t>(mix64(key ^ (static_cast<uint64_t>(round + 1) << 40) ^ half)) &
           ((1u << half_bits) - 1u);
  }
  __host__ __device__ uint32_t encrypt(uint32_t x) const {
    const uint32_t mask = (1u << half_bits) - 1u;
    uint32_t l = x >> half_bits, r = x & mask;
    for (int k = 0; k < 4; ++k) {
      const uint32_t nl = r, nr = l ^ round_fn(k, r);
      l = nl;
      r = nr;
    }
    return (l << half_bits) | r;
  }
  __host__ __device__ uint32_t decrypt(uint32_t y) const {
    const uint32_t mask = (1u << half_bits) - 1u;
    uint32_t l = y >> half_bits, r = y & mask;
    for (int k = 3; k >= 0; --k) {
      const uint32_t pr = l, pl = r ^ round_fn(k, l);
      l = pl;
      r = pr;
    }
    return (l << half_bits) | r;
  }
  // page_table[p]: the physical page of logical page p.
  __host__ __device__ uint32_t forward(uint32_t p) const {
    uint32_t y = encrypt(p);
    while (y >= n) y = encrypt(y);
    return y;
  }
  // The logical page stored at physical page q.
  __host__ __device__ uint32_t inverse(uint32_t q) const {
    uint32_t x = decrypt(q);
    while (x >= n) x = decrypt(x);
    return x;
  }
};

PagePermutation permutation_of(uint64_t seed, int64_t pages) {
  PagePermutation p;
  p.key = stream_key(seed, kTensorPageTable, 0);  // rank-independent: one table for both ranks
  p.n = static_cast<uint32_t>(pages);
  while ((int64_t{1} << (2 * p.half_bits)) < pages) ++p.half_bits;
  return p;
}

__global__ void fill_kernel(__nv_bfloat16* X, int64_t n_x, uint64_t key_x, __nv_bfloat16* W, int64_t n_w,
                            uint64_t key_w, float scale, int32_t* table, int64_t n_t, PagePermutation perm) {
  const int64_t total = n_x + n_w + n_t;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (i < n_x) {
      X[i] = __float2bfloat16_rn(x_value(key_x, static_cast<uint64_t>(i)));
    } else if (i < n_x + n_w) {
      const int64_t k = i - n_x;
      W[k] = __float2bfloat16_rn(w_value(key_w, static_cast<uint64_t>(k), scale));
    } else {
      const int64_t p = i - n_x - n_w;
      table[p] = static_cast<int32_t>(perm.forward(static_cast<uint32_t>(p)));
    }
  }
}

// Element e of the decode rank's cache.
struct Expected {
  uint64_t key_x, key_w;
  PagePermutation perm;
  int64_t S, H, N, KVH, D, P, pages;
  float scale;

  __device__ double operator()(int64_t e) const {
    const int64_t d = e % D;
    e /= D;
    const int64_t t_in = e % P;
    e /= P;
    const int64_t h = e % KVH;
    e /= KVH;
    const int64_t kv = e % 2;
    e /= 2;
    const int64_t phys = e % pages;
    const int64_t l = e / pages;
    const int64_t t = static_cast<int64_t>(perm.inverse(static_cast<uint32_t>(phys))) * P + t_in;
    const int64_t col = (kv * KVH + h) * D + d;
    const uint64_t x0 = static_cast<uint64_t>((l * S + t) * H);
    const uint64_t w0 = static_cast<uint64_t>(l * H * N + col);
    double acc = 0;
    for (int64_t k = 0; k < H; ++k)
      acc += static_cast<double>(x_value(key_x, x0 + static_cast<uint64_t>(k))) *
             static_cast<double>(w_value(key_w, w0 + static_cast<uint64_t>(k * N), scale));
    return acc;
  }
};

}  // namespace

const char* workload_name() { return "kv_transfer"; }

cuco::Status validate_sizes(const cuco::Sizes& s, int world) {
  for (const char* name : {"L", "S", "H", "KVH", "D", "P"}) {
    if (!s.has(name)) return cuco::Status::Error(std::string("size ") + name + " is missing (give --size " + name + "=...)");
    if (s.get(name) <= 0) return cuco::Status::Error(std::string("size ") + name + " must be > 0");
  }
  if (world != 2) return cuco::Status::Error("kv_transfer runs on exactly 2 ranks (0: prefill, 1: decode)");
  const Dims d = dims_of(s);
  if (d.S % d.P != 0)
    return cuco::Status::Error("the page size P=" + std::to_string(d.P) + " must divide S=" + std::to_string(d.S));
  if (d.D % 8 != 0 || d.H % 8 != 0)
    return cuco::Status::Error("D and H must be multiples of 8 (16-byte rows of bf16)");
  if (d.pages >= (int64_t{1} << 30) || d.L > 4096 || d.KVH > 1024 || d.D > 4096 || d.H > (int64_t{1} << 20) ||
      static_cast<double>(d.L) * d.S * std::max(d.H, d.N) > 1.7e10 || static_cast<double>(d.L) * d.H * d.N > 1.7e10)
    return cuco::Status::Error("sizes are too large");
  return cuco::Status::Ok();
}

std::vector<BufferSpec> buffers(const cuco::Sizes& s, int rank, int /*world*/) {
  const Dims d = dims_of(s);
  const bool prefill = rank == kPrefill, decode = rank == kDecode;
  return {
      {"X", Role::kInput, DType::kBF16, prefill ? d.L * d.S * d.H : 0},
      {"W", Role::kInput, DType::kBF16, prefill ? d.L * d.H * d.N : 0},
      {"page_table", Role::kInput, DType::kI32, d.pages},
      {"cache", Role::kOutput, DType::kBF16, decode ? d.L * d.S * d.N : 0},
  };
}

int64_t output_rows(const cuco::Sizes& s, int rank, int /*world*/) {
  const Dims d = dims_of(s);
  return rank == kDecode ? d.L * d.pages * 2 * d.KVH : 0;
}

cuco::Status fill_inputs(const cuco::Sizes& s, int rank, int /*world*/, uint64_t seed, const cuco::IO& io,
                         cudaStream_t stream) {
  const Dims d = dims_of(s);
  const bool prefill = rank == kPrefill;
  const int64_t n_x = prefill ? d.L * d.S * d.H : 0, n_w = prefill ? d.L * d.H * d.N : 0, n_t = d.pages;
  int sms = 132, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  const int64_t blocks = std::min<int64_t>((n_x + n_w + n_t + 255) / 256, static_cast<int64_t>(sms) * 16);
  fill_kernel<<<static_cast<unsigned>(std::max<int64_t>(blocks, 1)), 256, 0, stream>>>(
      static_cast<__nv_bfloat16*>(io.in("X").ptr), n_x, stream_key(seed, kTensorX, 0),
      static_cast<__nv_bfloat16*>(io.in("W").ptr), n_w, stream_key(seed, kTensorW, 0), w_scale(d),
      static_cast<int32_t*>(io.in("page_table").ptr), n_t, permutation_of(seed, d.pages));
  const cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? cuco::Status::Ok()
                          : cuco::Status::Error(std::string("kv_transfer fill_kernel launch: ") + cudaGetErrorString(e));
}

cuco::Status check(const cuco::Sizes& s, int rank, int world, uint64_t seed, const cuco::IO& io, const CheckPlan& plan,
                   cudaStream_t stream, CheckResult* result) {
  const Dims d = dims_of(s);
  std::vector<int64_t> rows;
  cuco::Status st = planned_rows(plan, output_rows(s, rank, world), &rows);  // rank 0: none
  if (!st.ok()) return st;
  Expected expected{};
  expected.key_x = stream_key(seed, kTensorX, 0);
  expected.key_w = stream_key(seed, kTensorW, 0);
  expected.perm = permutation_of(seed, d.pages);
  expected.S = d.S;
  expected.H = d.H;
  expected.N = d.N;
  expected.KVH = d.KVH;
  expected.D = d.D;
  expected.P = d.P;
  expected.pages = d.pages;
  expected.scale = w_scale(d);
  return check_rows(static_cast<const __nv_bfloat16*>(io.out("cache").ptr), rows, d.P * d.D, expected, stream, result);
}

}  // namespace cuco_frozen
