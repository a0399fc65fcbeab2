// Habit of collective benchmarks (written here, not copied): the timed all-gather; MPI starts in
// ../common/context.hpp, so the launcher is mpirun although this file calls no MPI_Init.
#include <cstdio>
#include "../common/context.hpp"

__global__ void fill(float* x, int n, int rank) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = rank + 0.001f * i;
}

int main(int argc, char** argv) {
  Context c = start_context(&argc, &argv);
  const int n = 1 << 18;
  float *part, *all;
  cudaMalloc(&part, n * sizeof(float));
  cudaMalloc(&all, n * c.size * sizeof(float));
  fill<<<(n + 255) / 256, 256, 0, c.stream>>>(part, n, c.rank);
  const int iters = 20;
  double t0 = MPI_Wtime();
  for (int it = 0; it < iters; ++it) ncclAllGather(part, all, n, ncclFloat, c.comm, c.stream);
  cudaStreamSynchronize(c.stream);
  const double ms = (MPI_Wtime() - t0) * 1e3 / iters;
  if (c.rank == 0) std::printf("all-gather: %.3f ms\n", ms);
  cudaFree(part);
  cudaFree(all);
  stop_context(c);
  return 0;
}
