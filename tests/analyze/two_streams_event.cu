// Overlap by hand: a compute stream runs a kernel, records an event; the comm stream waits on it
// before ncclAllReduce; a second kernel on the compute stream is independent.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void produce(float* grad, int n) {}
__global__ void other_work(float* act, int n) {}
__global__ void apply(const float* grad, float* weights, int n) {}

void step(float* grad, float* act, float* weights, int n, ncclComm_t comm) {
  cudaStream_t compute, comm_stream;
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&comm_stream, cudaStreamNonBlocking);
  cudaEvent_t grad_ready;
  cudaEventCreateWithFlags(&grad_ready, cudaEventDisableTiming);
  produce<<<n / 256, 256, 0, compute>>>(grad, n);
  cudaEventRecord(grad_ready, compute);
  other_work<<<n / 256, 256, 0, compute>>>(act, n);
  cudaStreamWaitEvent(comm_stream, grad_ready, 0);
  ncclAllReduce(grad, grad, n, ncclFloat, ncclAvg, comm, comm_stream);
  cudaStreamSynchronize(comm_stream);
  apply<<<n / 256, 256, 0, compute>>>(grad, weights, n);
  cudaDeviceSynchronize();
}
