// Tensor-parallel MLP forward, one process per GPU under MPI.
//   mpirun -np 2 ./tp_mlp [tokens] [hidden] [ffn] [layers]
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "mlp.h"
#include "utils.h"

#define MPICHECK(cmd) do {                                    \
  int e = cmd;                                                \
  if (e != MPI_SUCCESS) {                                     \
    printf("Failed: MPI error %s:%d '%d'\n", __FILE__, __LINE__, e); \
    exit(EXIT_FAILURE);                                       \
  }                                                           \
} while (0)

static const int kWarmup = 5;
static const int kIters = 20;

int main(int argc, char** argv) {
  int rank, world;
  MPICHECK(MPI_Init(&argc, &argv));
  MPICHECK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPICHECK(MPI_Comm_size(MPI_COMM_WORLD, &world));

  MlpConfig cfg;
  cfg.tokens = argc > 1 ? atoi(argv[1]) : 512;
  cfg.hidden = argc > 2 ? atoi(argv[2]) : 1024;
  cfg.ffn = argc > 3 ? atoi(argv[3]) : 4096;
  cfg.layers = argc > 4 ? atoi(argv[4]) : 4;
  if (cfg.ffn % world != 0) {
    if (rank == 0) printf("ffn (%d) must be divisible by the number of ranks (%d)\n", cfg.ffn, world);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  // Pick the GPU from the local rank: ranks on the same host get consecutive devices.
  uint64_t hostHashs[world];
  char hostname[1024];
  getHostName(hostname, 1024);
  hostHashs[rank] = getHostHash(hostname);
  MPICHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, hostHashs, sizeof(uint64_t), MPI_BYTE, MPI_COMM_WORLD));
  int localRank = 0;
  for (int p = 0; p < world; p++) {
    if (p == rank) break;
    if (hostHashs[p] == hostHashs[rank]) localRank++;
  }
  CUDACHECK(cudaSetDevice(localRank));

  ncclUniqueId id;
  ncclComm_t comm;
  if (rank == 0) NCCLCHECK(ncclGetUniqueId(&id));
  MPICHECK(MPI_Bcast((void*)&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD));
  NCCLCHECK(ncclCommInitRank(&comm, world, id, rank));

  cudaStream_t stream;
  CUDACHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cublasHandle_t blas;
  CUBLASCHECK(cublasCreate(&blas));
  CUBLASCHECK(cublasSetStream(blas, stream));

  MlpWeights weights;
  alloc_weights(&weights, cfg, rank, world);
  const size_t act = (size_t)cfg.tokens * cfg.hidden;
  const size_t ffn_local = cfg.ffn / world;
  float *x, *y, *h, *z;
  CUDACHECK(cudaMalloc(&x, act * sizeof(float)));
  CUDACHECK(cudaMalloc(&y, act * sizeof(float)));
  CUDACHECK(cudaMalloc(&h, cfg.tokens * ffn_local * sizeof(float)));
  CUDACHECK(cudaMalloc(&z, act * sizeof(float)));
  std::vector<float> hx(act);
  fill_uniform(hx.data(), act, 42, 1.f);  // same input on every rank
  CUDACHECK(cudaMemcpy(x, hx.data(), act * sizeof(float), cudaMemcpyHostToDevice));

  for (int i = 0; i < kWarmup; ++i) mlp_forward(blas, comm, stream, cfg, world, weights, x, y, h, z);
  cudaEvent_t start, stop;
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  CUDACHECK(cudaEventRecord(start, stream));
  for (int i = 0; i < kIters; ++i) mlp_forward(blas, comm, stream, cfg, world, weights, x, y, h, z);
  CUDACHECK(cudaEventRecord(stop, stream));
  CUDACHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDACHECK(cudaEventElapsedTime(&ms, start, stop));

  std::vector<float> hy(act);
  CUDACHECK(cudaMemcpy(hy.data(), y, act * sizeof(float), cudaMemcpyDeviceToHost));
  if (rank == 0) {
    printf("tp_mlp: tokens=%d hidden=%d ffn=%d layers=%d ranks=%d\n", cfg.tokens, cfg.hidden, cfg.ffn,
           cfg.layers, world);
    printf("checksum: %.6f\n", checksum(hy.data(), act));
    printf("avg iteration time: %.3f ms\n", ms / kIters);
  }

  free_weights(&weights);
  CUDACHECK(cudaFree(x));
  CUDACHECK(cudaFree(y));
  CUDACHECK(cudaFree(h));
  CUDACHECK(cudaFree(z));
  CUBLASCHECK(cublasDestroy(blas));
  NCCLCHECK(ncclCommDestroy(comm));
  MPICHECK(MPI_Finalize());
  return 0;
}
