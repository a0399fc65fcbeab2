// A program communicating through CUDA-aware MPI alone: a halo exchange of device rows by
// MPI_Sendrecv and a host residual summed by MPI_Allreduce in place. With no NCCL call, its MPI
// calls that move data are its communication ops.
#include <mpi.h>
#include <cuda_runtime.h>

__global__ void smooth(const float* cur, float* next, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i > 0 && i < n - 1) next[i] = 0.5f * (cur[i - 1] + cur[i + 1]);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = 1 << 20;
  float *cur = nullptr, *next = nullptr;
  cudaMalloc(&cur, n * sizeof(float));
  cudaMalloc(&next, n * sizeof(float));
  float residual = 0.0f;
  for (int step = 0; step < 10; ++step) {
    smooth<<<n / 256, 256>>>(cur, next, n);
    cudaDeviceSynchronize();
    MPI_Sendrecv(next + 1, 1, MPI_FLOAT, (rank + size - 1) % size, 0, next + n - 1, 1, MPI_FLOAT, (rank + 1) % size, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &residual, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  }
  cudaFree(cur);
  cudaFree(next);
  MPI_Finalize();
  return 0;
}
