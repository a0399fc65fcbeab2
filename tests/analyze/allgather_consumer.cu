// Sequence-parallel input: each rank holds a shard of activations, ncclAllGather assembles the full
// tensor into a separate buffer, and a kernel reads the gathered tensor.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>

#define CHECK(x) do { if ((x) != 0) { std::fprintf(stderr, "failed: %s\n", #x); return 1; } } while (0)

__global__ void scale_shard(float* shard, size_t n, float s) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) shard[i] *= s;
}

__global__ void layer_norm_rows(const float* full, float* out, size_t rows, size_t cols) {
  size_t r = blockIdx.x;
  if (r >= rows) return;
  float sum = 0.f;
  for (size_t c = 0; c < cols; ++c) sum += full[r * cols + c];
  out[r] = sum / cols;
}

int run(ncclComm_t comm, int nranks, cudaStream_t stream) {
  const size_t shard_elems = 1 << 16, cols = 1024;
  float *shard = nullptr, *gathered = nullptr, *stats = nullptr;
  CHECK(cudaMalloc((void**)&shard, shard_elems * sizeof(float)));
  CHECK(cudaMallocAsync(&gathered, shard_elems * nranks * sizeof(float), stream));
  CHECK(cudaMalloc(&stats, shard_elems * nranks / cols * sizeof(float)));
  scale_shard<<<(shard_elems + 255) / 256, 256, 0, stream>>>(shard, shard_elems, 0.5f);
  CHECK(ncclAllGather((const void*)shard, (void*)gathered, shard_elems, ncclFloat32, comm, stream));
  layer_norm_rows<<<shard_elems * nranks / cols, 1, 0, stream>>>(gathered, stats, shard_elems * nranks / cols, cols);
  CHECK(cudaStreamSynchronize(stream));
  return 0;
}
