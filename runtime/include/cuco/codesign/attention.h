// cuco/codesign/attention.h: the attention compute block, a flash-attention-2-class forward kernel
// (mma.sync bf16 tensor cores) plus the log-sum-exp merge that ring / context-parallel attention
// needs.
//
//   attention_forward: O = softmax(Q K^T * scale [+ causal mask]) V, and LSE per query row.
//   attention_merge:   (O, LSE) = merge((O_a, LSE_a), (O_b, LSE_b)) of the same queries over
//                      disjoint key sets; in place allowed.
//
// Layouts (row-major, token-major, every element bf16 unless said otherwise):
//   Q [sq][hq][d]   head h of token i at q + i*q_stride + h*d   (q_stride 0: hq*d, dense)
//   K [sk][hkv][d]  head g of token j at k + j*k_stride + g*d   (k_stride 0: hkv*d)
//   V [sk][hkv][d]  likewise with v_stride                      (v_stride 0: hkv*d)
//   O [sq][hq][d]   dense, bf16 or fp32 (o_dtype)
//   LSE [hq][sq]    fp32, natural-log sum-exp of the *scaled* scores of the query row:
//                   LSE = log(sum_j exp(scale * q.k_j)) over the visible keys; -inf if none.
// GQA: query head h reads KV head h / (hq / hkv); hq must be a multiple of hkv. d must be 128.
// Pointers and strides must be 16-byte aligned (strides a multiple of 8 elements).
//
// Causal masking works on global positions: query i of this block is at q_offset + i, key j at
// k_offset + j, and key j is visible to query i iff k_offset + j <= q_offset + i. A query row with
// no visible key (a block wholly in its future) gets O = 0 and LSE = -inf (with accumulate: its
// accumulator is left unchanged). Tiles wholly in the future are never loaded.
//
// Ring / context-parallel use: keep an fp32 running output. Step 0 writes O (fp32) and LSE; every
// later step calls attention_forward with accumulate = true, which merges the new partial result
// into O / LSE in the kernel's epilogue (the same math as attention_merge, no extra pass). The
// final fp32 O converts to bf16 with attention_merge(a = acc, b = empty). attention_merge is also
// there for partials computed elsewhere (e.g. on another rank, in bf16).
//
// Kernel (FA2 style): a CTA owns block_m = 64 or 128 query rows of one head (4 or 8 warps, 16 rows
// per warp); K and V tiles of 64 keys stream through shared memory with cp.async, double buffered
// (the next K tile loads during this tile's softmax and P V, the next V tile during the next
// Q K^T); Q K^T and P V run on mma.sync.m16n8k16 (bf16 in, fp32 accumulate); the online softmax
// stays in registers (exp2 of log2(e)-scaled scores, rows with max -inf guarded). P is rounded to
// bf16 for the P V product (as in FlashAttention); the row sum uses the fp32 values.
// Shared-memory rows of 128 bf16 (256 B = 16 chunks of 16 B) are XOR-swizzled: chunk c of row r
// is stored at chunk c ^ (r & 7), so ldmatrix's 8 row addresses hit 8 distinct bank groups.
// CTAs of the heaviest (latest) query blocks start first under causal masking.
#pragma once

#include <cmath>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cuco/harness.h>

namespace cuco {
namespace codesign {

enum class AttnDtype : int { kBf16 = 0, kFp32 = 1 };

struct AttentionArgs {
  const __nv_bfloat16* q = nullptr;
  const __nv_bfloat16* k = nullptr;
  const __nv_bfloat16* v = nullptr;
  void* o = nullptr;      // [sq][hq][d], o_dtype
  float* lse = nullptr;   // [hq][sq]; may be null unless accumulate
  AttnDtype o_dtype = AttnDtype::kBf16;
  int64_t sq = 0, sk = 0;
  int hq = 0, hkv = 0, d = 128;
  int64_t q_stride = 0, k_stride = 0, v_stride = 0;  // elements between consecutive tokens; 0: dense
  float scale = 0.0f;                                // 0: 1 / sqrt(d)
  bool causal = false;
  int64_t q_offset = 0, k_offset = 0;                // global positions of query 0 / key 0 (causal)
  // true: o (fp32) and lse already hold a partial result of these queries over other keys; the
  // kernel merges this call's result into them (LSE-weighted), instead of overwriting.
  bool accumulate = false;
  int block_m = 128;  // query rows per CTA: 128 (8 warps) or 64 (4 warps)
};

// One partial attention result for attention_merge. o == nullptr: an empty partial (LSE = -inf
// everywhere), so merge(a, empty) copies / converts a.
struct AttnPartial {
  const void* o = nullptr;  // [sq][hq][d], dtype
  AttnDtype dtype = AttnDtype::kFp32;
  const float* lse = nullptr;  // [hq][sq]
};

namespace attn_detail {

constexpr int kD = 128;
constexpr int kBlockN = 64;
constexpr int kRowBytes = kD * 2;  // one token's head row in shared memory: 256 B, 16 chunks

struct FwdParams {
  const __nv_bfloat16* q;
  const __nv_bfloat16* k;
  const __nv_bfloat16* v;
  void* o;
  float* lse;
  int64_t sq, sk, q_stride, k_stride, v_stride, q_offset, k_offset;
  int hq, hkv;
  float scale_log2;  // scale * log2(e)
  float scale;
  bool causal, accumulate, o_fp32;
};

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, bool pred) {
  const int n = pred ? 16 : 0;  // 0: zero-fill, nothing read
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void ldsm_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldsm_x4_t(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
// D += A B, m16n8k16, A row-major (16x16 bf16), B column-major (16x8 bf16), fp32 accumulators.
// Fragment layout (PTX ISA, lane = 4 g + t):
//   A: a0 = (row g, cols 2t..2t+1), a1 = (g+8, 2t..), a2 = (g, 2t+8..), a3 = (g+8, 2t+8..)
//   B: b0 = (k rows 2t..2t+1, col g), b1 = (k 2t+8..2t+9, col g)
//   C: c0,c1 = (row g, cols 2t, 2t+1), c2,c3 = (row g+8, cols 2t, 2t+1)
__device__ __forceinline__ void mma16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ float ex2(float x) {  // 2^x; ex2(-inf) = 0
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}
__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);  // .x = lo (lower address / lower column)
  return *reinterpret_cast<uint32_t*>(&h);
}

// Copies `kRows` token rows (kD bf16 each) starting at token row_start into a swizzled tile;
// rows at or beyond row_limit are zero-filled.
template <int kRows, int kThreads>
__device__ __forceinline__ void load_tile(unsigned char* s, const __nv_bfloat16* base, int64_t stride,
                                          int64_t row_start, int64_t row_limit) {
  static_assert((kRows * 16) % kThreads == 0, "tile chunks must split evenly over the CTA");
  const uint32_t s0 = smem_u32(s);
#pragma unroll
  for (int it = 0; it < kRows * 16 / kThreads; ++it) {
    const int i = static_cast<int>(threadIdx.x) + it * kThreads;
    const int r = i >> 4, c = i & 15;
    const int64_t gr = row_start + r;
    const bool ok = gr < row_limit;
    const __nv_bfloat16* src = base + (ok ? gr : 0) * stride + c * 8;
    cp_async16(s0 + r * kRowBytes + ((c ^ (r & 7)) << 4), src, ok);
  }
}

template <int kWarps>
__global__ void __launch_bounds__(kWarps * 32, kWarps == 4 ? 2 : 1) attn_fwd_kernel(const FwdParams p) {
  constexpr int kThreads = kWarps * 32;
  constexpr int kBlockM = kWarps * 16;
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char* sQ = smem;                       // kBlockM rows
  unsigned char* sK = sQ + kBlockM * kRowBytes;   // 2 buffers x kBlockN rows
  unsigned char* sV = sK + 2 * kBlockN * kRowBytes;

  const int h = blockIdx.x;
  const int64_t m0 = static_cast<int64_t>(gridDim.y - 1 - blockIdx.y) * kBlockM;  // heaviest first
  const int hk = h / (p.hq / p.hkv);
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int64_t row0 = m0 + warp * 16 + g;  // this thread's rows: row0, row0 + 8

  int64_t n_end = p.sk;
  if (p.causal) {
    const int64_t last_q = (p.sq < m0 + kBlockM ? p.sq : m0 + kBlockM) - 1;
    const int64_t lim = p.q_offset + last_q - p.k_offset + 1;
    n_end = lim < n_end ? lim : n_end;
  }
  if (n_end <= 0 && p.accumulate) return;  // nothing visible: the accumulator stays as it is
  const int n_tiles = n_end <= 0 ? 0 : static_cast<int>((n_end + kBlockN - 1) / kBlockN);

  float o[16][4];
#pragma unroll
  for (int j = 0; j < 16; ++j) o[j][0] = o[j][1] = o[j][2] = o[j][3] = 0.0f;
  float m_r[2] = {-INFINITY, -INFINITY}, l_r[2] = {0.0f, 0.0f};

  // Lane offsets for ldmatrix (see the fragment layouts above). Row bases are multiples of 8,
  // so the swizzle term is lane & 7; chunk = 2 * kstep + c, so its swizzle is (2 ks) ^ (c ^ x).
  const int x7 = lane & 7;
  // Q (A operand, non-trans): row = (lane & 7) + 8 * ((lane >> 3) & 1), chunk c = lane >> 4.
  const uint32_t q_lane = (warp * 16 + x7 + ((lane >> 3) & 1) * 8) * kRowBytes;
  const uint32_t q_swz = ((lane >> 4) ^ x7) << 4;
  // K (B operand of S = Q K^T, non-trans): key = (lane & 7) + 8 * (lane >> 4), chunk c = (lane >> 3) & 1;
  // regs: r0 = b0 / r1 = b1 of keys +0..7, r2 = b0 / r3 = b1 of keys +8..15.
  const uint32_t k_lane = (x7 + (lane >> 4) * 8) * kRowBytes;
  const uint32_t k_swz = (((lane >> 3) & 1) ^ x7) << 4;
  // V (B operand of O = P V, trans): key = (lane & 7) + 8 * ((lane >> 3) & 1), chunk c = lane >> 4;
  // regs: r0 = b0 / r1 = b1 of dims +0..7, r2 = b0 / r3 = b1 of dims +8..15.
  const uint32_t v_lane = (x7 + ((lane >> 3) & 1) * 8) * kRowBytes;
  const uint32_t v_swz = ((lane >> 4) ^ x7) << 4;

  const __nv_bfloat16* kbase = p.k + static_cast<int64_t>(hk) * kD;
  const __nv_bfloat16* vbase = p.v + static_cast<int64_t>(hk) * kD;

  if (n_tiles > 0) {
    int nb = n_tiles - 1;  // last tile first: the causally masked tiles come first
    load_tile<kBlockM, kThreads>(sQ, p.q + static_cast<int64_t>(h) * kD, p.q_stride, m0, p.sq);
    load_tile<kBlockN, kThreads>(sK, kbase, p.k_stride, static_cast<int64_t>(nb) * kBlockN, p.sk);
    cp_async_commit();
    load_tile<kBlockN, kThreads>(sV, vbase, p.v_stride, static_cast<int64_t>(nb) * kBlockN, p.sk);
    cp_async_commit();

    uint32_t qf[8][4];
    int buf = 0;
    for (int it = 0; it < n_tiles; ++it, --nb) {
      cp_async_wait<1>();  // K(nb) (and Q) landed; V(nb) may be in flight
      __syncthreads();
      if (it == 0) {
        const uint32_t qb = smem_u32(sQ) + q_lane;
#pragma unroll
        for (int ks = 0; ks < 8; ++ks) ldsm_x4(qf[ks], qb + ((ks * 32) ^ q_swz));
      }
      const bool has_next = nb > 0;
      if (has_next)
        load_tile<kBlockN, kThreads>(sK + (buf ^ 1) * kBlockN * kRowBytes, kbase, p.k_stride,
                                     static_cast<int64_t>(nb - 1) * kBlockN, p.sk);
      cp_async_commit();

      // S = Q K^T (raw dot products), 16 rows x 64 keys per warp: s[n8 block][c]
      float s[8][4];
#pragma unroll
      for (int j = 0; j < 8; ++j) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.0f;
      const uint32_t kb = smem_u32(sK + buf * kBlockN * kRowBytes) + k_lane;
#pragma unroll
      for (int ks = 0; ks < 8; ++ks) {
#pragma unroll
        for (int kp = 0; kp < 4; ++kp) {
          uint32_t r[4];
          ldsm_x4(r, kb + kp * 16 * kRowBytes + ((ks * 32) ^ k_swz));
          mma16816(s[2 * kp], qf[ks], r[0], r[1]);
          mma16816(s[2 * kp + 1], qf[ks], r[2], r[3]);
        }
      }

      // Mask keys past sk and (causal) keys in the row's future. Warp-uniform test first.
      const int64_t n0 = static_cast<int64_t>(nb) * kBlockN;
      if (n0 + kBlockN > p.sk || (p.causal && p.k_offset + n0 + kBlockN - 1 > p.q_offset + m0 + warp * 16)) {
#pragma unroll
        for (int j = 0; j < 8; ++j) {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            const int64_t col = n0 + j * 8 + 2 * t + (e & 1);
            const int64_t row = row0 + (e >> 1) * 8;
            const bool vis = col < p.sk && (!p.causal || p.k_offset + col <= p.q_offset + row);
            if (!vis) s[j][e] = -INFINITY;
          }
        }
      }

      // Online softmax: rows g (e = 0, 1) and g + 8 (e = 2, 3); a row lives in a quad (4 lanes).
      float mx[2] = {m_r[0], m_r[1]};
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        mx[0] = fmaxf(mx[0], fmaxf(s[j][0], s[j][1]));
        mx[1] = fmaxf(mx[1], fmaxf(s[j][2], s[j][3]));
      }
      float ms[2];
#pragma unroll
      for (int i = 0; i < 2; ++i) {
        mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 1));
        mx[i] = fmaxf(mx[i], __shfl_xor_sync(0xffffffffu, mx[i], 2));
        ms[i] = mx[i] == -INFINITY ? 0.0f : mx[i] * p.scale_log2;  // guard: all masked so far
        const float corr = ex2(m_r[i] * p.scale_log2 - ms[i]);      // m_r = -inf: 0
        m_r[i] = mx[i];
        l_r[i] *= corr;
#pragma unroll
        for (int j = 0; j < 16; ++j) {
          o[j][2 * i] *= corr;
          o[j][2 * i + 1] *= corr;
        }
      }
#pragma unroll
      for (int j = 0; j < 8; ++j) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          s[j][e] = ex2(fmaf(s[j][e], p.scale_log2, -ms[e >> 1]));
          l_r[e >> 1] += s[j][e];
        }
      }

      cp_async_wait<1>();  // V(nb) landed; K(nb - 1) may be in flight
      __syncthreads();
      if (has_next)
        load_tile<kBlockN, kThreads>(sV + (buf ^ 1) * kBlockN * kRowBytes, vbase, p.v_stride,
                                     static_cast<int64_t>(nb - 1) * kBlockN, p.sk);
      cp_async_commit();

      // O += P V: P's accumulator layout of n8 blocks 2 ks, 2 ks + 1 is the A fragment of k-step ks.
      const uint32_t vb = smem_u32(sV + buf * kBlockN * kRowBytes) + v_lane;
#pragma unroll
      for (int ks = 0; ks < 4; ++ks) {
        const uint32_t a[4] = {pack_bf16(s[2 * ks][0], s[2 * ks][1]), pack_bf16(s[2 * ks][2], s[2 * ks][3]),
                               pack_bf16(s[2 * ks + 1][0], s[2 * ks + 1][1]),
                               pack_bf16(s[2 * ks + 1][2], s[2 * ks + 1][3])};
#pragma unroll
        for (int dp = 0; dp < 8; ++dp) {
          uint32_t r[4];
          ldsm_x4_t(r, vb + ks * 16 * kRowBytes + ((dp * 32) ^ v_swz));
          mma16816(o[2 * dp], a, r[0], r[1]);
          mma16816(o[2 * dp + 1], a, r[2], r[3]);
        }
      }
      buf ^= 1;
    }
    cp_async_wait<0>();
  }

  // Epilogue: normalise, write O and LSE (or merge them into the accumulator).
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    l_r[i] += __shfl_xor_sync(0xffffffffu, l_r[i], 1);
    l_r[i] += __shfl_xor_sync(0xffffffffu, l_r[i], 2);
  }
  constexpr float kLn2 = 0.6931471805599453f;
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int64_t row = row0 + i * 8;
    const bool live = row < p.sq;
    const float l = l_r[i];
    const float lse_this = l > 0.0f ? (m_r[i] * p.scale_log2 + __log2f(l)) * kLn2 : -INFINITY;
    float f_new = l > 0.0f ? 1.0f / l : 0.0f, f_old = 0.0f, lse_out = lse_this;
    float* lse_p = p.lse != nullptr && live ? p.lse + static_cast<int64_t>(h) * p.sq + row : nullptr;
    if (p.accumulate) {
      const float lse_old = live ? *lse_p : -INFINITY;
      const float mm = fmaxf(lse_old, lse_this);
      const float w_old = mm == -INFINITY ? 0.0f : expf(lse_old - mm);
      const float w_new = mm == -INFINITY ? 0.0f : expf(lse_this - mm);
      const float tot = w_old + w_new;
      if (tot > 0.0f) {
        f_old = w_old / tot;
        f_new *= w_new / tot;
        lse_out = mm + logf(tot);
      } else {
        f_old = f_new = 0.0f;
        lse_out = -INFINITY;
      }
    }
    __syncwarp();  // every lane of the quad has read lse_old before lane t == 0 writes it
    if (!live) continue;
    if (t == 0 && lse_p != nullptr) *lse_p = lse_out;
    const int64_t ob = (row * p.hq + h) * kD + 2 * t;
    if (p.o_fp32) {
      float2* out = reinterpret_cast<float2*>(static_cast<float*>(p.o) + ob);
#pragma unroll
      for (int j = 0; j < 16; ++j) {
        float2 v = make_float2(o[j][2 * i] * f_new, o[j][2 * i + 1] * f_new);
        if (p.accumulate) {
          const float2 old = out[j * 4];
          v.x = fmaf(old.x, f_old, v.x);
          v.y = fmaf(old.y, f_old, v.y);
        }
        out[j * 4] = v;
      }
    } else {
      __nv_bfloat162* out = reinterpret_cast<__nv_bfloat162*>(static_cast<__nv_bfloat16*>(p.o) + ob);
#pragma unroll
      for (int j = 0; j < 16; ++j) out[j * 4] = __floats2bfloat162_rn(o[j][2 * i] * f_new, o[j][2 * i + 1] * f_new);
    }
  }
}

// One warp per (query row, head): reads both LSEs, then lane 0 writes the merged LSE after the
// warp has read (in place is safe: nobody else touches this row's LSE or O).
__global__ void attn_merge_kernel(int64_t sq, int hq, int d, const void* oa, int a_fp32, const float* la,
                                  const void* ob, int b_fp32, const float* lb, void* out, int out_fp32,
                                  float* lout) {
  const int lane = threadIdx.x & 31;
  const int64_t warps = static_cast<int64_t>(gridDim.x) * (blockDim.x >> 5);
  for (int64_t w = blockIdx.x * static_cast<int64_t>(blockDim.x >> 5) + (threadIdx.x >> 5); w < sq * hq;
       w += warps) {
    const int64_t row = w / hq;
    const int h = static_cast<int>(w % hq);
    const int64_t li = static_cast<int64_t>(h) * sq + row;
    const float a = la[li];
    const float b = ob != nullptr ? lb[li] : -INFINITY;
    const float mm = fmaxf(a, b);
    const float wa = mm == -INFINITY ? 0.0f : expf(a - mm);
    const float wb = mm == -INFINITY ? 0.0f : expf(b - mm);
    const float tot = wa + wb;
    const float fa = tot > 0.0f ? wa / tot : 0.0f, fb = tot > 0.0f ? wb / tot : 0.0f;
    const int64_t base = w * d;
    for (int e = lane * 4; e < d; e += 128) {
      float va[4], vb[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      auto load4 = [&](const void* src, int fp32, float (&v)[4]) {
        if (fp32) {
          const float4 x = *reinterpret_cast<const float4*>(static_cast<const float*>(src) + base + e);
          v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        } else {
          const uint2 x = *reinterpret_cast<const uint2*>(static_cast<const __nv_bfloat16*>(src) + base + e);
          const __nv_bfloat162 p0 = *reinterpret_cast<const __nv_bfloat162*>(&x.x);
          const __nv_bfloat162 p1 = *reinterpret_cast<const __nv_bfloat162*>(&x.y);
          v[0] = __low2float(p0), v[1] = __high2float(p0), v[2] = __low2float(p1), v[3] = __high2float(p1);
        }
      };
      load4(oa, a_fp32, va);
      if (ob != nullptr) load4(ob, b_fp32, vb);
      float r[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) r[c] = fa * va[c] + fb * vb[c];
      if (out_fp32) {
        *reinterpret_cast<float4*>(static_cast<float*>(out) + base + e) = make_float4(r[0], r[1], r[2], r[3]);
      } else {
        __nv_bfloat162 p0 = __floats2bfloat162_rn(r[0], r[1]), p1 = __floats2bfloat162_rn(r[2], r[3]);
        uint2 x;
        x.x = *reinterpret_cast<uint32_t*>(&p0);
        x.y = *reinterpret_cast<uint32_t*>(&p1);
        *reinterpret_cast<uint2*>(static_cast<__nv_bfloat16*>(out) + base + e) = x;
      }
    }
    __syncwarp();
    if (lane == 0 && lout != nullptr) lout[li] = tot > 0.0f ? mm + logf(tot) : -INFINITY;
  }
}

inline bool aligned16(const void* p) { return (reinterpret_cast<uintptr_t>(p) & 15) == 0; }

template <int kWarps>
inline Status launch_fwd(const FwdParams& fp, cudaStream_t stream) {
  constexpr int kBlockM = kWarps * 16;
  constexpr int kSmem = (kBlockM + 4 * kBlockN) * kRowBytes;
  // Set on every launch (cheap host call): the attribute is per device, and a process may drive several.
  CUCO_CUDA_CHECK(cudaFuncSetAttribute(attn_fwd_kernel<kWarps>, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  const int64_t m_blocks = (fp.sq + kBlockM - 1) / kBlockM;
  if (m_blocks > 65535) return Status::Error("attention_forward: sq too large for one launch (" + std::to_string(fp.sq) + ")");
  attn_fwd_kernel<kWarps><<<dim3(fp.hq, static_cast<unsigned>(m_blocks)), kWarps * 32, kSmem, stream>>>(fp);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

}  // namespace attn_detail

// Enqueues the forward pass on `stream` (contract at the top of this file).
inline Status attention_forward(const AttentionArgs& a, cudaStream_t stream) {
  using namespace attn_detail;
  if (a.d != kD) return Status::Error("attention_forward: only d = 128 is implemented (got " + std::to_string(a.d) + ")");
  if (a.hq <= 0 || a.hkv <= 0 || a.hq % a.hkv != 0)
    return Status::Error("attention_forward: hq must be a positive multiple of hkv");
  if (a.sq < 0 || a.sk < 0) return Status::Error("attention_forward: negative sequence length");
  if (a.q == nullptr || a.k == nullptr || a.v == nullptr || a.o == nullptr)
    return Status::Error("attention_forward: null q / k / v / o");
  if (a.accumulate && (a.o_dtype != AttnDtype::kFp32 || a.lse == nullptr))
    return Status::Error("attention_forward: accumulate needs an fp32 o and an lse");
  if (a.block_m != 64 && a.block_m != 128) return Status::Error("attention_forward: block_m must be 64 or 128");
  FwdParams fp{};
  fp.q = a.q;
  fp.k = a.k;
  fp.v = a.v;
  fp.o = a.o;
  fp.lse = a.lse;
  fp.sq = a.sq;
  fp.sk = a.sk;
  fp.hq = a.hq;
  fp.hkv = a.hkv;
  fp.q_stride = a.q_stride > 0 ? a.q_stride : static_cast<int64_t>(a.hq) * kD;
  fp.k_stride = a.k_stride > 0 ? a.k_stride : static_cast<int64_t>(a.hkv) * kD;
  fp.v_stride = a.v_stride > 0 ? a.v_stride : static_cast<int64_t>(a.hkv) * kD;
  if (((fp.q_stride | fp.k_stride | fp.v_stride) & 7) != 0 || !aligned16(a.q) || !aligned16(a.k) || !aligned16(a.v) ||
      !aligned16(a.o))
    return Status::Error("attention_forward: pointers and strides must be 16-byte aligned");
  fp.q_offset = a.q_offset;
  fp.k_offset = a.k_offset;
  fp.scale = a.scale > 0.0f ? a.scale : 1.0f / std::sqrt(static_cast<float>(a.d));
  fp.scale_log2 = fp.scale * 1.4426950408889634f;
  fp.causal = a.causal;
  fp.accumulate = a.accumulate;
  fp.o_fp32 = a.o_dtype == AttnDtype::kFp32;
  if (a.sq == 0) return Status::Ok();
  return a.block_m == 128 ? launch_fwd<8>(fp, stream) : launch_fwd<4>(fp, stream);
}

// (out, lse_out) = merge(a, b): out = (e^{LSE_a} O_a + e^{LSE_b} O_b) / (e^{LSE_a} + e^{LSE_b}),
// lse_out = log(e^{LSE_a} + e^{LSE_b}), computed relative to max(LSE_a, LSE_b); a row with both
// -inf gets O = 0, LSE = -inf. Either input and the output may be bf16 or fp32; out may be a.o
// (same dtype) and lse_out may be a.lse (in place). b.o == nullptr is an empty partial. lse_out
// may be null (O only). d must be a multiple of 4 and the O buffers 16-byte aligned.
inline Status attention_merge(cudaStream_t stream, int64_t sq, int hq, int d, const AttnPartial& a,
                              const AttnPartial& b, void* out, AttnDtype out_dtype, float* lse_out) {
  if (a.o == nullptr || a.lse == nullptr || out == nullptr || (b.o != nullptr && b.lse == nullptr))
    return Status::Error("attention_merge: null input");
  if (d <= 0 || d % 4 != 0 || hq <= 0 || sq < 0) return Status::Error("attention_merge: bad shape");
  if (sq == 0) return Status::Ok();
  const int64_t warps = sq * hq;
  const int64_t blocks64 = (warps + 7) / 8;
  const int blocks = static_cast<int>(blocks64 < 65536 ? blocks64 : 65536);
  attn_detail::attn_merge_kernel<<<blocks, 256, 0, stream>>>(
      sq, hq, d, a.o, a.dtype == AttnDtype::kFp32, a.lse, b.o, b.dtype == AttnDtype::kFp32, b.lse, out,
      out_dtype == AttnDtype::kFp32, lse_out);
  CUCO_CHECK_LAUNCH();
  return Status::Ok();
}

}  // namespace codesign
}  // namespace cuco
