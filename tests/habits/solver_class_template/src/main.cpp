// The program's entry (a solver library's test driver): options, MPI, the device; the solver's
// object made in a mode function main calls; its solution written with MPI-IO, each rank its part.
#include <cuda_runtime.h>
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "src/solver.h"

static size_t rows = 1 << 20;
static int iters = 20;
static const char* out_path = "/tmp/jacobi_solution.bin";

static int solve_mode(int rank, int ranks) {
  JacobiSolver<double> solver(rows, rank, ranks);
  std::vector<double> x(rows);
  if (!solver.solve(iters, x.data())) return 1;
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, out_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS) return 2;
  const MPI_Offset at = static_cast<MPI_Offset>(rank) * rows * sizeof(double);
  MPI_File_write_at_all(fh, at, x.data(), static_cast<int>(rows), MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "-n") == 0) rows = std::strtoull(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "-i") == 0) iters = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "-o") == 0) out_path = argv[i + 1];
  }
  int devices = 1;
  cudaGetDeviceCount(&devices);
  cudaSetDevice(rank % devices);
  const int rc = solve_mode(rank, ranks);
  if (rank == 0) std::printf("jacobi: %s\n", rc == 0 ? "done" : "failed");
  MPI_Finalize();
  return rc;
}
