// cuco/codesign/nvshmem.h: the NVSHMEM backend, behind the build option CUCO_WITH_NVSHMEM.
//
// NVSHMEM offers one-sided puts with a fused remote signal, issued by a thread, warp or CTA.
// Built only with -DCUCO_WITH_NVSHMEM, NVSHMEM's include directory and relocatable device code
// (the GPU machines have NVSHMEM 3.4.5 in PyTorch's venv; CI compiles tests/gpu/blocks/
// nvshmem_compile.cu, which uses every helper, against the nvidia-nvshmem-cu13==3.4.5 wheel). The
// harness does not bootstrap NVSHMEM yet, so candidates cannot use it at run time; the helpers
// exist so the design space names it and CI keeps them compiling.
#pragma once

#if defined(CUCO_WITH_NVSHMEM)
#include <cstddef>
#include <cstdint>

#include <nvshmem.h>
#include <nvshmemx.h>

namespace cuco {
namespace codesign {

// The calling CTA puts `bytes` to PE `pe` and then sets *signal = value there.
__device__ __forceinline__ void nvshmem_put_signal_cta(void* dst, const void* src, size_t bytes, uint64_t* signal,
                                                       uint64_t value, int pe) {
  nvshmemx_putmem_signal_nbi_block(dst, src, bytes, signal, value, NVSHMEM_SIGNAL_SET, pe);
}

// The calling warp does the same.
__device__ __forceinline__ void nvshmem_put_signal_warp(void* dst, const void* src, size_t bytes, uint64_t* signal,
                                                        uint64_t value, int pe) {
  nvshmemx_putmem_signal_nbi_warp(dst, src, bytes, signal, value, NVSHMEM_SIGNAL_SET, pe);
}

// Waits until *signal >= value (a signal on this PE written by peers' puts).
__device__ __forceinline__ void nvshmem_wait_signal(uint64_t* signal, uint64_t value) {
  nvshmem_signal_wait_until(signal, NVSHMEM_CMP_GE, value);
}

}  // namespace codesign
}  // namespace cuco
#endif
