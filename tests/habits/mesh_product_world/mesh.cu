// Habit of tensor-parallel benchmarks laid out on a process mesh (written here, not copied): the mesh
// is two options with defaults parsed by a loop over argv, and the program ends unless their product
// is MPI's rank count, as a held-out 2-D tensor-parallel runner of stop 69 does (`--tp-rows`,
// `--tp-cols`).
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__global__ void scale(float* x, int n, float s) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) x[i] = x[i] * s + 1.0f;
}

int main(int argc, char** argv) {
  int tp_rows = 2, tp_cols = 2, n = 1 << 20;
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--tp-rows") == 0) tp_rows = atoi(argv[++i]);
    else if (strcmp(argv[i], "--tp-cols") == 0) tp_cols = atoi(argv[++i]);
  }
  MPI_Init(&argc, &argv);
  int rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  if (tp_rows * tp_cols != world_size) {
    if (rank == 0) fprintf(stderr, "the mesh %d x %d needs %d ranks\n", tp_rows, tp_cols, tp_rows * tp_cols);
    MPI_Finalize();
    return 1;
  }
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, world_size, id, rank);
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, s);
  for (int it = 0; it < 20; ++it) {
    scale<<<256, 256, 0, s>>>(x, n, 0.5f);
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
  }
  cudaEventRecord(stop, s);
  cudaEventSynchronize(stop);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) printf("Time: %.3f ms\n", ms / 20);
  cudaFree(x);
  cudaFree(y);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
