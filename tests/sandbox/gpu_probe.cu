// gpu_probe: what a GPU candidate does, to be run inside the sandbox on a GPU machine (not built by
// CMake: tests/sandbox/gpu-check.sh compiles it with nvcc). Allocates, runs a kernel, copies back,
// exports a cuMem allocation as a POSIX fd and starts threads. Prints "gpu_probe=ok" or what failed.
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <cstdio>
#include <thread>
#include <vector>

__global__ void Fill(int* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = i * 3;
}

#define CHECK(x)                                                        \
  do {                                                                  \
    auto e_ = (x);                                                      \
    if (e_ != 0) {                                                      \
      std::printf("gpu_probe=failed %s: %d (line %d)\n", #x, (int)e_, __LINE__); \
      return 1;                                                         \
    }                                                                   \
  } while (0)

int main() {
  int count = 0;
  CHECK(cudaGetDeviceCount(&count));
  std::printf("devices=%d\n", count);
  CHECK(cudaSetDevice(0));
  const int n = 64 << 20;
  int* d = nullptr;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  Fill<<<(n + 255) / 256, 256>>>(d, n);
  CHECK(cudaGetLastError());
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; i += 4099) {
    if (h[i] != i * 3) {
      std::printf("gpu_probe=failed wrong value at %d\n", i);
      return 1;
    }
  }
  CHECK(cudaFree(d));
  // cuMem allocation exported as a POSIX fd: how the supervisor shares GPU memory with candidates.
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t gran = 0;
  CHECK(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CUmemGenericAllocationHandle handle;
  CHECK(cuMemCreate(&handle, gran, &prop, 0));
  int fd = -1;
  CHECK(cuMemExportToShareableHandle(&fd, handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  std::printf("exported_fd=%d\n", fd);
  close(fd);
  CHECK(cuMemRelease(handle));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back([] { cudaFree(nullptr); });
  for (auto& t : threads) t.join();
  std::printf("gpu_probe=ok\n");
  return 0;
}
