// cuco/codesign/gin.h: the GIN backend (NCCL device API, GPU-initiated networking over RDMA).
//
// GIN moves data between GPUs that share no NVLink domain, through the NIC, initiated from a
// kernel. It needs RDMA NICs: on cuco's GPU machines (one NVLink domain, no NIC) ncclDevCommCreate
// with GIN requirements fails with "GIN not supported", so these helpers are compiled (CI checks
// they build against NCCL 2.28.9's headers) but not run there. Request them with
// ncclDevCommRequirements::ginContextCount >= 1 and ginSignalCount >= the signals used.
#pragma once

#if __has_include(<nccl_device/gin.h>)
#include <cstddef>
#include <cstdint>

#include <nccl.h>
#include <nccl_device.h>

#define CUCO_HAVE_GIN 1

namespace cuco {
namespace codesign {

// One thread puts `bytes` from its window to `peer`'s window and increments `signal` there once
// the payload (and earlier puts on this context to that peer) has landed.
__device__ __forceinline__ void gin_put_signal(const ncclDevComm& dc, int context, int peer, ncclWindow_t dst,
                                               size_t dst_offset, ncclWindow_t src, size_t src_offset, size_t bytes,
                                               ncclGinSignal_t signal) {
  ncclGin gin(dc, context);
  gin.put(ncclTeamWorld(dc), peer, dst, dst_offset, src, src_offset, bytes, ncclGin_SignalInc{signal});
}

// The CTA waits until `signal` (incremented by peers' puts) reaches `least`.
__device__ __forceinline__ void gin_wait_signal(const ncclDevComm& dc, int context, ncclGinSignal_t signal,
                                                uint64_t least) {
  ncclGin gin(dc, context);
  gin.waitSignal(ncclCoopCta(), signal, least);
}

}  // namespace codesign
}  // namespace cuco
#endif
