// Comments inside a call's arguments (`/*send*/ sendbuff + rank`, as FAS RC's NCCL examples write
// them): the arguments are the code alone, so the all-gather reads `sendbuff` that the kernel
// writes and writes `recvbuff` that the kernel after it reads.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void fill(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = 1.0f + i;
}

__global__ void scale(const float* in, float* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  const int rank = 0, nranks = 1, n = 1024;
  ncclCommInitRank(&comm, nranks, id, rank);
  float *sendbuff, *recvbuff, *out;
  cudaMalloc(&sendbuff, n * sizeof(float));
  cudaMalloc(&recvbuff, n * nranks * sizeof(float));
  cudaMalloc(&out, n * nranks * sizeof(float));
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  fill<<<(n + 255) / 256, 256, 0, stream>>>(sendbuff, n);
  ncclAllGather(/*send*/ sendbuff + rank,
                /*recv*/ recvbuff,  // one element a rank
                1, ncclFloat, comm, stream);
  scale<<<(n + 255) / 256, 256, 0, stream>>>(recvbuff, out, n);
  cudaStreamSynchronize(stream);
  ncclCommDestroy(comm);
  return 0;
}
