// GPU test of the attention block (runtime/include/cuco/codesign/attention.h) on one GPU:
// attention_forward against a naive fp32 reference (every element of O and LSE) for non-causal,
// causal on the diagonal, causal partially visible blocks (including rows that see nothing),
// a block wholly in the future, fp32 output, both CTA sizes; attention_merge (bf16 and fp32
// partials, in place, a partial that is -inf on some rows, fp32 -> bf16 conversion); the fused
// accumulate epilogue (a two-step ring). Fresh random data every run (seeded from the clock).
// Then timings (median of 5, CUDA events) of the context-parallel shapes, in TFLOP/s.
//
// Tolerances (inputs: Q, K, V uniform in [-1, 1], Q times 2, so scaled scores have std ~0.65;
// reference: fp32 from the same bf16 inputs, P in fp32):
//   O: |got - ref| <= 4e-3 + 1e-2 |ref|. The kernel rounds P to bf16 before P V (relative error
//      <= 2^-9 per p_j), which moves O by at most 2^-9 max|V| = 2.0e-3; a bf16 O adds 2^-9 |ref|
//      (fp32 O: none); a bf16 partial fed to a merge adds another 2^-9 |O_part|; fp32 summation
//      order and ex2.approx are ~1e-6 relative.
//   LSE: |got - ref| <= 1e-3 (ex2.approx / log2 approx errors are ~1e-6 relative); -inf must
//      match -inf exactly.
// NaN anywhere fails.
//
// Built twice by tests/gpu/run_attention_single_gpu.sh <outdir> (GPU machine): as is, it tests
// attention.h's kernel; with -DCUCO_TEST_CUDNN, codesign/cudnn_attention.h (cuDNN's fused SDPA,
// linked with runtime/src/cudnn_sdpa.cu, -lcudnn -lnvrtc) against the same reference and checks.
#include <cuco/codesign/attention.h>
#include <cuco/harness.h>
#ifdef CUCO_TEST_CUDNN
#include <cuco/codesign/cudnn_attention.h>
#endif

#include <cuda_bf16.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_check.h"

namespace cd = cuco::codesign;

namespace {

// The implementation under test.
#ifdef CUCO_TEST_CUDNN
const char* const kImpl = "CudnnAttention::forward (cuDNN SDPA)";
cuco::Status Forward(const cd::AttentionArgs& a, cudaStream_t s) {
  static cd::CudnnAttention attn;
  return attn.forward(a, s);
}
const int kBlockMs[] = {128};  // cuDNN picks its own tiles
#else
const char* const kImpl = "attention_forward (attention.h)";
cuco::Status Forward(const cd::AttentionArgs& a, cudaStream_t s) { return cd::attention_forward(a, s); }
const int kBlockMs[] = {128, 64};
#endif

__device__ uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  return x ^ (x >> 33);
}

__global__ void fill_bf16(__nv_bfloat16* p, size_t n, uint64_t seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const float u = static_cast<float>(mix(seed + i) >> 40) / static_cast<float>(1ULL << 24) * 2.0f - 1.0f;
    p[i] = __float2bfloat16_rn(u * scale);
  }
}

__global__ void fill_f32(float* p, size_t n, float v) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x)
    p[i] = v;
}

uint64_t fresh_seed() {
  static uint64_t bump = 0;
  return (static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count()) + ++bump) *
         0x9E3779B97F4A7C15ULL;
}

// Naive reference: one CTA (128 threads) per (query row, head); scores in shared memory (sk floats).
__global__ void ref_attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, float* o,
                              float* lse, int64_t sq, int64_t sk, int hq, int hkv, int d, float scale, bool causal,
                              int64_t q_off, int64_t k_off) {
  extern __shared__ float sh[];
  float* qs = sh;          // d
  float* sc = sh + d;      // sk
  __shared__ float red[32];
  const int64_t row = blockIdx.x;
  const int h = blockIdx.y, hk = h / (hq / hkv);
  const int tid = threadIdx.x, nt = blockDim.x;
  for (int i = tid; i < d; i += nt) qs[i] = __bfloat162float(q[(row * hq + h) * d + i]);
  __syncthreads();
  float mx = -INFINITY;
  for (int64_t j = tid; j < sk; j += nt) {
    float s = -INFINITY;
    if (!causal || k_off + j <= q_off + row) {
      const __nv_bfloat16* kr = k + (j * hkv + hk) * d;
      float acc = 0;
      for (int i = 0; i < d; ++i) acc += qs[i] * __bfloat162float(kr[i]);
      s = acc * scale;
    }
    sc[j] = s;
    mx = fmaxf(mx, s);
  }
  for (int w = 16; w; w >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, w));
  if ((tid & 31) == 0) red[tid >> 5] = mx;
  __syncthreads();
  mx = -INFINITY;
  for (int i = 0; i < nt / 32; ++i) mx = fmaxf(mx, red[i]);
  __syncthreads();
  if (mx == -INFINITY) {
    for (int i = tid; i < d; i += nt) o[(row * hq + h) * d + i] = 0.0f;
    if (tid == 0) lse[h * sq + row] = -INFINITY;
    return;
  }
  float l = 0;
  for (int64_t j = tid; j < sk; j += nt) {
    const float pj = expf(sc[j] - mx);
    sc[j] = pj;
    l += pj;
  }
  for (int w = 16; w; w >>= 1) l += __shfl_xor_sync(0xffffffffu, l, w);
  if ((tid & 31) == 0) red[tid >> 5] = l;
  __syncthreads();
  l = 0;
  for (int i = 0; i < nt / 32; ++i) l += red[i];
  for (int i = tid; i < d; i += nt) {
    float acc = 0;
    for (int64_t j = 0; j < sk; ++j) acc += sc[j] * __bfloat162float(v[(j * hkv + hk) * d + i]);
    o[(row * hq + h) * d + i] = acc / l;
  }
  if (tid == 0) lse[h * sq + row] = mx + logf(l);
}

struct Errs {
  unsigned long long bad_o, bad_lse;
  unsigned int max_o_bits, max_lse_bits;  // float bits of non-negative maxima (NaN: 0x7fffffff)
};

__device__ void upd_max(unsigned int* p, float e) {
  atomicMax(p, isnan(e) ? 0x7fffffffu : __float_as_uint(fabsf(e)));
}

__global__ void compare(const void* got, int fp32, const float* got_lse, const float* ref, const float* ref_lse,
                        int64_t n_o, int64_t n_lse, float atol, float rtol, float lse_tol, Errs* e) {
  unsigned long long bo = 0, bl = 0;
  float mo = 0, ml = 0;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_o;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float g = fp32 ? static_cast<const float*>(got)[i] : __bfloat162float(static_cast<const __nv_bfloat16*>(got)[i]);
    const float r = ref[i];
    const float d = fabsf(g - r);
    if (!(d <= atol + rtol * fabsf(r))) ++bo;  // NaN fails
    mo = (isnan(d) || d > mo) ? (isnan(d) ? NAN : d) : mo;
  }
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n_lse;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float g = got_lse[i], r = ref_lse[i];
    bool ok;
    float d = 0;
    if (isinf(r) || isinf(g)) {
      ok = g == r;
      d = ok ? 0.0f : INFINITY;
    } else {
      d = fabsf(g - r);
      ok = d <= lse_tol;
    }
    if (!ok) ++bl;
    ml = (isnan(d) || d > ml) ? (isnan(d) ? NAN : d) : ml;
  }
  if (bo) atomicAdd(&e->bad_o, bo);
  if (bl) atomicAdd(&e->bad_lse, bl);
  upd_max(&e->max_o_bits, mo);
  upd_max(&e->max_lse_bits, ml);
}

struct Problem {
  int64_t sq, sk;
  int hq = 32, hkv = 8, d = 128;
  __nv_bfloat16 *q = nullptr, *k = nullptr, *v = nullptr;
  float *ref_o = nullptr, *ref_lse = nullptr;

  Problem(int64_t sq_, int64_t sk_) : sq(sq_), sk(sk_) {
    REQUIRE_CUDA(cudaMalloc(&q, sq * hq * d * 2));
    REQUIRE_CUDA(cudaMalloc(&k, sk * hkv * d * 2));
    REQUIRE_CUDA(cudaMalloc(&v, sk * hkv * d * 2));
    REQUIRE_CUDA(cudaMalloc(&ref_o, sq * hq * d * 4));
    REQUIRE_CUDA(cudaMalloc(&ref_lse, sq * hq * 4));
    fill_bf16<<<1024, 256>>>(q, sq * hq * d, fresh_seed(), 2.0f);
    fill_bf16<<<1024, 256>>>(k, sk * hkv * d, fresh_seed(), 1.0f);
    fill_bf16<<<1024, 256>>>(v, sk * hkv * d, fresh_seed(), 1.0f);
    REQUIRE_CUDA(cudaGetLastError());
  }
  ~Problem() {
    cudaFree(q);
    cudaFree(k);
    cudaFree(v);
    cudaFree(ref_o);
    cudaFree(ref_lse);
  }
  // Reference over all sk keys with these offsets.
  void reference(bool causal, int64_t q_off, int64_t k_off) {
    const size_t smem = (d + sk) * sizeof(float);
    REQUIRE_CUDA(cudaFuncSetAttribute(ref_attention, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024));
    ref_attention<<<dim3(static_cast<unsigned>(sq), hq), 128, smem>>>(q, k, v, ref_o, ref_lse, sq, sk, hq, hkv, d,
                                                                     1.0f / std::sqrt(static_cast<float>(d)), causal,
                                                                     q_off, k_off);
    REQUIRE_CUDA(cudaGetLastError());
  }
  cd::AttentionArgs args(void* o, cd::AttnDtype dt, float* lse, bool causal, int64_t q_off, int64_t k_off,
                         int64_t key_begin, int64_t key_count, int block_m = 128) const {
    cd::AttentionArgs a;
    a.q = q;
    a.k = k + key_begin * hkv * d;
    a.v = v + key_begin * hkv * d;
    a.o = o;
    a.lse = lse;
    a.o_dtype = dt;
    a.sq = sq;
    a.sk = key_count;
    a.hq = hq;
    a.hkv = hkv;
    a.d = d;
    a.causal = causal;
    a.q_offset = q_off;
    a.k_offset = k_off + key_begin;
    a.block_m = block_m;
    return a;
  }
  // Compares (o, lse) with the reference; extra_rtol for results that went through bf16 twice.
  void check(const std::string& name, const void* o, cd::AttnDtype dt, const float* lse, float extra_rtol = 0.0f) {
    Errs* e = nullptr;
    REQUIRE_CUDA(cudaMalloc(&e, sizeof(Errs)));
    REQUIRE_CUDA(cudaMemset(e, 0, sizeof(Errs)));
    compare<<<512, 256>>>(o, dt == cd::AttnDtype::kFp32, lse, ref_o, ref_lse, sq * hq * d, sq * hq, 4e-3f,
                          1e-2f + extra_rtol, 1e-3f, e);
    REQUIRE_CUDA(cudaGetLastError());
    Errs h{};
    REQUIRE_CUDA(cudaMemcpy(&h, e, sizeof h, cudaMemcpyDeviceToHost));
    cudaFree(e);
    float mo, ml;
    std::memcpy(&mo, &h.max_o_bits, 4);
    std::memcpy(&ml, &h.max_lse_bits, 4);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%lld x %lld, O bad %llu of %lld (max err %.3g), LSE bad %llu of %lld (max err %.3g)",
                  static_cast<long long>(sq), static_cast<long long>(sk), h.bad_o, static_cast<long long>(sq * hq * d),
                  mo, h.bad_lse, static_cast<long long>(sq * hq), ml);
    report(name, h.bad_o == 0 && h.bad_lse == 0, buf);
  }
};

struct Out {
  void* o = nullptr;
  float* lse = nullptr;
  cd::AttnDtype dt;
  Out(const Problem& p, cd::AttnDtype dt_) : dt(dt_) {
    const size_t es = dt == cd::AttnDtype::kFp32 ? 4 : 2;
    REQUIRE_CUDA(cudaMalloc(&o, p.sq * p.hq * p.d * es));
    REQUIRE_CUDA(cudaMalloc(&lse, p.sq * p.hq * 4));
    // Poison: NaN-ish bytes, so unwritten elements fail.
    REQUIRE_CUDA(cudaMemset(o, 0xff, p.sq * p.hq * p.d * es));
    REQUIRE_CUDA(cudaMemset(lse, 0xff, p.sq * p.hq * 4));
  }
  ~Out() {
    cudaFree(o);
    cudaFree(lse);
  }
  cd::AttnPartial partial() const { return {o, dt, lse}; }
};

void test_forward(const char* name, int64_t sq, int64_t sk, bool causal, int64_t q_off, int64_t k_off,
                  cd::AttnDtype dt, int block_m) {
  Problem p(sq, sk);
  p.reference(causal, q_off, k_off);
  Out out(p, dt);
  REQUIRE_OK(Forward(p.args(out.o, dt, out.lse, causal, q_off, k_off, 0, sk, block_m), 0));
  REQUIRE_CUDA(cudaDeviceSynchronize());
  p.check(std::string("forward ") + name + (block_m == 64 ? " [block_m 64]" : "") +
              (dt == cd::AttnDtype::kFp32 ? " [fp32 O]" : ""),
          out.o, dt, out.lse);
}

// attn over [K1; K2] == merge(attn(K1), attn(K2)), with partials of dtype pdt.
void test_merge(const char* name, int64_t sq, int64_t sk, int64_t split, bool causal, int64_t q_off, int64_t k_off,
                cd::AttnDtype pdt, bool in_place) {
  Problem p(sq, sk);
  p.reference(causal, q_off, k_off);
  Out a(p, pdt), b(p, pdt);
  REQUIRE_OK(Forward(p.args(a.o, pdt, a.lse, causal, q_off, k_off, 0, split), 0));
  REQUIRE_OK(Forward(p.args(b.o, pdt, b.lse, causal, q_off, k_off, split, sk - split), 0));
  const float extra = pdt == cd::AttnDtype::kBf16 ? 4e-3f : 0.0f;
  if (in_place) {
    REQUIRE_OK(cd::attention_merge(0, sq, p.hq, p.d, a.partial(), b.partial(), a.o, pdt, a.lse));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    p.check(std::string("merge ") + name + " (in place)", a.o, pdt, a.lse, extra);
  } else {
    Out m(p, cd::AttnDtype::kFp32);
    REQUIRE_OK(cd::attention_merge(0, sq, p.hq, p.d, a.partial(), b.partial(), m.o, m.dt, m.lse));
    REQUIRE_CUDA(cudaDeviceSynchronize());
    p.check(std::string("merge ") + name + " (out of place, fp32 out)", m.o, m.dt, m.lse, extra);
  }
}

// A ring of `steps` key blocks through the fused accumulate epilogue (fp32 running O), in a
// given visiting order, then converted to bf16 with attention_merge(acc, empty).
void test_ring(const char* name, int64_t sq, int64_t sk, int steps, bool causal, int64_t q_off, int64_t k_off,
               const std::vector<int>& order) {
  Problem p(sq, sk);
  p.reference(causal, q_off, k_off);
  Out acc(p, cd::AttnDtype::kFp32);
  const int64_t blk = sk / steps;
  for (size_t s = 0; s < order.size(); ++s) {
    cd::AttentionArgs a = p.args(acc.o, acc.dt, acc.lse, causal, q_off, k_off, order[s] * blk, blk);
    a.accumulate = s > 0;
    REQUIRE_OK(Forward(a, 0));
  }
  REQUIRE_CUDA(cudaDeviceSynchronize());
  p.check(std::string("ring accumulate ") + name + " (fp32 O)", acc.o, acc.dt, acc.lse);
  Out fin(p, cd::AttnDtype::kBf16);
  REQUIRE_OK(cd::attention_merge(0, sq, p.hq, p.d, acc.partial(), cd::AttnPartial{}, fin.o, fin.dt, fin.lse));
  REQUIRE_CUDA(cudaDeviceSynchronize());
  p.check(std::string("ring accumulate ") + name + " -> bf16 via merge(acc, empty)", fin.o, fin.dt, fin.lse);
}

// Median ms of `reps` launches (after 2 warm-ups).
float time_forward(int64_t sq, int64_t sk, bool causal, int64_t q_off, int block_m, cd::AttnDtype dt, bool accumulate,
                   int reps) {
  const int hq = 32, hkv = 8, d = 128;
  __nv_bfloat16 *q, *k, *v;
  void* o;
  float* lse;
  REQUIRE_CUDA(cudaMalloc(&q, sq * hq * d * 2));
  REQUIRE_CUDA(cudaMalloc(&k, sk * hkv * d * 2));
  REQUIRE_CUDA(cudaMalloc(&v, sk * hkv * d * 2));
  REQUIRE_CUDA(cudaMalloc(&o, sq * hq * d * (dt == cd::AttnDtype::kFp32 ? 4 : 2)));
  REQUIRE_CUDA(cudaMalloc(&lse, sq * hq * 4));
  fill_bf16<<<1024, 256>>>(q, sq * hq * d, fresh_seed(), 2.0f);
  fill_bf16<<<1024, 256>>>(k, sk * hkv * d, fresh_seed(), 1.0f);
  fill_bf16<<<1024, 256>>>(v, sk * hkv * d, fresh_seed(), 1.0f);
  if (accumulate) {
    REQUIRE_CUDA(cudaMemset(o, 0, sq * hq * d * 4));
    fill_f32<<<1024, 256>>>(lse, sq * hq, 0.0f);
  }
  cd::AttentionArgs a;
  a.q = q, a.k = k, a.v = v, a.o = o, a.lse = lse, a.o_dtype = dt;
  a.sq = sq, a.sk = sk, a.hq = hq, a.hkv = hkv, a.d = d;
  a.causal = causal, a.q_offset = q_off, a.k_offset = 0, a.accumulate = accumulate, a.block_m = block_m;
  for (int i = 0; i < 2; ++i) REQUIRE_OK(Forward(a, 0));
  REQUIRE_CUDA(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(e0);
    REQUIRE_OK(Forward(a, 0));
    cudaEventRecord(e1);
    REQUIRE_CUDA(cudaEventSynchronize(e1));
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaFree(q);
  cudaFree(k);
  cudaFree(v);
  cudaFree(o);
  cudaFree(lse);
  return t[t.size() / 2];
}

// Visible (query, key) pairs with key 0 at global 0 and query 0 at q_off.
double visible_pairs(int64_t sq, int64_t sk, bool causal, int64_t q_off) {
  if (!causal) return static_cast<double>(sq) * sk;
  double n = 0;
  for (int64_t i = 0; i < sq; ++i) n += static_cast<double>(std::min<int64_t>(sk, std::max<int64_t>(0, q_off + i + 1)));
  return n;
}

}  // namespace

int main() {
  int dev = 0, sms = 0;
  REQUIRE_CUDA(cudaSetDevice(dev));
  REQUIRE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp prop{};
  REQUIRE_CUDA(cudaGetDeviceProperties(&prop, dev));
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  std::printf("device: %s, %d SMs; testing %s\n", prop.name, sms, kImpl);
  using cd::AttnDtype;

  // Forward: Hq = 32, Hkv = 8, D = 128.
  test_forward("non-causal", 1024, 1024, false, 0, 0, AttnDtype::kBf16, 128);
  test_forward("non-causal", 1024, 1024, false, 0, 0, AttnDtype::kBf16, 64);
  test_forward("non-causal", 1024, 1024, false, 0, 0, AttnDtype::kFp32, 128);
  test_forward("non-causal ragged (sq 1000, sk 1000)", 1000, 1000, false, 0, 0, AttnDtype::kBf16, 128);
  test_forward("causal diagonal (q_off = k_off = 4096)", 1024, 1024, true, 4096, 4096, AttnDtype::kBf16, 128);
  test_forward("causal diagonal (q_off = k_off = 4096)", 1024, 1024, true, 4096, 4096, AttnDtype::kBf16, 64);
  test_forward("causal diagonal ragged (sq = sk = 1000)", 1000, 1000, true, 0, 0, AttnDtype::kFp32, 128);
  test_forward("causal partial (q_off 512 > k_off 0, sq 1000)", 1000, 1024, true, 512, 0, AttnDtype::kBf16, 128);
  test_forward("causal partial (q_off 1024 > k_off 100, sk 1000)", 1024, 1000, true, 1024, 100, AttnDtype::kBf16, 64);
  test_forward("causal partial with empty rows (q_off 0 < k_off 100)", 1024, 1000, true, 0, 100, AttnDtype::kBf16, 128);
  test_forward("causal fully masked (q_off 0, k_off 2048: LSE -inf, O 0)", 1024, 1024, true, 0, 2048, AttnDtype::kBf16, 128);
  test_forward("causal fully masked (q_off 0, k_off 1024)", 1024, 1024, true, 0, 1024, AttnDtype::kFp32, 64);

  // Merge: attention over [K1; K2] equals merge(attn(K1), attn(K2)).
  test_merge("non-causal, split 384 | 640, bf16 partials", 1024, 1024, 384, false, 0, 0, AttnDtype::kBf16, false);
  test_merge("non-causal, split 384 | 640, fp32 partials", 1024, 1024, 384, false, 0, 0, AttnDtype::kFp32, true);
  test_merge("causal diagonal, split 512 | 512 (second part -inf for rows < 512), fp32", 1024, 1024, 512, true, 0, 0,
             AttnDtype::kFp32, true);
  test_merge("causal diagonal, split 300 | 724, bf16 partials", 1024, 1024, 300, true, 0, 0, AttnDtype::kBf16, false);

  // Ring through the fused accumulate epilogue (4 key blocks of 256), causal and not, odd orders.
  test_ring("non-causal, 4 steps, order 2 0 3 1", 1024, 1024, 4, false, 0, 0, {2, 0, 3, 1});
  test_ring("causal, 4 steps, order 3 2 1 0 (first step fully masked for early rows)", 1024, 1024, 4, true, 0, 0,
            {3, 2, 1, 0});
  test_ring("causal q_off 512, 4 steps, order 0 1 2 3", 1024, 1024, 4, true, 512, 0, {0, 1, 2, 3});

  // Timings: context-parallel shapes, Hq = 32, Hkv = 8, D = 128.
  std::printf("\n%s timings (median ms of 5), %s, Hq 32, Hkv 8, D 128:\n", kImpl, prop.name);
  std::printf("| queries x keys | mask | O | block_m | ms | TFLOP/s |\n|---|---|---|---|---|---|\n");
  struct Shape { const char* mask; int64_t sq, sk; bool causal; int64_t q_off; AttnDtype dt; bool acc; };
  const Shape shapes[] = {
      {"none", 16384, 32768, false, 0, AttnDtype::kBf16, false},
      {"causal, q_off 16384 (rank 1 of 2)", 16384, 32768, true, 16384, AttnDtype::kBf16, false},
      {"none", 32768, 32768, false, 0, AttnDtype::kBf16, false},
      {"causal square", 32768, 32768, true, 0, AttnDtype::kBf16, false},
      {"none, ring step (accumulate)", 16384, 16384, false, 0, AttnDtype::kFp32, true},
      {"causal diagonal ring step", 16384, 16384, true, 0, AttnDtype::kFp32, false},
  };
  for (int block_m : kBlockMs) {
    for (const Shape& s : shapes) {
      const float ms = time_forward(s.sq, s.sk, s.causal, s.q_off, block_m, s.dt, s.acc, 5);
      const double flops = 4.0 * 32 * 128 * visible_pairs(s.sq, s.sk, s.causal, s.q_off);
      std::printf("| %lld x %lld | %s | %s | %d | %.3f | %.1f |\n", static_cast<long long>(s.sq),
                  static_cast<long long>(s.sk), s.mask, s.dt == AttnDtype::kFp32 ? (s.acc ? "fp32 acc" : "fp32") : "bf16",
                  block_m, ms, flops / (ms * 1e-3) / 1e12);
    }
  }

  std::printf("\nattention_single_gpu: %d/%d passed\n", g_checks - g_failures, g_checks);
  return g_failures == 0 ? 0 : 1;
}
