// The start line of a timed window: every rank's window opens at the same instant on the device.
//
// Each rank's window starts with the supervisor writing that rank's fresh inputs. Ranks fill
// different amounts (kv_transfer's prefill rank writes 2.7 GB of X and W, its decode rank a page
// table), so without a common start a rank whose own fill is short released its candidate early
// and then timed the wait for a slower peer: kv_transfer's decode rank counted the prefill rank's
// 2.4 ms of fill as transfer time (bench/results/2026-11-26-x4-h200: comm_alone 5.77 ms on rank 1,
// 3.21 ms on rank 0). With the start line, each rank's stream, after its fill, marks its arrival in
// host-mapped memory and waits until every rank has arrived; only then does it release its
// candidate (GO). The window opens there, after every fill (stop 52: with the fills inside and
// subtracted by the calibration, a 4 MB all-reduce, shorter than its own 4 MB fill, timed at the
// 0.001 ms floor), and the null iteration that calibrates the window's overhead opens at the same
// line: what remains is the candidate's time from the common start, as the PyTorch peers measure
// theirs after a device-side barrier. Each window also
// crosses a line before it opens (gpu_backend.cu): without it a rank whose driver thread began its
// window early timed its wait for the others (gemm_reducescatter's compute_alone, a local GEMM, at
// W=4: 0.365 ms on one rank, 0.573 on another, 2026-11-28 bench/results/...-x4).
//
// One StartLine per supervisor process, shared by every rank's backend (each on its own device and
// thread). Rounds: every rank enqueues the same sequence of rounds 1, 2, 3, ... (the driver runs
// the calibrations and iterations of all ranks in lockstep). Open() lets every wait pass for good,
// from any thread: a failure on one rank must never leave another rank's stream waiting. The memory
// is the supervisor's own; no candidate process maps it.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>

#include "common/driver_api.h"
#include "supervisor/rank_backend.h"

namespace cuco::supervisor {

class StartLine {
 public:
  explicit StartLine(int world) : world_(world) {}
  StartLine(const StartLine&) = delete;
  StartLine& operator=(const StartLine&) = delete;

  int world() const { return world_; }

  // Enqueues on `stream` (rank `rank`'s device current): this rank arrives at `round` once
  // everything before it on the stream is done, then the stream waits until every rank has arrived
  // at `round` or later. A no-op for one rank.
  void Enqueue(const driver::Api* api, CUstream stream, int rank, uint32_t round) {
    if (world_ <= 1) return;
    uint32_t* slots = Slots();
    void* dev = nullptr;
    if (cudaHostGetDevicePointer(&dev, slots, 0) != cudaSuccess)
      Fail(protocol::kExitSupervisor, "supervisor", "the start line: cudaHostGetDevicePointer failed");
    const CUdeviceptr base = reinterpret_cast<CUdeviceptr>(dev);
    if (api->StreamWriteValue32(stream, base + Offset(rank), round, CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS)
      Fail(protocol::kExitSupervisor, "supervisor", "the start line: cuStreamWriteValue32 failed");
    for (int q = 0; q < world_; ++q)
      if (q != rank && api->StreamWaitValue32(stream, base + Offset(q), round, CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
        Fail(protocol::kExitSupervisor, "supervisor", "the start line: cuStreamWaitValue32 failed");
  }

  // From any thread: every current and later wait passes.
  void Open() {
    opened_.store(true);
    std::lock_guard<std::mutex> lock(mu_);
    if (slots_ == nullptr) return;
    for (int q = 0; q < world_; ++q) reinterpret_cast<volatile uint32_t*>(slots_)[Offset(q) / sizeof(uint32_t)] = kOpen;
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }

 private:
  static constexpr uint32_t kOpen = 0x7fffffffu;  // >= every round
  static constexpr size_t kStride = 128;          // one cache line per rank
  static size_t Offset(int rank) { return static_cast<size_t>(rank) * kStride; }

  uint32_t* Slots() {
    std::lock_guard<std::mutex> lock(mu_);
    if (slots_ == nullptr) {
      void* p = nullptr;
      const size_t bytes = kStride * static_cast<size_t>(world_);
      if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable | cudaHostAllocMapped) != cudaSuccess)
        Fail(protocol::kExitSupervisor, "supervisor", "the start line: cudaHostAlloc of " + std::to_string(bytes) + " bytes failed");
      std::memset(p, 0, bytes);
      slots_ = static_cast<uint32_t*>(p);
      if (opened_.load())
        for (int q = 0; q < world_; ++q) slots_[Offset(q) / sizeof(uint32_t)] = kOpen;
    }
    return slots_;
  }

  const int world_;
  std::mutex mu_;
  uint32_t* slots_ = nullptr;  // host-mapped, pinned, portable: never freed (the process exits)
  std::atomic<bool> opened_{false};
};

}  // namespace cuco::supervisor
