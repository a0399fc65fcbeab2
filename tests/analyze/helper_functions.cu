// Data-parallel step split into helpers, as real training code is: the gradient is produced by a
// kernel inside one helper, all-reduced inside another (two levels down), and consumed by a
// kernel launched in main. Only across functions do producer -> collective -> consumer connect.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void backward(const float* act, float* grad, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) grad[i] = 2.0f * act[i];
}

__global__ void sgd(float* weights, const float* grad, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) weights[i] -= lr * grad[i];
}

void compute_grad(const float* act, float* g, int n, cudaStream_t s) {
  backward<<<(n + 255) / 256, 256, 0, s>>>(act, g, n);
}

void sum_over_ranks(float* buf, int n, ncclComm_t comm, cudaStream_t st) {
  ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, st);
}

void sync_grads(float* grads, int n, ncclComm_t comm, cudaStream_t stream) {
  sum_over_ranks(grads, n, comm, stream);  // one more level
}

int main() {
  const int n = 1 << 20;
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  float *act, *grad, *w;
  cudaMalloc(&act, n * sizeof(float));
  cudaMalloc(&grad, n * sizeof(float));
  cudaMalloc(&w, n * sizeof(float));
  compute_grad(act, grad, n, stream);
  sync_grads(grad, n, comm, stream);
  sgd<<<(n + 255) / 256, 256, 0, stream>>>(w, grad, n, 0.1f);
  cudaStreamSynchronize(stream);
  return 0;
}
