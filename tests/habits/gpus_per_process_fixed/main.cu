// Each MPI process drives a fixed number of GPUs (two), one communicator per GPU made in a group,
// as NCCL's documentation shows for "multiple devices per process"; the all-reduce of every GPU in
// a group, timed over 20 passes.
#include <cuda_runtime.h>
#include <mpi.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("cuda: %s\n", cudaGetErrorString(e)); exit(1); } } while (0)
#define CHECK_NCCL(x) do { ncclResult_t r = (x); if (r != ncclSuccess) { printf("nccl: %s\n", ncclGetErrorString(r)); exit(1); } } while (0)

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v + i % 7;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, worldSize;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  const int gpusPerProc = 2;
  const int count = 1 << 22;

  float* send[gpusPerProc];
  float* recv[gpusPerProc];
  cudaStream_t streams[gpusPerProc];
  for (int g = 0; g < gpusPerProc; ++g) {
    CHECK_CUDA(cudaSetDevice(rank * gpusPerProc + g));
    CHECK_CUDA(cudaMalloc(&send[g], count * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&recv[g], count * sizeof(float)));
    CHECK_CUDA(cudaStreamCreate(&streams[g]));
    fill<<<(count + 255) / 256, 256, 0, streams[g]>>>(send[g], count, rank * gpusPerProc + g);
  }

  ncclUniqueId id;
  if (rank == 0) CHECK_NCCL(ncclGetUniqueId(&id));
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comms[gpusPerProc];
  CHECK_NCCL(ncclGroupStart());
  for (int g = 0; g < gpusPerProc; ++g) {
    CHECK_CUDA(cudaSetDevice(rank * gpusPerProc + g));
    CHECK_NCCL(ncclCommInitRank(&comms[g], worldSize * gpusPerProc, id, rank * gpusPerProc + g));
  }
  CHECK_NCCL(ncclGroupEnd());

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaSetDevice(rank * gpusPerProc));
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start, streams[0]));
  for (int iter = 0; iter < 20; ++iter) {
    CHECK_NCCL(ncclGroupStart());
    for (int g = 0; g < gpusPerProc; ++g)
      CHECK_NCCL(ncclAllReduce(send[g], recv[g], count, ncclFloat, ncclSum, comms[g], streams[g]));
    CHECK_NCCL(ncclGroupEnd());
  }
  CHECK_CUDA(cudaEventRecord(stop, streams[0]));
  for (int g = 0; g < gpusPerProc; ++g) {
    CHECK_CUDA(cudaSetDevice(rank * gpusPerProc + g));
    CHECK_CUDA(cudaStreamSynchronize(streams[g]));
  }
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  if (rank == 0) printf("Time: %.4f ms per all-reduce\n", ms / 20);

  for (int g = 0; g < gpusPerProc; ++g) {
    ncclCommDestroy(comms[g]);
    cudaFree(send[g]);
    cudaFree(recv[g]);
  }
  MPI_Finalize();
  return 0;
}
