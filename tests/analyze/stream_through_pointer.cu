// Streams made with cudaStreamCreate in an array and reached through a pointer to an entry (a
// Cannon GEMM's rotating communication streams: `cudaStream_t* cur = &streams[k]`): the analysis
// cannot tie `*cur` to its creation, but every stream this program creates blocks, so the kernel
// on the legacy default stream orders the send after it and the receive before the kernel after
// it: no race.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void scale(float* x, int n) { x[threadIdx.x % n] *= 2.0f; }

void rotate(float* a, float* b, int n, int k, int peer, ncclComm_t comm) {
  cudaStream_t* streams = new cudaStream_t[2];
  for (int i = 0; i < 2; ++i) cudaStreamCreate(&streams[i]);
  cudaStream_t* cur = &streams[k % 2];
  scale<<<1, 32>>>(a, n);
  ncclGroupStart();
  ncclSend(a, n, ncclFloat, peer, comm, *cur);
  ncclRecv(b, n, ncclFloat, peer, comm, *cur);
  ncclGroupEnd();
  scale<<<1, 32>>>(b, n);
  cudaDeviceSynchronize();
}
