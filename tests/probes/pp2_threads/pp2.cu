// Two-stage pipeline-parallel forward, one std::thread per GPU.
// Stage 0: y0 = relu(x * W0), ncclSend(y0) per micro-batch.  Stage 1: ncclRecv -> GEMM with W1.
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <chrono>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include <nccl.h>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) \
  throw std::runtime_error(std::string("CUDA: ") + cudaGetErrorString(e_) + " at " + __FILE__ + ":" + std::to_string(__LINE__)); } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) \
  throw std::runtime_error(std::string("NCCL: ") + ncclGetErrorString(r_) + " at " + __FILE__ + ":" + std::to_string(__LINE__)); } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) \
  throw std::runtime_error(std::string("cuBLAS error ") + std::to_string((int)s_) + " at " + __FILE__ + ":" + std::to_string(__LINE__)); } while (0)

constexpr int kMicroBatches = 8;
constexpr int kMicroTokens = 256;
constexpr int kHidden = 2048;
constexpr int kIters = 20;

__global__ void relu_inplace(float* a, size_t n) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] > 0.f ? a[i] : 0.f;
}

__global__ void fill_pattern(float* a, size_t n, float scale, int seed) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) a[i] = scale * (float)(((i * 131 + seed * 71) % 1000) - 500) / 500.f;
}

struct Result { double checksum = 0; double ms = 0; };

void stage_worker(int rank, int nranks, ncclUniqueId id, Result* res) {
  CHECK_CUDA(cudaSetDevice(rank));
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  CHECK_CUBLAS(cublasCreate(&blas));
  CHECK_CUBLAS(cublasSetStream(blas, stream));

  const size_t act_elems = (size_t)kMicroBatches * kMicroTokens * kHidden;
  const size_t mb_elems = (size_t)kMicroTokens * kHidden;
  float *x = nullptr, *w = nullptr, *act = nullptr, *out = nullptr;
  CHECK_CUDA(cudaMalloc(&w, sizeof(float) * kHidden * kHidden));
  CHECK_CUDA(cudaMalloc(&act, sizeof(float) * act_elems));
  fill_pattern<<<(kHidden * kHidden + 255) / 256, 256, 0, stream>>>(w, (size_t)kHidden * kHidden, 0.02f, rank);
  if (rank == 0) {
    CHECK_CUDA(cudaMalloc(&x, sizeof(float) * act_elems));
    fill_pattern<<<(act_elems + 255) / 256, 256, 0, stream>>>(x, act_elems, 1.f, 7);
  } else {
    CHECK_CUDA(cudaMalloc(&out, sizeof(float) * act_elems));
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  const float one = 1.f, zero = 0.f;

  auto t0 = std::chrono::high_resolution_clock::now();
  for (int iter = 0; iter < kIters; ++iter) {
    for (int mb = 0; mb < kMicroBatches; ++mb) {
      float* a = act + mb * mb_elems;
      if (rank == 0) {
        CHECK_CUBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kHidden, kMicroTokens, kHidden,
                                 &one, w, kHidden, x + mb * mb_elems, kHidden, &zero, a, kHidden));
        relu_inplace<<<(mb_elems + 255) / 256, 256, 0, stream>>>(a, mb_elems);
        CHECK_NCCL(ncclSend(a, mb_elems, ncclFloat, 1, comm, stream));
      } else {
        CHECK_NCCL(ncclRecv(a, mb_elems, ncclFloat, 0, comm, stream));
        CHECK_CUBLAS(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, kHidden, kMicroTokens, kHidden,
                                 &one, w, kHidden, a, kHidden, &zero, out + mb * mb_elems, kHidden));
      }
    }
  }
  CHECK_CUDA(cudaStreamSynchronize(stream));
  auto t1 = std::chrono::high_resolution_clock::now();
  res->ms = std::chrono::duration<double, std::milli>(t1 - t0).count() / kIters;

  if (rank == 1) {
    std::vector<float> h(act_elems);
    CHECK_CUDA(cudaMemcpy(h.data(), out, sizeof(float) * act_elems, cudaMemcpyDeviceToHost));
    double s = 0; for (float v : h) s += v;
    res->checksum = s;
  }
  cublasDestroy(blas);
  cudaFree(w); cudaFree(act); if (x) cudaFree(x); if (out) cudaFree(out);
  cudaStreamDestroy(stream);
  ncclCommDestroy(comm);
}

int main() {
  int ndev = 0;
  CHECK_CUDA(cudaGetDeviceCount(&ndev));
  if (ndev < 2) { fprintf(stderr, "need 2 GPUs\n"); return 1; }
  const int nranks = 2;
  ncclUniqueId id;
  CHECK_NCCL(ncclGetUniqueId(&id));
  std::vector<Result> results(nranks);
  std::vector<std::thread> threads;
  for (int r = 0; r < nranks; ++r)
    threads.emplace_back([&, r]() {
      try { stage_worker(r, nranks, id, &results[r]); }
      catch (const std::exception& e) { fprintf(stderr, "rank %d: %s\n", r, e.what()); std::abort(); }
    });
  for (auto& t : threads) t.join();
  printf("pp2: %.3f ms/iter (stage0) %.3f ms/iter (stage1)\n", results[0].ms, results[1].ms);
  printf("checksum %.6e\n", results[1].checksum);
  return 0;
}
