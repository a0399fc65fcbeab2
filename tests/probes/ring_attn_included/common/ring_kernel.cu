// The ring attention of one query block against every rank's K/V block (included by main.cu).
#pragma once
#include <utility>
#include "util/nccl_utils.h"

// Running row max / sum / output over one K/V block (naive: one thread per query row).
__global__ void attend_block(const float* q, const float* k, const float* v, float* o, float* m, float* l, int rows,
                             int d) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  for (int j = 0; j < rows; ++j) {
    float s = 0.f;
    for (int c = 0; c < d; ++c) s += q[r * d + c] * k[j * d + c];
    s /= sqrtf((float)d);
    float m_new = fmaxf(m[r], s);
    float scale = __expf(m[r] - m_new), p = __expf(s - m_new);
    for (int c = 0; c < d; ++c) o[r * d + c] = o[r * d + c] * scale + p * v[j * d + c];
    l[r] = l[r] * scale + p;
    m[r] = m_new;
  }
}

__global__ void normalise(float* o, const float* l, int rows, int d) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * d) o[i] /= l[i / d];
}

__global__ void start_stats(float* m, float* l, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) m[r] = -1e30f, l[r] = 0.f;
}

// O = softmax(Q K^T / sqrt(d)) V over the K/V blocks of every rank, travelling around the ring.
void ring_attention(const float* q, const float* k, const float* v, float* o, int rows, int d, int rank, int size,
                    ncclComm_t comm) {
  float *k_cur, *v_cur, *k_next, *v_next, *m, *l;
  size_t bytes = (size_t)rows * d * sizeof(float);
  cudaMalloc(&k_cur, bytes);
  cudaMalloc(&v_cur, bytes);
  cudaMalloc(&k_next, bytes);
  cudaMalloc(&v_next, bytes);
  cudaMalloc(&m, rows * sizeof(float));
  cudaMalloc(&l, rows * sizeof(float));
  cudaMemcpy(k_cur, k, bytes, cudaMemcpyDeviceToDevice);
  cudaMemcpy(v_cur, v, bytes, cudaMemcpyDeviceToDevice);
  cudaMemset(o, 0, bytes);
  start_stats<<<(rows + 127) / 128, 128>>>(m, l, rows);
  cudaStream_t comm_stream;
  cudaStreamCreate(&comm_stream);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int step = 0; step < size; ++step) {
    attend_block<<<(rows + 127) / 128, 128>>>(q, k_cur, v_cur, o, m, l, rows, d);
    if (step + 1 < size) {
      ring_step(k_cur, k_next, (size_t)rows * d, next, prev, comm, comm_stream);
      ring_step(v_cur, v_next, (size_t)rows * d, next, prev, comm, comm_stream);
      cudaDeviceSynchronize();
      std::swap(k_cur, k_next);
      std::swap(v_cur, v_next);
    }
  }
  normalise<<<(rows * d + 255) / 256, 256>>>(o, l, rows, d);
  cudaDeviceSynchronize();
  cudaStreamDestroy(comm_stream);
  cudaFree(k_cur);
  cudaFree(v_cur);
  cudaFree(k_next);
  cudaFree(v_next);
  cudaFree(m);
  cudaFree(l);
}
