// Habit of collective benchmarks (written here, not copied): MPI and NCCL are started by an inline
// helper of a header the program keeps beside its sources; main's file never names MPI_Init.
#pragma once
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

struct Context {
  int rank = 0, size = 1;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

inline Context start_context(int* argc, char*** argv) {
  Context c;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  cudaSetDevice(c.rank);
  ncclUniqueId id;
  if (c.rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclCommInitRank(&c.comm, c.size, id, c.rank);
  cudaStreamCreate(&c.stream);
  return c;
}

inline void stop_context(Context& c) {
  ncclCommDestroy(c.comm);
  MPI_Finalize();
}
