// Habit of latency benchmarks between two GPUs (written here, not copied): rank 0 sends a message and
// waits for it back, rank 1 answers, each in its own loop of an `if (rank == 0) ... else if (rank ==
// 1)` chain, the round trips timed with MPI_Wtime around the loops.
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
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  const size_t count = 1 << 20;
  float *ping, *pong;
  cudaMalloc(&ping, count * sizeof(float));
  cudaMalloc(&pong, count * sizeof(float));
  cudaMemset(ping, 0, count * sizeof(float));
  const int iters = 50;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank == 0) {
    for (int i = 0; i < iters; ++i) {
      ncclSend(ping, count, ncclFloat, 1, comm, stream);
      ncclRecv(pong, count, ncclFloat, 1, comm, stream);
    }
  } else if (rank == 1) {
    for (int i = 0; i < iters; ++i) {
      ncclRecv(pong, count, ncclFloat, 0, comm, stream);
      ncclSend(pong, count, ncclFloat, 0, comm, stream);
    }
  }
  cudaStreamSynchronize(stream);
  const double t1 = MPI_Wtime();
  if (rank == 0) std::printf("round trip: %.3f us\n", (t1 - t0) * 1e6 / iters);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
