// A race: the all-reduce on comm_stream reads grad, which a kernel on compute writes, with no
// event between the streams; the result is then read on comm_stream (ordered by the stream) and,
// after cudaStreamSynchronize(comm_stream), on compute (ordered by the host sync).
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void produce(float* g, int n) { g[0] = n; }
__global__ void scale(float* g, int n) { g[0] *= n; }
__global__ void apply(const float* g, float* w, int n) { w[0] -= g[0] * n; }

void racy_step(float* grad, float* weights, int n, ncclComm_t comm, cudaStream_t compute, cudaStream_t comm_stream) {
  produce<<<1, 1, 0, compute>>>(grad, n);
  ncclAllReduce(grad, grad, n, ncclFloat, ncclSum, comm, comm_stream);
  scale<<<1, 1, 0, comm_stream>>>(grad, n);
  cudaStreamSynchronize(comm_stream);
  apply<<<1, 1, 0, compute>>>(grad, weights, n);
}
