// Kernels launched through a function-like macro, as pantheongpu/pantheonsim's training test writes
// them: `#define LAUNCH(k, n, ...) k<<<grid of n, 128, 0, stream>>>(__VA_ARGS__)`. The launch is the
// macro's replacement with the use's arguments: relu_k writes `a`, sgd_k updates `shard`.
#include <nccl.h>

__global__ void relu_k(const float* z, float* a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = z[i] > 0 ? z[i] : 0;
}
__global__ void sgd_k(float* w, const float* g, int n, float lr) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] -= lr * g[i];
}

cudaStream_t stream;
#define LAUNCH(k, n, ...) k<<<((n) + 127) / 128, 128, 0, stream>>>(__VA_ARGS__)

int main() {
  ncclComm_t comm;
  float *z, *a, *shard, *gshard;
  int n = 1024;
  for (int step = 0; step < 5; ++step) {
    LAUNCH(relu_k, n, z, a, n);
    ncclReduceScatter(a, gshard, n / 2, ncclFloat, ncclSum, comm, stream);
    LAUNCH(sgd_k, n / 2, shard, gshard, n / 2, 0.1f);
  }
  return 0;
}
