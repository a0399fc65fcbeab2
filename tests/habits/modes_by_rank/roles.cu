// Habit of producer/consumer demos (written here, not copied): rank 0 streams chunks in one loop
// and the other ranks receive them in another, each loop in its own branch of `if (rank == 0)`.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>

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
  const size_t n = 1 << 22;
  float* buf;
  cudaMalloc(&buf, n * sizeof(float));
  if (rank == 0) {
    for (int c = 0; c < 16; ++c)
      for (int p = 1; p < nranks; ++p) ncclSend(buf, n, ncclFloat, p, comm, s);
  } else {
    for (int c = 0; c < 16; ++c) ncclRecv(buf, n, ncclFloat, 0, comm, s);
  }
  cudaStreamSynchronize(s);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
