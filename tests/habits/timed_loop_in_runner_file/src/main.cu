// The program's entry: options, MPI, the device; the work is the runner's (src/tp/runner.cu).
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/tp/runner.h"

static RunOptions parse_options(int argc, char** argv) {
  RunOptions opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--m") == 0) opt.m = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--iters") == 0) opt.iters = std::atoi(argv[i + 1]);
  }
  return opt;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int devices = 1;
  cudaGetDeviceCount(&devices);
  cudaSetDevice(rank % devices);
  const RunOptions opt = parse_options(argc, argv);
  const float ms = run_profile(opt, rank, ranks);
  if (rank == 0) std::printf("tp gemm+allreduce: %.3f ms a pass\n", ms);
  MPI_Finalize();
  return 0;
}
