// Host code nvcc takes and clang's host-only parse did not, as programs written elsewhere have it:
//   - a kernel declared with launch bounds (`__global__ void __launch_bounds__(256, 4) k(...)`,
//     Mustafa-cuda-dev's all-reduce benchmark): host_defines.h defines the macro only for nvcc;
//   - cuda_runtime.h's overloads taking a kernel or a __device__ symbol by its own type
//     (cudaFuncSetAttribute(kernel, ...), cudaMemcpyToSymbol(table, ...)), declared only for nvcc,
//     a function declared __noinline__, which only nvcc's front end knows, and
//     device_launch_parameters.h, whose built-in variables clashed with the prelude's
//     (Kui2ei/NTT_multiGPUs);
//   - a header's device function calling a builtin the host-only parse does not declare (warp_sum.cuh);
//   - a launch with its chevrons apart, as Visual Studio's formatter leaves it
//     (terryye/cuda_FlashAttention: `init_array << <grid, 256 >> > (M, n, -INFINITY);`);
//   - an initialised variable-length array, a GNU extension g++ and nvcc take
//     (harp-lab/GPUJoin's NCCL test: `int devs[nDev] = { 0, 1, 2, 3};`).
#include <cuda_runtime.h>
#include <device_launch_parameters.h>
#include <memory>
#include <nccl.h>

#include "warp_sum.cuh"

__device__ float table[16];

__global__ void __launch_bounds__(256, 4) scale(float* x, size_t n) {
  const size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= table[i % 16] + warp_sum(0.0f);
}

__noinline__ void fill_table(float* h) {
  for (int i = 0; i < 16; ++i) h[i] = 0.5f;
}

int main() {
  int nDev = 1;
  int devs[nDev] = {0};
  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, nDev, id, devs[0]);
  auto owner = std::make_shared<int>(0);
  float h[16];
  fill_table(h);
  cudaMemcpyToSymbol(table, h, sizeof(h));
  cudaFuncSetAttribute(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  const size_t n = 1 << 20;
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaStream_t s;
  cudaStreamCreate(&s);
  for (int it = 0; it < 10; ++it) {
    scale << <(n + 255) / 256, 256, 0, s >> > (x, n);
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
  }
  cudaStreamSynchronize(s);
  ncclCommDestroy(comm);
  return *owner;
}
