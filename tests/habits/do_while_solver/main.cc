// Habit of iterative solvers (written here, not copied): the timed loop is a do...while, its
// condition after its body, a residual all-reduced every pass and the counter stepped in the body.
#include <cuda_runtime.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

__global__ void relax(const float* a, float* a_new, float* residual, size_t n) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const float left = i > 0 ? a[i - 1] : 0.0f, right = i + 1 < n ? a[i + 1] : 0.0f;
    a_new[i] = 0.5f * (left + right);
    if (i == 0) *residual = a_new[0] - a[0];
  }
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
  float *a, *a_new, *residual, *global_residual;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&a_new, n * sizeof(float));
  cudaMalloc(&residual, sizeof(float));
  cudaMalloc(&global_residual, sizeof(float));
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int iter_max = 100;
  int iter = 0;
  cudaEventRecord(t0, s);
  do {
    relax<<<256, 256, 0, s>>>(a, a_new, residual, n);
    ncclAllReduce(residual, global_residual, 1, ncclFloat, ncclSum, comm, s);
    ncclAllReduce(a_new, a, n, ncclFloat, ncclSum, comm, s);
    ++iter;
  } while (iter < iter_max);
  cudaEventRecord(t1, s);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  std::printf("rank %d: %.3f ms per pass\n", rank, ms / iter_max);
  ncclCommDestroy(comm);
  return 0;
}
