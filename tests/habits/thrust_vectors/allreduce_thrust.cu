#include <cstdio>
#include <cstdlib>
#include <mpi.h>
#include <nccl.h>
#include <thrust/device_vector.h>
#include <thrust/fill.h>

#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { printf("NCCL error %s\n", ncclGetErrorString(r)); exit(1); } } while (0)

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
  const size_t n = 1 << 24;
  thrust::device_vector<float> send(n), recv(n);
  thrust::fill(send.begin(), send.end(), 1.0f * rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int it = 0; it < 20; ++it) {
    NCCLCHECK(ncclAllReduce(thrust::raw_pointer_cast(send.data()), thrust::raw_pointer_cast(recv.data()), n, ncclFloat, ncclSum, comm, s));
  }
  cudaStreamSynchronize(s);
  float h = recv[0];
  if (rank == 0) printf("recv[0] = %f\n", h);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
