// Included by main.cu: the ring loop, through util/comm.h's exchange.
#pragma once
#include "util/comm.h"

__global__ void scale(float* x, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= 2.0f;
}

void forward(float* q, float* out, size_t n, ncclComm_t comm, cudaStream_t s) {
  float* recv;
  cudaMalloc(&recv, n * sizeof(float));
  Ring r{q, recv, n, 1, 1};
  for (int step = 0; step < 2; ++step) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(q, n);
    exchange(r, comm, s);
  }
  cudaMemcpyAsync(out, recv, n * sizeof(float), cudaMemcpyDeviceToDevice, s);
  cudaFree(recv);
}
