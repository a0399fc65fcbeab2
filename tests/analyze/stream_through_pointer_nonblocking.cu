// As stream_through_pointer.cu, but the program makes one of its streams non-blocking: a stream the
// analysis cannot tie to its creation may be that one, so the kernel on the legacy default stream
// and the send on `*cur` are not known to be ordered: a race.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void scale(float* x, int n) { x[threadIdx.x % n] *= 2.0f; }

void rotate(float* a, int n, int k, int peer, ncclComm_t comm) {
  cudaStream_t streams[2];
  cudaStreamCreate(&streams[0]);
  cudaStreamCreateWithFlags(&streams[1], cudaStreamNonBlocking);
  cudaStream_t* cur = &streams[k % 2];
  scale<<<1, 32>>>(a, n);
  ncclSend(a, n, ncclFloat, peer, comm, *cur);
  cudaDeviceSynchronize();
}
