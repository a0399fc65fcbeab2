// Habit of tensor-parallel decode benchmarks laid out in files (written here, not copied): the
// function main calls starts a std::thread per GPU on a lambda, and each thread makes its NCCL rank,
// runs a row-parallel layer (a cuBLAS GEMM, then an all-reduce of its output) in a timed loop.
#include "runner.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 7 + seed) % 13) / 13.0f - 0.5f;
}

float run_row_parallel(int gpus, int tokens, int hidden, int iters) {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<float> ms(gpus, 0.0f);
  std::vector<std::thread> threads;
  for (int g = 0; g < gpus; ++g) {
    threads.emplace_back([&, g]() {
      CHECK_CUDA(cudaSetDevice(g));
      ncclComm_t comm;
      ncclCommInitRank(&comm, gpus, id, g);
      cudaStream_t stream;
      CHECK_CUDA(cudaStreamCreate(&stream));
      cublasHandle_t blas;
      cublasCreate(&blas);
      cublasSetStream(blas, stream);
      const int shard = 4 * hidden / gpus;  // the layer's input dimension split over the GPUs
      float *x, *w, *y;
      CHECK_CUDA(cudaMalloc(&x, sizeof(float) * tokens * shard));
      CHECK_CUDA(cudaMalloc(&w, sizeof(float) * shard * hidden));
      CHECK_CUDA(cudaMalloc(&y, sizeof(float) * tokens * hidden));
      fill<<<64, 256, 0, stream>>>(x, static_cast<size_t>(tokens) * shard, g);
      fill<<<64, 256, 0, stream>>>(w, static_cast<size_t>(shard) * hidden, g + 3);
      const float one = 1.0f, zero = 0.0f;
      cudaEvent_t start, stop;
      CHECK_CUDA(cudaEventCreate(&start));
      CHECK_CUDA(cudaEventCreate(&stop));
      CHECK_CUDA(cudaEventRecord(start, stream));
      for (int i = 0; i < iters; ++i) {
        cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, hidden, tokens, shard, &one, w, hidden, x, shard, &zero, y, hidden);
        ncclAllReduce(y, y, static_cast<size_t>(tokens) * hidden, ncclFloat, ncclSum, comm, stream);
      }
      CHECK_CUDA(cudaEventRecord(stop, stream));
      CHECK_CUDA(cudaEventSynchronize(stop));
      CHECK_CUDA(cudaEventElapsedTime(&ms[g], start, stop));
      cublasDestroy(blas);
      cudaFree(x);
      cudaFree(w);
      cudaFree(y);
      ncclCommDestroy(comm);
    });
  }
  for (auto& t : threads) t.join();
  return ms[0] / iters;
}
