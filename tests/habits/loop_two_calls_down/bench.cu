// Habit of benchmarks whose main only sets up and reports (written here, not copied): the timed loop
// sits two calls below main, in a function template instantiated for one type, called once from a
// function that main calls once.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

template <typename T>
__global__ void scale(T* x, size_t n, T by) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * by;
}

template <typename T>
double TimeAllReduce(const T* send, T* recv, T* work, size_t n, ncclDataType_t type, ncclComm_t comm, cudaStream_t s,
                     int iters) {
  cudaEvent_t a, b;
  CUDA_OK(cudaEventCreate(&a));
  CUDA_OK(cudaEventCreate(&b));
  CUDA_OK(cudaEventRecord(a, s));
  for (int it = 0; it < iters; ++it) {
    CUDA_OK(cudaMemcpyAsync(work, send, n * sizeof(T), cudaMemcpyDeviceToDevice, s));
    scale<<<128, 256, 0, s>>>(work, n, T(2));
    NCCL_OK(ncclAllReduce(work, recv, n, type, ncclSum, comm, s));
  }
  CUDA_OK(cudaEventRecord(b, s));
  CUDA_OK(cudaEventSynchronize(b));
  float ms = 0;
  CUDA_OK(cudaEventElapsedTime(&ms, a, b));
  return ms / iters;
}

void RunBenchmark(ncclComm_t comm, cudaStream_t s, int rank) {
  const size_t n = size_t{1} << 20;
  float *send, *recv, *work;
  CUDA_OK(cudaMalloc(&send, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&recv, n * sizeof(float)));
  CUDA_OK(cudaMalloc(&work, n * sizeof(float)));
  CUDA_OK(cudaMemset(send, 0, n * sizeof(float)));
  const double ms = TimeAllReduce<float>(send, recv, work, n, ncclFloat, comm, s, 20);
  if (rank == 0) std::printf("scale + all-reduce of %zu floats: %.3f ms\n", n, ms);
  CUDA_OK(cudaFree(send));
  CUDA_OK(cudaFree(recv));
  CUDA_OK(cudaFree(work));
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
  cudaStream_t s;
  CUDA_OK(cudaStreamCreate(&s));
  RunBenchmark(comm, s, rank);
  NCCL_OK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
