// Habit of "first communicator" tutorials (written here, not copied): the program creates a
// communicator per rank and prints what it says about itself; it never communicates.
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
  int r = -1, n = -1, d = -1;
  ncclCommUserRank(comm, &r);
  ncclCommCount(comm, &n);
  ncclCommCuDevice(comm, &d);
  std::printf("rank %d of %d on GPU %d\n", r, n, d);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
