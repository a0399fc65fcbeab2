// A 1-D halo exchange whose halo buffers exist only where a neighbour does, as partitioned solvers
// allocate them (1fni/cuda-spmv-benchmark's CG): the first rank's `from_prev` and the last rank's
// `from_next` stay null, and at one rank both do. Each pass relaxes with the halos the last pass
// received, then exchanges its new edge rows.
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <utility>

__global__ void relax(const double* x, const double* prev, const double* next, double* y, int n, int row) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const double up = i >= row ? x[i - row] : (prev ? prev[i] : 0.0);
  const double down = i + row < n ? x[i + row] : (next ? next[i - (n - row)] : 0.0);
  y[i] = 0.5 * x[i] + 0.25 * (up + down);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  cudaSetDevice(rank);
  ncclComm_t comm;
  ncclCommInitRank(&comm, size, id, rank);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  const int row = 1024, rows = 256, n = row * rows;
  double *x = nullptr, *y = nullptr, *from_prev = nullptr, *from_next = nullptr;
  cudaMalloc(&x, n * sizeof(double));
  cudaMalloc(&y, n * sizeof(double));
  if (rank > 0) cudaMalloc(&from_prev, row * sizeof(double));
  if (rank < size - 1) cudaMalloc(&from_next, row * sizeof(double));

  for (int it = 0; it < 100; ++it) {
    relax<<<(n + 255) / 256, 256, 0, stream>>>(x, from_prev, from_next, y, n, row);
    ncclGroupStart();
    if (rank > 0) {
      ncclSend(y, row, ncclDouble, rank - 1, comm, stream);
      ncclRecv(from_prev, row, ncclDouble, rank - 1, comm, stream);
    }
    if (rank < size - 1) {
      ncclSend(y + n - row, row, ncclDouble, rank + 1, comm, stream);
      ncclRecv(from_next, row, ncclDouble, rank + 1, comm, stream);
    }
    ncclGroupEnd();
    std::swap(x, y);
  }
  cudaStreamSynchronize(stream);
  std::printf("relaxed %d rows\n", rows);

  cudaFree(x);
  cudaFree(y);
  if (from_prev) cudaFree(from_prev);
  if (from_next) cudaFree(from_next);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
