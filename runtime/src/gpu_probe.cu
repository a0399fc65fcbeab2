// GPU health probe: after a candidate was killed (deadlock, crash), cuco runs
// this on each of its GPUs before the next candidate may use them. Exit 0 means
// the device allocated memory, ran a kernel and returned the right data.
#include <cstdio>

#include <cuda_runtime.h>

__global__ void Fill(unsigned* p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 2654435761u;
}

int main() {
  const unsigned n = 1u << 20;
  unsigned* d = nullptr;
  if (cudaSetDevice(0) != cudaSuccess || cudaMalloc(&d, n * sizeof(unsigned)) != cudaSuccess) {
    std::fprintf(stderr, "gpu_probe: cannot allocate: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  Fill<<<(n + 255) / 256, 256>>>(d, n);
  static unsigned h[1u << 20];
  cudaError_t e = cudaMemcpy(h, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) {
    std::fprintf(stderr, "gpu_probe: kernel or copy failed: %s\n", cudaGetErrorString(e));
    return 1;
  }
  for (unsigned i = 0; i < n; ++i)
    if (h[i] != i * 2654435761u) {
      std::fprintf(stderr, "gpu_probe: wrong value at %u\n", i);
      return 1;
    }
  cudaFree(d);
  std::printf("gpu_probe: ok\n");
  return 0;
}
