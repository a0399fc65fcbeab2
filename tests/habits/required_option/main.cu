// Habit of training and inference drivers (written here, not copied): options parsed in a loop,
// most with defaults, one the program stops without ("--weights is required"), so a run without
// arguments never reaches its NCCL calls.
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

__global__ void scale(const float* w, float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = w[i % 64] * x[i];
}

int main(int argc, char** argv) {
  std::string weights;
  int n = 1 << 20, iters = 50;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--weights") && i + 1 < argc) weights = argv[++i];
    else if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--iters") && i + 1 < argc) iters = std::atoi(argv[++i]);
  }
  if (weights.empty()) {
    std::fprintf(stderr, "--weights is required\n");
    return 2;
  }
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
  float *w, *x, *y;
  cudaMalloc(&w, 64 * sizeof(float));
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMemset(w, 0, 64 * sizeof(float));
  cudaMemset(x, 0, n * sizeof(float));
  for (int it = 0; it < iters; ++it) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(w, x, n);
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
  std::printf("loaded %s, done\n", weights.c_str());
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
