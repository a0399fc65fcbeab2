// cuco/codesign/copy_engine.h: the copy-engine backend and stream ordering.
//
// Copy engines move bytes between GPUs without SMs (cudaMemcpyAsync between a local buffer and
// a peer's LSA pointer). A chunk's readiness crosses GPUs as a flag written after the copy in
// stream order (signal_flag), and crosses streams of one GPU as a harness event
// (ctx.record_event / ctx.wait_event: candidates may not create events).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include <cuco/codesign/flags.h>
#include <cuco/harness.h>

namespace cuco {
namespace codesign {

// Enqueues a device-to-device copy (either side may be a peer's LSA pointer).
inline Status ce_copy(cudaStream_t stream, void* dst, const void* src, size_t bytes) {
  CUCO_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
  return Status::Ok();
}

// Copy, then release `flag` = value once the copy has completed (flag may be the peer's).
inline Status ce_copy_signal(cudaStream_t stream, void* dst, const void* src, size_t bytes, uint32_t* flag,
                             uint32_t value) {
  Status s = ce_copy(stream, dst, src, bytes);
  if (!s.ok()) return s;
  return signal_flag(stream, flag, value);
}
// The same, the flag released as `mode` says (signal_flag: kStreamWaitValue needs no SM).
inline Status ce_copy_signal(RankContext& ctx, cudaStream_t stream, void* dst, const void* src, size_t bytes,
                             uint32_t* flag, uint32_t value, WaitMode mode) {
  Status s = ce_copy(stream, dst, src, bytes);
  if (!s.ok()) return s;
  return signal_flag(ctx, stream, flag, value, mode);
}

// `waiter` runs its later work only after everything enqueued so far on `producer`, through
// harness event `event` (0 <= event < RankContext::kMaxEvents; re-recording an event is fine).
inline void follow(RankContext& ctx, cudaStream_t waiter, cudaStream_t producer, int event) {
  ctx.record_event(event, producer);
  ctx.wait_event(waiter, event);
}

}  // namespace codesign
}  // namespace cuco
