#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include "common.h"

#define NCCLCHECK(cmd) do {                                                  \
    ncclResult_t r = cmd;                                                    \
    if (r != ncclSuccess) {                                                  \
      printf("NCCL failure %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); \
      exit(1);                                                               \
    }                                                                        \
  } while (0)

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
  NCCLCHECK(ncclCommInitRank(&comm, nranks, id, rank));
  const size_t count = 1 << 22;
  size_t sendBytes, recvBytes;
  collTest->getBuffSize(&sendBytes, &recvBytes, count, nranks);
  void *sendbuff, *recvbuff;
  cudaMalloc(&sendbuff, sendBytes);
  cudaMalloc(&recvbuff, recvBytes);
  cudaMemset(sendbuff, 0, sendBytes);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const int iters = 20;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int iter = 0; iter < iters; iter++)
    NCCLCHECK(collTest->runColl(sendbuff, recvbuff, count, ncclFloat, ncclSum, 0, comm, stream));
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) printf("%s: %.3f ms per call\n", collTest->name, ms / iters);
  NCCLCHECK(ncclCommDestroy(comm));
  MPI_Finalize();
  return 0;
}
