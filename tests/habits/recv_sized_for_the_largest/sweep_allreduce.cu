// Habit of collective benchmarks (written here, not copied): the buffers are allocated once for the
// largest message the benchmark may time, and the size it times (the first argument, 1 Mi floats by
// default) all-reduces into the front of the receive buffer. The rest of it is never written.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, float v) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = v + 1e-6f * (i % 977);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int gpus = 0;
  CUDA_OK(cudaGetDeviceCount(&gpus));
  CUDA_OK(cudaSetDevice(rank % gpus));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, nranks, id, rank));
  cudaStream_t stream;
  CUDA_OK(cudaStreamCreate(&stream));

  const size_t max_count = size_t{1} << 22;
  const size_t count = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : size_t{1} << 20;
  if (count > max_count) {
    std::fprintf(stderr, "at most %zu floats\n", max_count);
    return 2;
  }
  float *send, *recv;
  CUDA_OK(cudaMalloc(&send, max_count * sizeof(float)));
  CUDA_OK(cudaMalloc(&recv, max_count * sizeof(float)));
  fill<<<256, 256, 0, stream>>>(send, max_count, 1.0f + rank);

  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  for (int i = 0; i < 5; ++i) NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
  CUDA_OK(cudaEventRecord(start, stream));
  for (int i = 0; i < 50; ++i) {
    NCCL_OK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, comm, stream));
  }
  CUDA_OK(cudaEventRecord(stop, stream));
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
  if (rank == 0) std::printf("all-reduce of %zu floats: %.3f ms, %.1f GB/s\n", count, ms / 50, count * 4.0 / (ms / 50) / 1e6);
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
