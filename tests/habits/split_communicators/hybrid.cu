// Habit of hybrid-parallel programs (written here, not copied): the world communicator is split by
// rank parity into two groups (data-parallel pairs at four ranks), each step all-reduces within the
// group, then across the world.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void scale(const float* in, float* out, size_t n, float by) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = in[i] * by;
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
  ncclComm_t world, group;
  NCCL_OK(ncclCommInitRank(&world, nranks, id, rank));
  NCCL_OK(ncclCommSplit(world, rank % 2, rank, &group, nullptr));
  int group_size = 0;
  NCCL_OK(ncclCommCount(group, &group_size));
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));

  const size_t n = size_t{1} << 20;
  float *grad, *scaled, *local, *global;
  CUDA_OK(cudaMalloc(&grad, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&scaled, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&local, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&global, n * sizeof(float)));
  CUDA_OK(cudaMemset(grad, 0, n * sizeof(float)));

  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  CUDA_OK(cudaEventRecord(a, s));
  for (int step = 0; step < 20; ++step) {
    scale<<<256, 256, 0, s>>>(grad, scaled, n, 1.0f / group_size);
    NCCL_OK(ncclAllReduce(scaled, local, n, ncclFloat, ncclSum, group, s));
    NCCL_OK(ncclAllReduce(local, global, n, ncclFloat, ncclSum, world, s));
  }
  CUDA_OK(cudaEventRecord(b, s));
  CUDA_OK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, a, b));
  if (rank == 0) std::printf("group then world all-reduce: %.3f ms\n", ms / 20);
  NCCL_OK(ncclCommDestroy(group));
  NCCL_OK(ncclCommDestroy(world));
  MPI_Finalize();
  return 0;
}
