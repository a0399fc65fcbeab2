// A 1-D Jacobi over the ranks that communicates through CUDA-aware MPI alone, no NCCL: each rank's
// rows live in cudaMalloc'd grids with a halo row above and below, exchanged every pass by
// MPI_Sendrecv of device memory with the periodic neighbours (at one rank, the rank itself); the
// residual, summed on the device, is summed over the ranks by MPI_Allreduce of a host value.
#include <mpi.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#define CUDA_OK(call)                                                                    \
  do {                                                                                   \
    cudaError_t e_ = (call);                                                             \
    if (e_ != cudaSuccess) {                                                             \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));   \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
    }                                                                                    \
  } while (0)

// Interior rows 1..rows of `next` from `cur`'s four neighbours; the squared change into *residual.
__global__ void relax(const float* cur, float* next, int nx, int rows, float* residual) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y + 1;
  if (col < 1 || col >= nx - 1 || row > rows) return;
  const float v = 0.25f * (cur[(row - 1) * nx + col] + cur[(row + 1) * nx + col] + cur[row * nx + col - 1] +
                           cur[row * nx + col + 1]);
  next[row * nx + col] = v;
  const float d = v - cur[row * nx + col];
  atomicAdd(residual, d * d);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int devices = 1;
  CUDA_OK(cudaGetDeviceCount(&devices));
  CUDA_OK(cudaSetDevice(rank % devices));

  const int nx = argc > 1 ? std::atoi(argv[1]) : 4096;
  const int rows = argc > 2 ? std::atoi(argv[2]) : 1024;
  const int passes = 200;
  const size_t bytes = sizeof(float) * static_cast<size_t>(nx) * (rows + 2);
  float *grid = nullptr, *grid_next = nullptr, *residual_d = nullptr;
  CUDA_OK(cudaMalloc(&grid, bytes));
  CUDA_OK(cudaMalloc(&grid_next, bytes));
  CUDA_OK(cudaMalloc(&residual_d, sizeof(float)));
  CUDA_OK(cudaMemset(grid, 0, bytes));
  CUDA_OK(cudaMemset(grid_next, 0, bytes));

  const int up = rank > 0 ? rank - 1 : size - 1;
  const int down = (rank + 1) % size;
  const dim3 block(256, 1), blocks((nx + 255) / 256, rows);
  float residual = 0.0f;
  const double start = MPI_Wtime();
  for (int pass = 0; pass < passes; ++pass) {
    CUDA_OK(cudaMemset(residual_d, 0, sizeof(float)));
    relax<<<blocks, block>>>(grid, grid_next, nx, rows, residual_d);
    CUDA_OK(cudaDeviceSynchronize());
    // The first interior row to the rank above, the halo below from the rank below; then back.
    MPI_Sendrecv(grid_next + nx, nx, MPI_FLOAT, up, 0, grid_next + static_cast<size_t>(rows + 1) * nx, nx, MPI_FLOAT,
                 down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(grid_next + static_cast<size_t>(rows) * nx, nx, MPI_FLOAT, down, 1, grid_next, nx, MPI_FLOAT, up, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    float local = 0.0f;
    CUDA_OK(cudaMemcpy(&local, residual_d, sizeof(float), cudaMemcpyDeviceToHost));
    MPI_Allreduce(&local, &residual, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    std::swap(grid, grid_next);
  }
  const double seconds = MPI_Wtime() - start;
  if (rank == 0) std::printf("residual %g, %.3f ms a pass\n", residual, 1e3 * seconds / passes);
  CUDA_OK(cudaFree(grid));
  CUDA_OK(cudaFree(grid_next));
  CUDA_OK(cudaFree(residual_d));
  MPI_Finalize();
  return 0;
}
