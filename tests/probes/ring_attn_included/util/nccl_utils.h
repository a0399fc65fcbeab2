// MPI + NCCL bootstrap and the ring's send/recv, shared by the programs of this folder.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <nccl.h>

#define NCCL_OK(call)                                                                   \
  do {                                                                                  \
    ncclResult_t r_ = (call);                                                           \
    if (r_ != ncclSuccess) {                                                            \
      std::fprintf(stderr, "NCCL %s:%d: %s\n", __FILE__, __LINE__, ncclGetErrorString(r_)); \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

inline void start_mpi_nccl(int* argc, char*** argv, int* rank, int* size, ncclComm_t* comm) {
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  ncclUniqueId id;
  if (*rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(*rank);
  NCCL_OK(ncclCommInitRank(comm, *size, id, *rank));
}

// One ring step: this rank's block to the next rank, the previous rank's into `recv`.
inline void ring_step(const float* send, float* recv, size_t n, int next, int prev, ncclComm_t comm, cudaStream_t s) {
  NCCL_OK(ncclGroupStart());
  NCCL_OK(ncclSend(send, n, ncclFloat, next, comm, s));
  NCCL_OK(ncclRecv(recv, n, ncclFloat, prev, comm, s));
  NCCL_OK(ncclGroupEnd());
}
