// cuco/codesign/cudnn_attention.h: attention_forward through cuDNN's fused SDPA (the
// flash-attention engine PyTorch's SDPA reaches on Hopper), built with the cuDNN frontend.
//
//   CudnnAttention attn;              // one per rank and thread: a cuDNN handle, cached graphs
//   attn.forward(args, stream);       // attention.h's attention_forward contract
//
// Same layouts, masking and results as attention_forward (attention.h): Q [sq][hq][d], K and V
// [sk][hkv][d] with token strides, O [sq][hq][d] bf16 or fp32, LSE [hq][sq] fp32 (natural log of
// the scaled scores' sum-exp), GQA, causal masking on global positions, accumulate. cuDNN writes
// a bf16 O and the LSE; an fp32 O, or accumulate, goes through a bf16 scratch partial and
// attention_merge (one more pass over O). Causal: query rows that see no key are not computed
// (O = 0, LSE = -inf; with accumulate, left unchanged), keys that no query sees are not passed,
// a block wholly visible runs unmasked, the rest with cuDNN's causal band (a ring's diagonal
// block, or an all-gather's keys, are bottom-right causal). block_m is ignored.
//
// Linking: a workload that uses this names "cudnn" in its [build] libs; the builder then compiles
// runtime/src/cudnn_sdpa.cu (the frontend) once and links it with libcudnn and libnvrtc. `cuco
// doctor` says whether cuDNN 9 and the frontend headers (nvidia-cudnn-frontend) were found.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuco/codesign/attention.h>
#include <cuco/harness.h>
#include <cuco/impl/cudnn_sdpa.h>

namespace cuco {
namespace codesign {

namespace cudnn_attn_detail {
// lse[h * sq + i] = -inf for i < rows, over n = heads * rows entries.
__global__ void fill_neg_inf(float* lse, int64_t sq, int64_t rows, int64_t n) {
  const int64_t t = blockIdx.x * int64_t{blockDim.x} + threadIdx.x;
  if (t < n) lse[(t / rows) * sq + t % rows] = -INFINITY;
}
}  // namespace cudnn_attn_detail

class CudnnAttention {
 public:
  CudnnAttention() = default;
  CudnnAttention(const CudnnAttention&) = delete;
  CudnnAttention& operator=(const CudnnAttention&) = delete;
  ~CudnnAttention() {
    if (scratch_o_ != nullptr) cudaFree(scratch_o_);
    if (scratch_lse_ != nullptr) cudaFree(scratch_lse_);
  }

  // Enqueues the forward pass on `stream` (contract above and in attention.h).
  Status forward(const AttentionArgs& a, cudaStream_t stream) {
    if (a.d <= 0 || a.d % 8 != 0 || a.d > 256) return Status::Error("CudnnAttention: d must be a multiple of 8, at most 256");
    if (a.hq <= 0 || a.hkv <= 0 || a.hq % a.hkv != 0) return Status::Error("CudnnAttention: hq must be a positive multiple of hkv");
    if (a.sq < 0 || a.sk < 0) return Status::Error("CudnnAttention: negative sequence length");
    if (a.q == nullptr || a.k == nullptr || a.v == nullptr || a.o == nullptr) return Status::Error("CudnnAttention: null q / k / v / o");
    if (a.accumulate && (a.o_dtype != AttnDtype::kFp32 || a.lse == nullptr))
      return Status::Error("CudnnAttention: accumulate needs an fp32 o and an lse");
    if (a.sq == 0) return Status::Ok();
    // Key j is visible to query i iff k_offset + j <= q_offset + i: the first `skip` query rows
    // see no key, and keys past the last query's position are seen by none (not passed to cuDNN).
    const int64_t skip = a.causal ? std::clamp<int64_t>(a.k_offset - a.q_offset, 0, a.sq) : 0;
    const int64_t sk = a.causal ? std::min<int64_t>(a.sk, a.q_offset + a.sq - a.k_offset) : a.sk;
    if (sk <= 0 || skip == a.sq) {  // no query sees any key
      if (a.accumulate) return Status::Ok();
      return clear_rows(a.o, a.o_dtype == AttnDtype::kFp32, a.lse, a.sq, a.hq, a.d, a.sq, stream);
    }
    const int64_t qs = a.q_stride > 0 ? a.q_stride : int64_t{a.hq} * a.d;
    CudnnSdpaCall c;
    c.q = a.q + skip * qs, c.k = a.k, c.v = a.v;
    c.sq = a.sq - skip, c.sk = sk, c.hq = a.hq, c.hkv = a.hkv, c.d = a.d;
    c.q_stride = a.q_stride, c.k_stride = a.k_stride, c.v_stride = a.v_stride;
    c.lse_stride = a.sq;  // LSE rows [skip, sq) of each head
    c.scale = a.scale;
    c.right_bound = a.q_offset + skip - a.k_offset;  // >= 0
    c.band = a.causal && sk - 1 > c.right_bound;       // some key is hidden from the first row
    const int64_t row = int64_t{a.hq} * a.d;           // elements of one token's O
    const bool direct = a.o_dtype == AttnDtype::kBf16 && !a.accumulate;  // cuDNN writes the caller's O
    if (direct) {
      c.o = static_cast<__nv_bfloat16*>(a.o) + skip * row;
      c.lse = a.lse == nullptr ? nullptr : a.lse + skip;
      if (skip > 0)
        if (Status s = clear_rows(a.o, false, a.lse, a.sq, a.hq, a.d, skip, stream); !s.ok()) return s;
      return sdpa_.run(c, stream);
    }
    if (Status s = grow(&scratch_o_, &scratch_o_bytes_, static_cast<size_t>(a.sq * row) * 2); !s.ok()) return s;
    if (Status s = grow(&scratch_lse_, &scratch_lse_bytes_, static_cast<size_t>(a.sq) * a.hq * 4); !s.ok()) return s;
    float* part_lse = static_cast<float*>(scratch_lse_);
    c.o = static_cast<__nv_bfloat16*>(scratch_o_) + skip * row;
    c.lse = part_lse + skip;
    if (skip > 0)
      if (Status s = clear_rows(scratch_o_, false, part_lse, a.sq, a.hq, a.d, skip, stream); !s.ok()) return s;
    if (Status s = sdpa_.run(c, stream); !s.ok()) return s;
    const AttnPartial part{scratch_o_, AttnDtype::kBf16, part_lse};
    if (a.accumulate)  // (O, LSE) = merge((O, LSE), this block), in place
      return attention_merge(stream, a.sq, a.hq, a.d, AttnPartial{a.o, AttnDtype::kFp32, a.lse}, part, a.o, AttnDtype::kFp32, a.lse);
    return attention_merge(stream, a.sq, a.hq, a.d, part, AttnPartial{}, a.o, a.o_dtype, a.lse);  // bf16 -> fp32
  }

 private:
  // Rows [0, rows) of O [sq][hq][d] (bf16 or fp32) to 0 and of LSE [hq][sq] (may be null) to -inf.
  static Status clear_rows(void* o, bool fp32, float* lse, int64_t sq, int hq, int d, int64_t rows, cudaStream_t stream) {
    if (cudaMemsetAsync(o, 0, static_cast<size_t>(rows) * hq * d * (fp32 ? 4 : 2), stream) != cudaSuccess)
      return Status::Error("CudnnAttention: cudaMemsetAsync failed");
    if (lse == nullptr) return Status::Ok();
    const int64_t n = int64_t{hq} * rows;
    cudnn_attn_detail::fill_neg_inf<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(lse, sq, rows, n);
    CUCO_CHECK_LAUNCH();
    return Status::Ok();
  }

  static Status grow(void** buf, size_t* have, size_t need) {
    if (*have >= need) return Status::Ok();
    if (*buf != nullptr) cudaFree(*buf);
    *buf = nullptr;
    *have = 0;
    if (cudaMalloc(buf, need) != cudaSuccess) return Status::Error("CudnnAttention: cudaMalloc of " + std::to_string(need) + " bytes failed");
    *have = need;
    return Status::Ok();
  }

  CudnnSdpa sdpa_;
  void* scratch_o_ = nullptr;  // bf16 partial O when the caller wants fp32 O or accumulate
  size_t scratch_o_bytes_ = 0;
  void* scratch_lse_ = nullptr;  // its LSE
  size_t scratch_lse_bytes_ = 0;
};

}  // namespace codesign
}  // namespace cuco
