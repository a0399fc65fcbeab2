#include <cstdio>
#include <vector>
#include <mpi.h>
#include <nccl.h>
#include <cuda_runtime.h>

__global__ void fill(float* p, size_t n, float v) {
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < n) p[i] = v + i % 7;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  cudaSetDevice(rank);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  ncclCommInitRank(&comm, nranks, id, rank);
  const size_t n = 1 << 22;
  float* buf;
  cudaMalloc(&buf, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  const int iters = 30;
  if (rank == 0) {
    fill<<<(n + 255) / 256, 256, 0, s>>>(buf, n, 1.0f);
    printf("rank 0 sends %d times\n", iters);
    for (int i = 0; i < iters; ++i) {
      ncclGroupStart();
      for (int p = 1; p < nranks; ++p) ncclSend(buf, n, ncclFloat, p, comm, s);
      ncclGroupEnd();
    }
  } else {
    for (int i = 0; i < iters; ++i) {
      ncclRecv(buf, n, ncclFloat, 0, comm, s);
    }
    cudaStreamSynchronize(s);
    float h;
    cudaMemcpy(&h, buf + 3, sizeof(float), cudaMemcpyDeviceToHost);
    printf("rank %d got %f\n", rank, h);
  }
  cudaStreamSynchronize(s);
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
