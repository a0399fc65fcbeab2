// Each size's buffers are the run's own locals, made and freed around its timed loop.
#include "bench.h"

#include <cstdio>

__global__ void init_values(float* x, size_t n, int rank) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i + 3 * rank) % 11);
}

double run_size(size_t count, int warmup, int iters, ncclComm_t comm, cudaStream_t stream, int rank) {
  float *send, *recv;
  cudaMalloc(&send, count * sizeof(float));
  cudaMalloc(&recv, count * sizeof(float));
  init_values<<<32, 256, 0, stream>>>(send, count, rank);
  for (int i = 0; i < warmup; ++i) ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int i = 0; i < iters; ++i) ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(send);
  cudaFree(recv);
  return ms / iters;
}
