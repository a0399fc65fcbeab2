// Habit of collective benchmarks (written here, not copied): an in-place all-reduce timed in a loop
// whose every pass ends by putting the buffer back to its starting values, so that values do not
// grow pass after pass. The iteration's result is thrown away by the program itself: what it leaves
// is the same whatever the all-reduce computed, and no check of it can tell a candidate that skips
// the all-reduce (cuco's reference refuses it: its outputs are the same for two seeds' inputs).
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

__global__ void reset(float* buf, size_t n, float value) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) buf[i] = value;
}

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const size_t n = 1 << 20;
  float* buf;
  cudaMalloc(&buf, n * sizeof(float));
  reset<<<256, 256, 0, s>>>(buf, n, 1.0f + rank);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int iters = 20;
  cudaEventRecord(t0, s);
  for (int it = 0; it < iters; ++it) {
    ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s);
    reset<<<256, 256, 0, s>>>(buf, n, 1.0f + rank);
  }
  cudaEventRecord(t1, s);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  std::printf("rank %d: %.3f ms per all-reduce\n", rank, ms / iters);
  ncclCommDestroy(comm);
  return 0;
}
