/* Habit of C benchmarks built with mpicc (written here, not copied): each CUDA call in a check
 * macro, cudaMalloc handed `(void *)&buf` (C converts it to void** by itself), host buffers from
 * malloc uncast, one rank a process. */
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { \
  printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(EXIT_FAILURE); } } while (0)
#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { \
  printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); exit(EXIT_FAILURE); } } while (0)

int main(int argc, char* argv[]) {
  int myRank, nRanks;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &myRank);
  MPI_Comm_size(MPI_COMM_WORLD, &nRanks);
  const int size = 1 << 20;
  float *sendbuff, *recvbuff;
  ncclUniqueId id;
  ncclComm_t comm;
  cudaStream_t s;
  if (myRank == 0) ncclGetUniqueId(&id);
  MPI_Bcast((void*)&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  CUDACHECK(cudaSetDevice(0));
  CUDACHECK(cudaMalloc((void *)&sendbuff, size * sizeof(float)));
  CUDACHECK(cudaMalloc((void *)&recvbuff, size * sizeof(float)));
  CUDACHECK(cudaStreamCreate(&s));
  float* host = malloc(size * sizeof(float));
  for (int i = 0; i < size; ++i) host[i] = (float)(i % 17) + myRank;
  CUDACHECK(cudaMemcpy(sendbuff, host, size * sizeof(float), cudaMemcpyHostToDevice));
  NCCLCHECK(ncclCommInitRank(&comm, nRanks, id, myRank));
  double t0 = MPI_Wtime();
  for (int rep = 0; rep < 20; ++rep) {
    NCCLCHECK(ncclAllReduce((const void*)sendbuff, (void*)recvbuff, size, ncclFloat, ncclSum, comm, s));
  }
  CUDACHECK(cudaStreamSynchronize(s));
  if (myRank == 0) printf("allreduce: %.3f ms\n", (MPI_Wtime() - t0) * 1e3 / 20);
  CUDACHECK(cudaFree(sendbuff));
  CUDACHECK(cudaFree(recvbuff));
  free(host);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
