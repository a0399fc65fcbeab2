// cuco/codesign/gemm.h: the compute block, a row-major bf16 GEMM on cuBLASLt.
//
//   D[m x n] = A[m x k] * B[k x n] (+ C[m x n] when C is given), bf16 in and out, fp32 accumulate,
// all row-major with leading dimensions fixed at init; m varies per call (chunks), and a call
// may be a strided batch (several row blocks at once). Row-major D = A B is column-major
// D^T = B^T A^T, so cuBLASLt sees B's buffer as its first operand; nothing is transposed.
//
// The fused C term is how chunked reduce-scatters accumulate: D = A B + C with C a partial sum
// that arrived from a peer is one GEMM with beta = 1 (one bf16 rounding, like NCCL's ring).
// sm_count_target (cuBLASLt's SM_COUNT_TARGET) plans the GEMM for fewer SMs, leaving the rest
// to a concurrent communication kernel. D may be a peer's LSA pointer: the GEMM's own epilogue
// then performs the communication (placement kInKernel).
//
// Algorithm choice: by default a plan takes the cuBLASLt heuristic's first algorithm. After
// set_algorithm_search(n > 1), prepare() times up to n of the heuristic's algorithms on random
// data of the plan's own shape and keeps the fastest. On one H200, timed in short bursts the first
// choice was up to 20 % slower than the best for some chunk and MoE shapes (bench/gemm_algo_sweep.cu),
// yet under sustained load the timed choice ran no faster and MoE's FFNs 5 % slower
// (bench/results/2026-11-24-one-gpu-h200): it is a knob for the search, not a default.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cuco/harness.h>

namespace cuco {
namespace codesign {

namespace gemm_detail {
// Fills scratch with bf16 values uniform in [-1, 1) (the bits of a hashed index): timing on
// zeros would flatter every algorithm's power draw alike but not its speed.
__global__ void fill_random_bf16(uint16_t* p, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    uint32_t x = static_cast<uint32_t>(i) * 2654435761u ^ static_cast<uint32_t>(i >> 32) * 40503u;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    p[i] = static_cast<uint16_t>(0x3F00u | (x & 0x807Fu));  // sign, exponent of [0.5, 1), 7 mantissa bits
  }
}
}  // namespace gemm_detail

class RowMajorGemm {
 public:
  // lda / ldb / ldd in elements. workspace_bytes of cuBLASLt workspace are allocated here.
  Status init(cublasLtHandle_t handle, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldd,
              size_t workspace_bytes, int sm_count_target = 0) {
    handle_ = handle;
    n_ = n;
    k_ = k;
    lda_ = lda;
    ldb_ = ldb;
    ldd_ = ldd;
    workspace_bytes_ = workspace_bytes;
    sm_target_ = sm_count_target;
    if (workspace_bytes_ > 0) CUCO_CUDA_CHECK(cudaMalloc(&workspace_, workspace_bytes_));
    return Status::Ok();
  }

  // Enqueues D = A B (+ C) for m rows on `stream`. With batch > 1, batch b uses A + b*stride_a,
  // D + b*stride_d, C + b*stride_d (element strides). The plan for each distinct shape is made
  // on first use (cuBLASLt heuristic; host work, so warm every shape up in setup or warm-up).
  Status run(cudaStream_t stream, const void* A, const void* B, void* D, int64_t m, const void* C = nullptr,
             int batch = 1, int64_t stride_a = 0, int64_t stride_d = 0) {
    Plan* p = nullptr;
    Status s = plan(m, C != nullptr, batch, stride_a, stride_d, &p);
    if (!s.ok()) return s;
    const float alpha = 1.0f, beta = C != nullptr ? 1.0f : 0.0f;
    CUCO_CUBLAS_CHECK(cublasLtMatmul(handle_, p->op, &alpha, B, p->a, A, p->b, &beta, C != nullptr ? C : D, p->d, D,
                                     p->d, &p->algo, workspace_, workspace_bytes_, stream));
    return Status::Ok();
  }

  // How many of the heuristic's algorithms prepare() times for each new plan (1: take the first,
  // no timing). Applies to plans made after the call.
  void set_algorithm_search(int candidates) { search_ = std::max(1, std::min(candidates, kMaxSearch)); }

  // Makes the plan for a shape now and runs it on scratch memory, so that its kernel is loaded
  // before any iteration (call in setup; see flags.h, "Lazy loading"); with an algorithm search,
  // first times the candidates there and keeps the fastest. Synchronises the device.
  Status prepare(int64_t m, bool with_c, int batch = 1, int64_t stride_a = 0, int64_t stride_d = 0) {
    const bool fresh = plans_.find(Key{m, with_c, batch, stride_a, stride_d}) == plans_.end();
    Plan* p = nullptr;
    Status s = plan(m, with_c, batch, stride_a, stride_d, &p);
    if (!s.ok()) return s;
    const int64_t rows_a = stride_a > 0 ? stride_a / lda_ * (batch - 1) + m : m;
    const int64_t rows_d = stride_d > 0 ? stride_d / ldd_ * (batch - 1) + m : m;
    const int64_t n_a = rows_a * lda_, n_b = k_ * ldb_, n_d = rows_d * ldd_;
    void *a = nullptr, *b = nullptr, *d = nullptr;
    CUCO_CUDA_CHECK(cudaMalloc(&a, static_cast<size_t>(n_a) * 2));
    CUCO_CUDA_CHECK(cudaMalloc(&b, static_cast<size_t>(n_b) * 2));
    CUCO_CUDA_CHECK(cudaMalloc(&d, static_cast<size_t>(n_d) * 2));
    if (fresh && p->found > 1) {
      gemm_detail::fill_random_bf16<<<1024, 256>>>(static_cast<uint16_t*>(a), n_a);
      gemm_detail::fill_random_bf16<<<1024, 256>>>(static_cast<uint16_t*>(b), n_b);
      gemm_detail::fill_random_bf16<<<1024, 256>>>(static_cast<uint16_t*>(d), n_d);
      s = choose_fastest(p, a, b, d, m, with_c, batch, stride_a, stride_d);
    } else {
      CUCO_CUDA_CHECK(cudaMemset(a, 0, static_cast<size_t>(n_a) * 2));
      CUCO_CUDA_CHECK(cudaMemset(b, 0, static_cast<size_t>(n_b) * 2));
      CUCO_CUDA_CHECK(cudaMemset(d, 0, static_cast<size_t>(n_d) * 2));
    }
    if (s.ok()) s = run(nullptr, a, b, d, m, with_c ? d : nullptr, batch, stride_a, stride_d);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaFree(a);
    cudaFree(b);
    cudaFree(d);
    if (!s.ok()) return s;
    CUCO_CUDA_CHECK(e);
    return Status::Ok();
  }

  // Index, in the heuristic's order, of the algorithm a prepared plan runs (0: its first choice).
  int chosen_algorithm(int64_t m, bool with_c, int batch = 1, int64_t stride_a = 0, int64_t stride_d = 0) const {
    auto it = plans_.find(Key{m, with_c, batch, stride_a, stride_d});
    return it == plans_.end() ? -1 : it->second.chosen;
  }

  void destroy() {
    for (auto& [key, p] : plans_) {
      if (p.d) cublasLtMatrixLayoutDestroy(p.d);
      if (p.b) cublasLtMatrixLayoutDestroy(p.b);
      if (p.a) cublasLtMatrixLayoutDestroy(p.a);
      if (p.op) cublasLtMatmulDescDestroy(p.op);
    }
    plans_.clear();
    if (workspace_) cudaFree(workspace_);
    workspace_ = nullptr;
  }

 private:
  static constexpr int kMaxSearch = 16;
  struct Plan {
    cublasLtMatmulDesc_t op = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
    cublasLtMatmulAlgo_t algo{};
    cublasLtMatmulAlgo_t candidates[kMaxSearch] = {};  // the heuristic's first `found`, best first
    int found = 0, chosen = 0;
  };

  // Times each candidate (2 untimed runs, then the median of 5, CUDA events on the legacy stream)
  // and makes the fastest the plan's algorithm; a candidate that fails to run is skipped.
  Status choose_fastest(Plan* p, const void* a, const void* b, void* d, int64_t m, bool with_c, int batch,
                        int64_t stride_a, int64_t stride_d) {
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    CUCO_CUDA_CHECK(cudaEventCreate(&e0));
    CUCO_CUDA_CHECK(cudaEventCreate(&e1));
    float best = -1.0f;
    for (int i = 0; i < p->found; ++i) {
      p->algo = p->candidates[i];
      bool ok = true;
      std::vector<float> t;
      for (int r = 0; r < 7 && ok; ++r) {
        if (r >= 2) cudaEventRecord(e0, nullptr);
        ok = run(nullptr, a, b, d, m, with_c ? d : nullptr, batch, stride_a, stride_d).ok();
        if (r >= 2 && ok) {
          cudaEventRecord(e1, nullptr);
          float ms = 0;
          ok = cudaEventSynchronize(e1) == cudaSuccess && cudaEventElapsedTime(&ms, e0, e1) == cudaSuccess;
          t.push_back(ms);
        }
      }
      cudaGetLastError();  // a failed candidate leaves no sticky error: cuBLASLt rejects it before launching
      if (!ok) continue;
      std::sort(t.begin(), t.end());
      if (best < 0 || t[t.size() / 2] < best) {
        best = t[t.size() / 2];
        p->chosen = i;
      }
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    if (best < 0) return Status::Error("cuBLASLt: none of the heuristic's algorithms ran for a GEMM of " +
                                       std::to_string(m) + " rows");
    p->algo = p->candidates[p->chosen];
    return Status::Ok();
  }
  using Key = std::tuple<int64_t, bool, int, int64_t, int64_t>;

  static Status batch_layout(cublasLtMatrixLayout_t l, int batch, int64_t stride) {
    if (batch <= 1) return Status::Ok();
    CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch));
    CUCO_CUBLAS_CHECK(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
    return Status::Ok();
  }

  Status plan(int64_t m, bool with_c, int batch, int64_t stride_a, int64_t stride_d, Plan** out) {
    const Key key{m, with_c, batch, stride_a, stride_d};
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      *out = &it->second;
      return Status::Ok();
    }
    Plan p;
    CUCO_CUBLAS_CHECK(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t no = CUBLAS_OP_N;
    CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &no, sizeof no));
    CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &no, sizeof no));
    if (sm_target_ > 0)
      CUCO_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET, &sm_target_,
                                                       sizeof sm_target_));
    CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.a, CUDA_R_16BF, n_, k_, ldb_));  // B^T view: n x k
    CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.b, CUDA_R_16BF, k_, m, lda_));   // A^T view: k x m
    CUCO_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p.d, CUDA_R_16BF, n_, m, ldd_));   // D^T view: n x m
    Status s = batch_layout(p.a, batch, 0);
    if (s.ok()) s = batch_layout(p.b, batch, stride_a);
    if (s.ok()) s = batch_layout(p.d, batch, stride_d);
    if (!s.ok()) return s;
    cublasLtMatmulPreference_t pref = nullptr;
    CUCO_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                         sizeof workspace_bytes_);
    cublasLtMatmulHeuristicResult_t h[kMaxSearch];
    int found = 0;
    const cublasStatus_t hs =
        cublasLtMatmulAlgoGetHeuristic(handle_, p.op, p.a, p.b, p.d, p.d, pref, search_, h, &found);
    cublasLtMatmulPreferenceDestroy(pref);
    CUCO_CUBLAS_CHECK(hs);
    if (found < 1) return Status::Error("cuBLASLt found no algorithm for a bf16 GEMM of " + std::to_string(m) + " rows");
    for (int i = 0; i < found; ++i) p.candidates[i] = h[i].algo;
    p.found = found;
    p.algo = h[0].algo;
    *out = &(plans_[key] = p);
    return Status::Ok();
  }

  cublasLtHandle_t handle_ = nullptr;
  int64_t n_ = 0, k_ = 0, lda_ = 0, ldb_ = 0, ldd_ = 0;
  void* workspace_ = nullptr;
  size_t workspace_bytes_ = 0;
  int sm_target_ = 0;
  int search_ = 1;
  std::map<Key, Plan> plans_;
};

}  // namespace codesign
}  // namespace cuco
