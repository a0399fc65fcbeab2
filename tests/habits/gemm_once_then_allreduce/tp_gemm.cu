// Habit of first tensor-parallel programs (written here, not copied): each rank fills its shard of
// the inputs with a kernel, multiplies its shards with one cuBLAS GEMM, and sums the partial
// products with one all-reduce. No loop: the program communicates once, and its GEMM feeds it.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)
#define NCCL_OK(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 31 + seed) % 17) / 17.0f - 0.5f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CUDA_OK(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) NCCL_OK(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCL_OK(ncclCommInitRank(&comm, ranks, id, rank));
  const int m = 1024, n = 1024, k = 4096 / ranks;  // K split across the ranks
  float *a, *b, *c;
  CUDA_OK(cudaMalloc(&a, sizeof(float) * m * k));
  CUDA_OK(cudaMalloc(&b, sizeof(float) * k * n));
  CUDA_OK(cudaMalloc(&c, sizeof(float) * m * n));
  fill<<<128, 256>>>(a, static_cast<size_t>(m) * k, rank);
  fill<<<128, 256>>>(b, static_cast<size_t>(k) * n, rank + 7);
  cublasHandle_t handle;
  cublasCreate(&handle);
  const float one = 1.0f, zero = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k, &zero, c, m);
  CUDA_OK(cudaDeviceSynchronize());
  NCCL_OK(ncclAllReduce(c, c, static_cast<size_t>(m) * n, ncclFloat, ncclSum, comm, 0));
  CUDA_OK(cudaDeviceSynchronize());
  float corner = 0.0f;
  CUDA_OK(cudaMemcpy(&corner, c, sizeof(float), cudaMemcpyDeviceToHost));
  if (rank == 0) std::printf("C[0][0] = %f\n", corner);
  cublasDestroy(handle);
  cudaFree(a);
  cudaFree(b);
  cudaFree(c);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
