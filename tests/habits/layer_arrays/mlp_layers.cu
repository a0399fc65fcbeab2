// Habit of tensor-parallel MLP programs (written here, not copied): the weights and activations of
// each layer live in arrays indexed by the layer (`float* w[kLayers]`, `float* act[kLayers + 1]`);
// each pass runs every layer's GEMM on its shard and all-reduces the layer's output in place.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf(stderr, "CUDA %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r_ = (x); if (r_ != ncclSuccess) { \
  fprintf(stderr, "NCCL %s at %s:%d\n", ncclGetErrorString(r_), __FILE__, __LINE__); exit(1); } } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, world;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world);
  CHECK_CUDA(cudaSetDevice(rank));
  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  CHECK_NCCL(ncclCommInitRank(&comm, world, id, rank));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasHandle_t blas;
  cublasCreate(&blas);
  cublasSetStream(blas, stream);

  const int kLayers = 3, hidden = 1024, tokens = 256;
  float* w[kLayers];
  float* act[kLayers + 1];
  for (int l = 0; l < kLayers; ++l) CHECK_CUDA(cudaMalloc(&w[l], sizeof(float) * hidden * hidden));
  for (int l = 0; l <= kLayers; ++l) CHECK_CUDA(cudaMalloc(&act[l], sizeof(float) * hidden * tokens));
  for (int l = 0; l < kLayers; ++l) CHECK_CUDA(cudaMemset(w[l], 0, sizeof(float) * hidden * hidden));
  CHECK_CUDA(cudaMemset(act[0], 0, sizeof(float) * hidden * tokens));

  const float one = 1.f, zero = 0.f;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start, stream);
  for (int it = 0; it < 20; ++it) {
    for (int l = 0; l < kLayers; ++l) {
      cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, hidden, tokens, hidden, &one, w[l], hidden, act[l], hidden, &zero,
                  act[l + 1], hidden);
      CHECK_NCCL(ncclAllReduce(act[l + 1], act[l + 1], (size_t)hidden * tokens, ncclFloat, ncclSum, comm, stream));
    }
  }
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  float ms = 0.f;
  cudaEventElapsedTime(&ms, start, stop);
  if (rank == 0) printf("mlp: %.3f ms per pass\n", ms / 20);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
