// A kernel declared with launch bounds (`__global__ void __launch_bounds__(256, 4) k(...)`, as
// Mustafa-cuda-dev's all-reduce benchmark writes it): nvcc takes it; host_defines.h defines the
// macro only for nvcc, so without the prelude's definition clang read a variable of type void and
// the real headers' parse failed.
#include <cuda_runtime.h>
#include <nccl.h>

__global__ void __launch_bounds__(256, 4) scale(float* x, float a, size_t n) {
  const size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int main() {
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  const size_t n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int it = 0; it < 10; ++it) {
    scale<<<(n + 255) / 256, 256, 0, s>>>(x, 0.5f, n);
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
  ncclCommDestroy(comm);
  return 0;
}
