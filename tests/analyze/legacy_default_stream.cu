// CUDA's legacy default stream: a synchronous cudaMemcpy (default stream) fills the send buffer, then
// the all-reduce runs on a stream made with cudaStreamCreate (blocking), so it waits for the copy;
// no race. A non-blocking stream gets no such ordering: the second all-reduce races the kernel on
// the default stream.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void fill(float* x, int n) { x[0] = n; }

void step(float* host, float* buf, float* other, int n, ncclComm_t comm) {
  cudaStream_t s, nb;
  cudaStreamCreate(&s);
  cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
  cudaMemcpy(buf, host, n * sizeof(float), cudaMemcpyHostToDevice);
  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s);
  fill<<<1, 1>>>(other, n);
  ncclAllReduce(other, other, n, ncclFloat, ncclSum, comm, nb);
  cudaStreamSynchronize(s);
}
