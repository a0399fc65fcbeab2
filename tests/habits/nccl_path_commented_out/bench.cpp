// Habit of benchmarks kept in two implementations (written here, not copied): main runs the MPI
// version of its all-reduce, and the call of the NCCL version, defined in another file, is
// commented out beside it, as a 2.5-D Cannon GEMM benchmark held out in stop 74 has it.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void allreduce_mpi(float* host, int n, int iters);
void allreduce_nccl(int rank, int ranks, int n, int iters);

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const int n = argc > 1 ? atoi(argv[1]) : (1 << 20);
  float* host = (float*)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) host[i] = (float)(i % 7);
  // allreduce_nccl(rank, ranks, n, 20);
  allreduce_mpi(host, n, 20);
  if (rank == 0) printf("first: %f\n", host[0]);
  free(host);
  MPI_Finalize();
  return 0;
}
