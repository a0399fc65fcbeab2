// cuco/impl/cudnn_sdpa.h: one cuDNN fused-attention (SDPA) call, behind a small declaration so that
// candidates compile without the cuDNN frontend's headers. Implemented in runtime/src/cudnn_sdpa.cu,
// which the builder compiles once per toolchain and links when a workload's [build] libs name
// "cudnn". Use codesign/cudnn_attention.h (attention_forward's contract) rather than this.
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cuco/harness.h>

namespace cuco {
namespace codesign {

// O (bf16) [sq][hq][d] and, when lse != nullptr, LSE (fp32) [hq][sq] of softmax(scale Q K^T) V
// for Q [sq][hq][d], K and V [sk][hkv][d] (token strides in elements). band: key j is visible to
// query i iff j <= i + right_bound (right_bound >= 0); otherwise every key is visible.
struct CudnnSdpaCall {
  const __nv_bfloat16* q = nullptr;
  const __nv_bfloat16* k = nullptr;
  const __nv_bfloat16* v = nullptr;
  __nv_bfloat16* o = nullptr;
  float* lse = nullptr;
  int64_t sq = 0, sk = 0;
  int hq = 0, hkv = 0, d = 128;
  int64_t q_stride = 0, k_stride = 0, v_stride = 0;
  int64_t lse_stride = 0;  // elements between consecutive heads of lse; 0: sq
  float scale = 0.0f;
  bool band = false;
  int64_t right_bound = 0;
};

// Holds a cuDNN handle, one built graph per distinct call shape, and a workspace. One per thread.
class CudnnSdpa {
 public:
  CudnnSdpa();
  ~CudnnSdpa();
  CudnnSdpa(const CudnnSdpa&) = delete;
  CudnnSdpa& operator=(const CudnnSdpa&) = delete;
  // Enqueues the call on `stream`; the first call of a shape builds its graph (milliseconds to
  // seconds). Errors carry cuDNN's message.
  Status run(const CudnnSdpaCall& call, cudaStream_t stream);

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace codesign
}  // namespace cuco
