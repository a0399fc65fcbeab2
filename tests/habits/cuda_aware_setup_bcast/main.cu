// Data-parallel gradients summed with NCCL, the weights first broadcast from rank 0 with a CUDA-aware
// MPI_Bcast of their cudaMalloc'd buffer (a program mixing MPI on device memory into its set-up).
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <vector>

__global__ void grad(const float* w, float* g, int n, int rank) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) g[i] = w[i] * 0.5f + static_cast<float>(rank);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  const int n = 1 << 20;
  std::vector<float> host(n);
  for (int i = 0; i < n; ++i) host[i] = static_cast<float>(i % 17) / 17.0f;
  float *w, *g;
  cudaMalloc(&w, n * sizeof(float));
  cudaMalloc(&g, n * sizeof(float));
  if (rank == 0) cudaMemcpy(w, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  MPI_Bcast(w, n, MPI_FLOAT, 0, MPI_COMM_WORLD);  // CUDA-aware: device memory handed to MPI

  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int it = 0; it < 20; ++it) {
    grad<<<(n + 255) / 256, 256, 0, stream>>>(w, g, n, rank);
    ncclAllReduce(g, g, n, ncclFloat, ncclSum, comm, stream);
  }
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) std::printf("Time: %.4f ms\n", ms / 20);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
