// Habit of programs split into runner files (written here, not copied; TensorParallelPTX's
// summa_runner.cu and oned_runner.cu each define `static TpDataKind selected_data_kind()`): each
// file keeps a helper of the same name to itself, `static` or in an unnamed namespace.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>
#include <cstdio>
#include <cstdlib>

#include "layers.h"

static int block_count(size_t n) { return static_cast<int>((n + 255) / 256); }

namespace {
const char* kName = "row-parallel";
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  const int m = 2048, n = 2048, k = 2048;
  float *d_x, *d_w, *d_y;
  cudaMalloc(&d_x, sizeof(float) * m * k);
  cudaMalloc(&d_w, sizeof(float) * k * n);
  cudaMalloc(&d_y, sizeof(float) * m * n);
  init_layer(d_x, static_cast<size_t>(m) * k, rank);
  init_layer(d_w, static_cast<size_t>(k) * n, rank + 1);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t handle;
  cublasCreate(&handle);
  cublasSetStream(handle, stream);
  const float one = 1.0f, zero = 0.0f;
  for (int it = 0; it < 20; ++it) {
    cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, d_x, m, d_w, k, &zero, d_y, m);
    bias_relu<<<block_count(static_cast<size_t>(m) * n), 256, 0, stream>>>(d_y, static_cast<size_t>(m) * n);
    ncclAllReduce(d_y, d_y, static_cast<size_t>(m) * n, ncclFloat, ncclSum, comm, stream);
  }
  cudaStreamSynchronize(stream);
  if (rank == 0) std::printf("%s done\n", kName);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
