// A collective benchmark's driver: MPI and NCCL set up, then a sweep of sizes, each run by the
// runner of bench.cu, which makes its own buffers.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>

#include "bench.h"

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
  for (size_t count = 1024; count <= (size_t(1) << 22); count *= 4) {
    const double ms = run_size(count, 5, 20, comm, stream, rank);
    if (rank == 0) std::printf("%12zu floats  %8.3f ms  %8.2f GB/s\n", count, ms, count * 4.0 / ms / 1e6);
  }
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
