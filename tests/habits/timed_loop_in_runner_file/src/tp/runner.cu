// Habit of programs laid out in folders (written here, not copied): the timed loop lives in a
// runner function of its own file, whose locals are the buffers; main, in another file, only
// starts MPI and NCCL's bootstrap and calls the runner once.
#include "src/tp/runner.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void fill_shard(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 13 + seed) % 23) / 23.0f - 0.5f;
}

float run_profile(const RunOptions& opt, int rank, int ranks) {
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, ranks, id, rank));
  const int local_k = opt.k / ranks;
  float *d_a, *d_b, *d_c;
  CHECK_CUDA(cudaMalloc(&d_a, sizeof(float) * opt.m * local_k));
  CHECK_CUDA(cudaMalloc(&d_b, sizeof(float) * local_k * opt.n));
  CHECK_CUDA(cudaMalloc(&d_c, sizeof(float) * opt.m * opt.n));
  fill_shard<<<128, 256>>>(d_a, static_cast<size_t>(opt.m) * local_k, rank);
  fill_shard<<<128, 256>>>(d_b, static_cast<size_t>(local_k) * opt.n, rank + 5);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const float one = 1.0f, zero = 0.0f;
  auto step = [&]() {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, opt.m, opt.n, local_k, &one, d_a, opt.m, d_b, local_k, &zero, d_c, opt.m);
    CHECK_NCCL(ncclAllReduce(d_c, d_c, static_cast<size_t>(opt.m) * opt.n, ncclFloat, ncclSum, comm, stream));
  };
  for (int i = 0; i < opt.warmup; ++i) step();
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < opt.iters; ++i) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, opt.m, opt.n, local_k, &one, d_a, opt.m, d_b, local_k, &zero, d_c, opt.m);
    CHECK_NCCL(ncclAllReduce(d_c, d_c, static_cast<size_t>(opt.m) * opt.n, ncclFloat, ncclSum, comm, stream));
  }
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  float corner = 0.0f;
  CHECK_CUDA(cudaMemcpy(&corner, d_c, sizeof(float), cudaMemcpyDeviceToHost));
  if (rank == 0) std::printf("C[0][0] = %f\n", corner);
  cublasDestroy(handle);
  CHECK_CUDA(cudaFree(d_a));
  CHECK_CUDA(cudaFree(d_b));
  CHECK_CUDA(cudaFree(d_c));
  ncclCommDestroy(comm);
  return ms / opt.iters;
}
