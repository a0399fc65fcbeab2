// Habit of older HPC programs (written here, not copied): built `-std=c++11 -Xcompiler -fopenmp`,
// the host fills its input with an OpenMP loop and times the exchange with omp_get_wtime.
#include <cuda_runtime.h>
#include <nccl.h>
#include <omp.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main() {
  const int rank = std::atoi(std::getenv("RANK")), world = std::atoi(std::getenv("WORLD_SIZE"));
  cudaSetDevice(rank);
  ncclUniqueId id;
  ncclGetUniqueId(&id);  // one host: a real launcher would share rank 0's
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int n = 1 << 18;
  std::vector<float> host(n);
#pragma omp parallel for
  for (int i = 0; i < n; ++i) host[i] = 0.5f * rank + 1e-4f * i;
  float *x, *sum;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&sum, n * sizeof(float));
  cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const double t0 = omp_get_wtime();
  for (int it = 0; it < 10; ++it) ncclAllReduce(x, sum, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
  std::printf("rank %d: %.3f ms an all-reduce\n", rank, (omp_get_wtime() - t0) * 1e2);
  ncclCommDestroy(comm);
  return 0;
}
