// Compile check of codesign/nvshmem.h (the NVSHMEM backend, -DCUCO_WITH_NVSHMEM): one kernel that
// uses every helper, so CI compiles them against NVSHMEM's real device headers (the
// nvidia-nvshmem-cu13 wheel; tests/cuda_compile_test.sh). Not run: the harness does not bootstrap
// NVSHMEM yet. Relocatable device code (nvcc -dc), as NVSHMEM's device library needs.
#include <cuco/codesign/nvshmem.h>

#ifndef CUCO_WITH_NVSHMEM
#error "build with -DCUCO_WITH_NVSHMEM and NVSHMEM's include directory"
#endif

// Every CTA puts its slice to the next PE with a signal, warp 0 of CTA 0 a second slice, then the
// CTA waits for the previous PE's signal.
__global__ void ring_put(char* dst, const char* src, size_t slice, uint64_t* signals, uint64_t epoch, int next) {
  const size_t off = blockIdx.x * slice;
  cuco::codesign::nvshmem_put_signal_cta(dst + off, src + off, slice, signals + blockIdx.x, epoch, next);
  if (blockIdx.x == 0 && threadIdx.x < 32)
    cuco::codesign::nvshmem_put_signal_warp(dst + gridDim.x * slice, src, slice, signals + gridDim.x, epoch, next);
  if (threadIdx.x == 0) cuco::codesign::nvshmem_wait_signal(signals + blockIdx.x, epoch);
}
