// cuco/program/impl/nccl_emulation_captured.h: emulated NCCL calls made while their stream is being
// captured into a CUDA graph (a program that captures its NCCL calls once and launches the graph
// every step). Nothing may wait on the host while a graph runs, so such a call becomes graph work:
//   at capture time  the ranks allocate their staging buffers and exchange the pointers (every rank
//                    captures the same collectives in the same order, as NCCL requires of it; a
//                    receive takes its send's buffer from the mailbox, waiting for the send's capture);
//   in the graph     a collective copies its send buffer into its staging buffer, meets the other
//                    ranks, writes its own output from the staged copies and meets them again (so that
//                    no later launch overwrites a staged copy still being read); a send waits until the
//                    previous launch's receive took its item, copies and delivers; a receive waits for
//                    the delivery, copies out and says so. A ring of grouped sends and receives thus
//                    never waits in a cycle.
// The ranks meet through counters in device memory, added to and watched by one-thread kernels:
// every rank's graph runs on the reference's one GPU. A wait longer than kCapturedWaitLimitS prints
// what waited and traps (the reference fails, naming the call). Staging buffers and counters live as
// long as the process (a graph may be launched until the end). Included by
// runtime/src/program/nccl_emulation.cu only.
#pragma once

#include <cstdio>

namespace cuco_program::emu {

constexpr unsigned long long kCapturedWaitLimitS = 120;

// The counters of one captured call (a collective, or one send and its receive).
struct DeviceCounters {
  unsigned long long arrived;  // collective: arrivals at its passes; send/recv: items delivered
  unsigned long long taken;    // send/recv: items the receiver has copied out
  unsigned long long gen[kMaxRanks];  // each rank's passes (collective) or launches (send: [0], recv: [1])
};

__device__ inline unsigned long long GlobalNs() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ inline void SpinUntil(unsigned long long* counter, unsigned long long target, const char* what) {
  const unsigned long long start = GlobalNs();
  while (atomicAdd(counter, 0ULL) < target) {
    __nanosleep(256);
    if (GlobalNs() - start > kCapturedWaitLimitS * 1000000000ULL) {
      printf("cuco: an emulated NCCL %s captured in a CUDA graph waited %llu s for another rank (do all ranks capture "
             "and launch the same calls?)\n", what, kCapturedWaitLimitS);
      __trap();
    }
  }
  __threadfence();
}

// A collective's pass: every one of the n ranks arrives, then waits for the others at this pass.
__global__ void CapturedMeetKernel(DeviceCounters* c, int me, int n) {
  const unsigned long long g = ++c->gen[me];
  __threadfence();
  atomicAdd(&c->arrived, 1ULL);
  SpinUntil(&c->arrived, static_cast<unsigned long long>(n) * g, "collective");
}
// A send, before its copy: the receiver has taken the previous launch's item.
__global__ void CapturedSendWaitKernel(DeviceCounters* c) {
  const unsigned long long g = ++c->gen[0];
  SpinUntil(&c->taken, g - 1, "send");
}
// After a send's copy (arrived) or a receive's (taken): the item is delivered, or taken.
__global__ void CapturedAddKernel(unsigned long long* counter) {
  __threadfence();
  atomicAdd(counter, 1ULL);
}
// A receive, before its copy: its send delivered this launch's item.
__global__ void CapturedRecvWaitKernel(DeviceCounters* c) {
  const unsigned long long g = ++c->gen[1];
  SpinUntil(&c->arrived, g, "receive");
}

inline bool Capturing(cudaStream_t s) {
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  return cudaStreamIsCapturing(s, &st) == cudaSuccess && st == cudaStreamCaptureStatusActive;
}

// Device memory allocated while a stream is being captured (relaxed capture mode for this thread),
// zeroed through a stream of cuco's own that no capture touches.
inline void* CapturedAlloc(size_t bytes, bool zero) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  Check(cudaThreadExchangeStreamCaptureMode(&mode), "capture mode");
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e == cudaSuccess && zero) {
    static cudaStream_t own = [] {
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      return s;
    }();
    e = cudaMemsetAsync(p, 0, bytes, own);
    if (e == cudaSuccess) e = cudaStreamSynchronize(own);
  }
  cudaThreadExchangeStreamCaptureMode(&mode);
  Check(e, "staging for a captured call");
  return p;
}

// The counters rank 0 allocates for a captured collective, read by every rank between two Meet()s.
inline DeviceCounters*& SharedCounters() {
  static DeviceCounters* c = nullptr;
  return c;
}

inline void CapturedCollective(const Op& op) {
  const Comm world = CommOf(nullptr);  // a split's calls are not captured (Execute refuses them)
  const int me = world.me, n = world.n;
  const Staging staging = StagingOf(op, me, n);
  void* mine = CapturedAlloc(staging.sends ? staging.bytes : 0, false);
  if (me == 0) SharedCounters() = static_cast<DeviceCounters*>(CapturedAlloc(sizeof(DeviceCounters), true));
  world.slots[me] = mine;
  NoteCall(op, world);
  Meet(world);
  CheckSameCalls(world);
  Ptrs in{};
  for (int q = 0; q < n; ++q) in.p[q] = world.slots[q];
  DeviceCounters* c = SharedCounters();
  Meet(world);  // every rank has read the slots and the counters before a later call sets them
  const cudaStream_t s = op.stream;
  if (staging.sends) CopyOn(mine, op.send, staging.bytes, s, "staging copy");
  CapturedMeetKernel<<<1, 1, 0, s>>>(c, me, n);
  WriteOwnOutput(op, in, me, n, staging.elem_bytes, s);
  CapturedMeetKernel<<<1, 1, 0, s>>>(c, me, n);
  Check(cudaGetLastError(), "a captured collective's kernels");
}

// A captured send: its item (staging buffer and counters) goes to the mailbox at capture time.
inline MailItem CapturedSendStart(const Op& op) {
  const size_t bytes = op.count * cuco::NcclTypeBytes(op.type);
  MailItem item{CapturedAlloc(bytes, false), bytes, static_cast<DeviceCounters*>(CapturedAlloc(sizeof(DeviceCounters), true))};
  CapturedSendWaitKernel<<<1, 1, 0, op.stream>>>(item.captured);
  CopyOn(item.staged, op.send, bytes, op.stream, "send staging copy");
  CapturedAddKernel<<<1, 1, 0, op.stream>>>(&item.captured->arrived);
  Check(cudaGetLastError(), "a captured send's kernels");
  return item;
}

inline void CapturedRecv(const Op& op, const MailItem& item) {
  CapturedRecvWaitKernel<<<1, 1, 0, op.stream>>>(item.captured);
  CopyOn(op.recv, item.staged, item.bytes, op.stream, "recv copy");
  CapturedAddKernel<<<1, 1, 0, op.stream>>>(&item.captured->taken);
  Check(cudaGetLastError(), "a captured receive's kernels");
}

}  // namespace cuco_program::emu
