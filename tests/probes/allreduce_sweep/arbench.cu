// Small all-reduce benchmark (bf16), one process per GPU under MPI.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <nccl.h>

#define CUDACHECK(cmd) do { cudaError_t e = cmd; if (e != cudaSuccess) { \
  printf("Failed: Cuda error %s:%d '%s'\n", __FILE__, __LINE__, cudaGetErrorString(e)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)
#define NCCLCHECK(cmd) do { ncclResult_t r = cmd; if (r != ncclSuccess) { \
  printf("Failed, NCCL error %s:%d '%s'\n", __FILE__, __LINE__, ncclGetErrorString(r)); MPI_Abort(MPI_COMM_WORLD, 1); } } while (0)

__global__ void scale_bf16(__nv_bfloat16* buf, size_t n, float s) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = __float2bfloat16(__bfloat162float(buf[i]) * s);
}

__global__ void fill_bf16(__nv_bfloat16* buf, size_t n, int rank) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    buf[i] = __float2bfloat16(0.001f * (float)((i + rank) % 97));
}

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int ndev; CUDACHECK(cudaGetDeviceCount(&ndev));
  CUDACHECK(cudaSetDevice(rank % ndev));

  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast((void*)&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  NCCLCHECK(ncclCommInitRank(&comm, nranks, id, rank));

  const size_t max_bytes = (size_t)1 << 26;
  const int warmup = 5, iters = 20;
  __nv_bfloat16 *sendbuf, *recvbuf;
  CUDACHECK(cudaMalloc(&sendbuf, max_bytes));
  CUDACHECK(cudaMalloc(&recvbuf, max_bytes));
  cudaStream_t s;
  CUDACHECK(cudaStreamCreate(&s));
  cudaEvent_t start, stop;
  CUDACHECK(cudaEventCreate(&start));
  CUDACHECK(cudaEventCreate(&stop));
  const float inv = 1.0f / nranks;

  if (rank == 0) printf("%12s %12s %10s %10s %14s\n", "bytes", "count", "time(us)", "busbw", "checksum");
  for (size_t bytes = 1 << 20; bytes <= 1 << 26; bytes <<= 2) {
    size_t count = bytes / sizeof(__nv_bfloat16);
    fill_bf16<<<1024, 256, 0, s>>>(sendbuf, count, rank);
    for (int i = 0; i < warmup; ++i) {
      NCCLCHECK(ncclAllReduce(sendbuf, recvbuf, count, ncclBfloat16, ncclSum, comm, s));
      scale_bf16<<<1024, 256, 0, s>>>(recvbuf, count, inv);
    }
    CUDACHECK(cudaStreamSynchronize(s));
    CUDACHECK(cudaEventRecord(start, s));
    for (int i = 0; i < iters; ++i) {
      NCCLCHECK(ncclAllReduce(sendbuf, recvbuf, count, ncclBfloat16, ncclSum, comm, s));
      scale_bf16<<<1024, 256, 0, s>>>(recvbuf, count, inv);
    }
    CUDACHECK(cudaEventRecord(stop, s));
    CUDACHECK(cudaEventSynchronize(stop));
    float ms; CUDACHECK(cudaEventElapsedTime(&ms, start, stop));
    double us = ms * 1000.0 / iters;
    double busbw = (double)bytes / (us * 1e3) * (2.0 * (nranks - 1) / nranks);
    std::vector<__nv_bfloat16> host(count);
    CUDACHECK(cudaMemcpy(host.data(), recvbuf, bytes, cudaMemcpyDeviceToHost));
    double sum = 0; for (size_t i = 0; i < count; ++i) sum += __bfloat162float(host[i]);
    if (rank == 0) printf("%12zu %12zu %10.2f %10.2f %14.6e\n", bytes, count, us, busbw, sum);
  }

  CUDACHECK(cudaFree(sendbuf));
  CUDACHECK(cudaFree(recvbuf));
  ncclCommDestroy(comm);
  MPI_Finalize();
  return 0;
}
