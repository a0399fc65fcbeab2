// A tensor-parallel layer's driver built from two files (`nvcc main.cu layer.cu`), of which the user
// names only main.cu to cuco: its layer (GEMM, then all-reduce) is in layer.cu.
#include <mpi.h>
#include <nccl.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

#include "layer.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t blas;
  cublasCreate(&blas);

  const int tokens = 512, in_local = 1024, out = 1024;
  std::vector<float> host(static_cast<size_t>(in_local) * out);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>((i * 7 + rank) % 13) / 13.0f - 0.5f;
  float *x, *w, *y;
  cudaMalloc(&x, sizeof(float) * tokens * in_local);
  cudaMalloc(&w, sizeof(float) * in_local * out);
  cudaMalloc(&y, sizeof(float) * tokens * out);
  cudaMemcpy(w, host.data(), sizeof(float) * host.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(x, host.data(), sizeof(float) * tokens * in_local, cudaMemcpyHostToDevice);

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int it = 0; it < 50; ++it) layer_forward(blas, comm, stream, x, w, y, tokens, in_local, out);
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) std::printf("Time: %.4f ms\n", ms / 50);

  cublasDestroy(blas);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
