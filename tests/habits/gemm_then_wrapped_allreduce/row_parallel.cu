// Habit of tensor-parallel programs that keep NCCL behind a class (written here, not copied): a
// row-parallel layer's GEMM on the class's stream, then the class's all_reduce of its output,
// timed with events over a loop.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdio>
#include "communicator.h"

#define CUDA_OK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

__global__ void fill(float* x, size_t n, int seed) {
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    x[i] = static_cast<float>((i * 13 + seed) % 11) / 11.0f - 0.5f;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  CUDA_OK(cudaSetDevice(rank));
  Communicator comm(rank, ranks);
  const int tokens = 2048, hidden = 2048, ffn = 8192 / ranks;  // the layer's input dimension split
  float *x, *w, *y;
  CUDA_OK(cudaMalloc(&x, sizeof(float) * tokens * ffn));
  CUDA_OK(cudaMalloc(&w, sizeof(float) * ffn * hidden));
  CUDA_OK(cudaMalloc(&y, sizeof(float) * tokens * hidden));
  fill<<<128, 256>>>(x, static_cast<size_t>(tokens) * ffn, rank);
  fill<<<128, 256>>>(w, static_cast<size_t>(ffn) * hidden, rank + 5);
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, comm.stream());
  const float one = 1.0f, zero = 0.0f;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, comm.stream());
  for (int it = 0; it < 20; ++it) {
    cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, hidden, tokens, ffn, &one, w, hidden, x, ffn, &zero, y, hidden);
    comm.all_reduce(y, static_cast<size_t>(tokens) * hidden);
  }
  cudaEventRecord(stop, comm.stream());
  CUDA_OK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) std::printf("%.3f ms a layer\n", ms / 20);
  cublasDestroy(blas);
  cudaFree(x);
  cudaFree(w);
  cudaFree(y);
  MPI_Finalize();
  return 0;
}
