// See include/layer.h: a row-parallel layer whose partial sums are all-reduced every step.
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdio>

#include "layer.h"

#ifndef TOKENS
#define TOKENS 512
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, nranks, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, s);
  Layer l{1024, 1024 / nranks, nullptr, nullptr};
  float* x;
  cudaMalloc(&l.weight, sizeof(float) * l.rows * l.cols);
  cudaMalloc(&l.out, sizeof(float) * l.rows * TOKENS);
  cudaMalloc(&x, sizeof(float) * l.cols * TOKENS);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  cudaEventRecord(t0, s);
  for (int step = 0; step < 20; ++step) {
    layer_forward(blas, l, x, TOKENS);
    ncclAllReduce(l.out, l.out, (size_t)l.rows * TOKENS, ncclFloat, ncclSum, comm, s);
  }
  cudaEventRecord(t1, s);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  if (rank == 0) std::printf("%.3f ms per step\n", ms / 20);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
