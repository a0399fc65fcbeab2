// Habit of course and benchmark programs (written here, not copied): the sizes come from
// positional arguments that have no default; a usage check returns before reading the first, and
// the second is read bare.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

__global__ void fill(float* x, int n, float v) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v + i % 7;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: %s <elements> <iterations>\n", argv[0]);
    return 1;
  }
  const int n = std::atoi(argv[1]);
  const int iters = std::atoi(argv[2]);
  MPI_Init(&argc, &argv);
  int rank = 0, world = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  for (int it = 0; it < iters; ++it) {
    fill<<<(n + 255) / 256, 256, 0, s>>>(x, n, static_cast<float>(rank));
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
  std::printf("done\n");
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
