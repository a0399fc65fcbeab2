// The two implementations bench.cpp chooses between: MPI on the host, and NCCL on the GPU.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>

void allreduce_mpi(float* host, int n, int iters) {
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) MPI_Allreduce(MPI_IN_PLACE, host, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  printf("mpi: %.3f ms\n", (MPI_Wtime() - t0) * 1e3 / iters);
}

void allreduce_nccl(int rank, int ranks, int n, int iters) {
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  float* buf;
  cudaMalloc(&buf, n * sizeof(float));
  cudaMemset(buf, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int i = 0; i < iters; ++i) ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  cudaFree(buf);
  ncclCommDestroy(comm);
}
