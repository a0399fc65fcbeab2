// cuco/harness.h: everything a harness-mode candidate sees.
//
// A candidate file (a copy of a workload's seed.cu) includes this header and defines the three
// functions declared at the bottom. It is linked with cuco's candidate runtime
// (runtime/src/candidate/) into an executable of its own, whose ranks run as separate processes
// inside one sandbox. cuco's supervisor (runtime/src/supervisor/, a different process that never
// loads candidate code) writes the inputs, times the iterations and checks the outputs against the
// workload's frozen reference.cu, which the candidate executable does not contain.
//
// Life of a candidate process (one per rank):
//   1. The runtime creates the candidate's communicator (ctx.comm), ctx.stream, the cuBLASLt handle,
//      and the workload's input/output buffers. Every such buffer is ncclMemAlloc'd (or a cuMem
//      allocation) and registered as an NCCL_WIN_COLL_SYMMETRIC window on ctx.comm (the same size on
//      every rank, so a buffer may be larger than Buffer::bytes; use Buffer::bytes), and shared with
//      the supervisor, which writes and reads it from its own process.
//   2. cuco_candidate_setup(ctx, sizes, &state): once, untimed, COLLECTIVE (every rank calls it; any
//      collective call inside must be made in the same order on every rank).
//   3. cuco_candidate_run(ctx, state, io): enqueue ONE iteration on ctx.stream (and side streams).
//      Called many times, sometimes with different output buffers (io is only valid during the
//      call). ctx.stream first waits until the supervisor has written fresh random inputs (inside its
//      timed window) and poisoned the outputs; after the call the runtime joins every side stream
//      into ctx.stream and signals the supervisor, which then copies the outputs and stops its timer.
//      Everything the iteration does must be enqueued on ctx.stream or on a ctx.side_stream(i): work
//      that finishes later is simply missing from the outputs, and writes after the signal are
//      caught as late writes. Host time spent inside the call is timed too.
//   4. cuco_candidate_teardown(ctx, state): once; free what setup allocated (not what the runtime
//      allocated: alloc_symmetric buffers and create_dev_comm communicators are the runtime's).
//
// Rules (the evaluator rejects candidates that break them; see docs/workload-contract.md):
//   - never create streams, events or timers; never touch files, the environment, or the process;
//   - never name the runtime's or the reference's internals (namespaces cuco_frozen, cuco_harness);
//   - never use NVLink multicast (multimem / NVLS): create_dev_comm refuses lsaMultimem;
//   - a kernel that spins on a flag set by another kernel of this process deadlocks if that
//     kernel is launched for the first time while it spins (CUDA loads kernels lazily and loading
//     waits for running kernels): load such kernels in setup (cuco/codesign/flags.h, preload_*).
//
// The metrics the harness writes are documented in runtime/METRICS.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nccl.h>

// From <nccl_device.h>; include that header to fill them in and use the device API.
struct ncclDevComm;
struct ncclDevCommRequirements;

namespace cuco_harness {
struct ContextState;  // the harness's private side of a RankContext
}

namespace cuco {

// The outcome of a candidate call: ok, or an error with a message.
class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string message) {
    Status s;
    s.ok_ = false;
    s.message_ = message.empty() ? std::string("unspecified error") : std::move(message);
    return s;
  }
  bool ok() const { return ok_; }
  const std::string& message() const { return message_; }

 private:
  bool ok_ = true;
  std::string message_;
};

// The workload's sizes (from workload.toml [sizes.verify] / [sizes.bench]), by name.
struct Sizes {
  static constexpr int kMaxEntries = 32;
  static constexpr int kMaxName = 48;
  struct Entry {
    char name[kMaxName];
    int64_t value;
  };
  int count = 0;
  Entry entries[kMaxEntries] = {};

  bool has(const char* name) const { return find(name) != nullptr; }
  // The value of `name`; prints the defined names and aborts when it is missing.
  int64_t get(const char* name) const {
    const Entry* e = find(name);
    if (e == nullptr) {
      std::fprintf(stderr, "cuco: size '%s' is not defined for this workload; defined:", name);
      for (int i = 0; i < count; ++i) std::fprintf(stderr, " %s", entries[i].name);
      std::fprintf(stderr, "\n");
      std::fflush(stderr);
      std::abort();
    }
    return e->value;
  }
  int64_t get_or(const char* name, int64_t fallback) const {
    const Entry* e = find(name);
    return e ? e->value : fallback;
  }
  // Adds or replaces an entry; false when the name is too long or the table is full.
  bool set(const char* name, int64_t value) {
    if (std::strlen(name) >= static_cast<size_t>(kMaxName)) return false;
    for (int i = 0; i < count; ++i)
      if (std::strcmp(entries[i].name, name) == 0) {
        entries[i].value = value;
        return true;
      }
    if (count >= kMaxEntries) return false;
    std::memcpy(entries[count].name, name, std::strlen(name) + 1);
    entries[count].value = value;
    ++count;
    return true;
  }

 private:
  const Entry* find(const char* name) const {
    for (int i = 0; i < count; ++i)
      if (std::strcmp(entries[i].name, name) == 0) return &entries[i];
    return nullptr;
  }
};

// One device buffer. Harness buffers come from ncclMemAlloc and are registered as
// NCCL_WIN_COLL_SYMMETRIC windows on ctx.comm (window != nullptr); `bytes` is this rank's size.
struct Buffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  ncclWindow_t window = nullptr;
};

// The named buffers of one iteration: the workload's inputs and outputs.
struct IO {
  static constexpr int kMaxBuffers = 32;  // protocol::kMaxBuffers
  static constexpr int kMaxName = 48;
  struct Named {
    char name[kMaxName];
    bool is_output;
    Buffer buffer;
  };
  int count = 0;
  Named items[kMaxBuffers] = {};

  // The input / output called `name`; prints the known names and aborts when there is none.
  const Buffer& in(const char* name) const { return lookup(name, false); }
  const Buffer& out(const char* name) const { return lookup(name, true); }
  int size() const { return count; }
  const char* name(int i) const { return items[i].name; }
  bool is_output(int i) const { return items[i].is_output; }
  const Buffer& at(int i) const { return items[i].buffer; }

  // Harness side: appends a buffer; false when full or the name is too long.
  bool add(const char* name, bool is_output, const Buffer& b) {
    if (count >= kMaxBuffers || std::strlen(name) >= static_cast<size_t>(kMaxName)) return false;
    std::memcpy(items[count].name, name, std::strlen(name) + 1);
    items[count].is_output = is_output;
    items[count].buffer = b;
    ++count;
    return true;
  }

 private:
  const Buffer& lookup(const char* name, bool output) const {
    for (int i = 0; i < count; ++i)
      if (items[i].is_output == output && std::strcmp(items[i].name, name) == 0) return items[i].buffer;
    std::fprintf(stderr, "cuco: the workload has no %s buffer '%s'; it has:", output ? "output" : "input", name);
    for (int i = 0; i < count; ++i) std::fprintf(stderr, " %s(%s)", items[i].name, items[i].is_output ? "out" : "in");
    std::fprintf(stderr, "\n");
    std::fflush(stderr);
    std::abort();
  }
};

// What the harness gives a candidate: its rank, its communicator, its stream, and a few services.
// The fields are fixed by the harness; the harness keeps its own copies and never reads them back.
class RankContext {
 public:
  const int rank;              // rank in ctx.comm
  const int world_size;        // ranks in ctx.comm
  const int local_rank;        // rank on this host; the CUDA device index
  const int local_world_size;  // ranks on this host
  const int device;            // the current CUDA device (== local_rank)
  const int sm_count;          // streaming multiprocessors on the device
  const ncclComm_t comm;       // the candidate's communicator (the harness uses a separate one)
  const cudaStream_t stream;   // enqueue every iteration here; the timer covers it

  // Extra stream i (0 <= i < kMaxSideStreams), created on first use with the given priority
  // (clamped to the device's range; ignored once the stream exists). At the start of every
  // iteration each side stream waits for the iteration's start on ctx.stream; after the
  // candidate's run returns, the harness joins each one into ctx.stream before the stop event.
  // Create them in setup: creation inside run is timed. An invalid i fails the run (the call
  // returns ctx.stream and the harness reports the error after run returns).
  static constexpr int kMaxSideStreams = 8;
  cudaStream_t side_stream(int i, int priority = 0);

  // Ordering between streams without events of the candidate's own (it may not create or record
  // CUDA events): record_event(i, s) records harness-owned event i (0 <= i < kMaxEvents; created
  // without timing) on stream s; wait_event(s, i) makes stream s wait for the latest record of
  // event i (nothing to wait for if it was never recorded). An invalid i or stream fails the run.
  static constexpr int kMaxEvents = 64;
  void record_event(int i, cudaStream_t stream);
  void wait_event(cudaStream_t stream, int i);

  // Stream memory operations (cuStreamWriteValue32 / cuStreamWaitValue32, run by the GPU's front
  // end: no SM, so they act even while a kernel fills every SM; candidates may not look up driver
  // entry points themselves). write_value32: after all earlier work on `stream`, behind a
  // system-scope fence, *flag = value. wait_value32: later work on `stream` starts once
  // (int32_t)(*flag - target) >= 0 (epochs compared modulo 2^32). `flag` is 4-byte aligned device
  // memory, this GPU's or a peer's LSA pointer into a symmetric window.
  Status write_value32(cudaStream_t stream, uint32_t* flag, uint32_t value);
  Status wait_value32(cudaStream_t stream, const uint32_t* flag, uint32_t target);

  // The process's cuBLASLt handle, created by the harness before setup.
  cublasLtHandle_t cublaslt();

  // COLLECTIVE: every rank calls it with the same bytes, in the same order relative to other
  // collective calls. ncclMemAlloc + ncclCommWindowRegister(NCCL_WIN_COLL_SYMMETRIC) on ctx.comm.
  // The harness deregisters and frees the buffer at exit: do not free it.
  Status alloc_symmetric(size_t bytes, Buffer* out);

  // COLLECTIVE: ncclDevCommCreate on ctx.comm. The harness destroys it at exit. Requests for
  // multimem (lsaMultimem) are refused: NVLink multicast is off on cuco's machines.
  Status create_dev_comm(const ncclDevCommRequirements& reqs, ncclDevComm* out);

  // Harness side.
  RankContext(cuco_harness::ContextState* state, int rank_, int world_size_, int local_rank_, int local_world_size_,
              int device_, int sm_count_, ncclComm_t comm_, cudaStream_t stream_)
      : rank(rank_), world_size(world_size_), local_rank(local_rank_), local_world_size(local_world_size_),
        device(device_), sm_count(sm_count_), comm(comm_), stream(stream_), state_(state) {}
  RankContext(const RankContext&) = delete;
  RankContext& operator=(const RankContext&) = delete;

 private:
  cuco_harness::ContextState* state_;
};

namespace status_detail {
inline Status At(const char* file, int line, const char* expr, const char* what, const char* detail) {
  std::string m = std::string(file) + ":" + std::to_string(line) + ": " + expr + " failed: " + what;
  if (detail != nullptr && detail[0] != '\0') m += std::string(" (") + detail + ")";
  return Status::Error(std::move(m));
}
}  // namespace status_detail

}  // namespace cuco

// Return a failing cuco::Status naming file:line when a CUDA / NCCL / cuBLAS(Lt) call fails.
#define CUCO_CUDA_CHECK(expr)                                                                               \
  do {                                                                                                      \
    cudaError_t cuco_err_ = (expr);                                                                         \
    if (cuco_err_ != cudaSuccess)                                                                           \
      return ::cuco::status_detail::At(__FILE__, __LINE__, #expr, cudaGetErrorName(cuco_err_),             \
                                       cudaGetErrorString(cuco_err_));                                      \
  } while (0)

#define CUCO_NCCL_CHECK(expr)                                                                               \
  do {                                                                                                      \
    ncclResult_t cuco_res_ = (expr);                                                                        \
    if (cuco_res_ != ncclSuccess)                                                                           \
      return ::cuco::status_detail::At(__FILE__, __LINE__, #expr, ncclGetErrorString(cuco_res_),           \
                                       ncclGetLastError(nullptr));                                          \
  } while (0)

#define CUCO_CUBLAS_CHECK(expr)                                                                             \
  do {                                                                                                      \
    cublasStatus_t cuco_st_ = (expr);                                                                       \
    if (cuco_st_ != CUBLAS_STATUS_SUCCESS)                                                                  \
      return ::cuco::status_detail::At(__FILE__, __LINE__, #expr, cublasLtGetStatusName(cuco_st_),         \
                                       cublasLtGetStatusString(cuco_st_));                                  \
  } while (0)

// Returns a failing Status when a kernel launch just failed (wraps cudaGetLastError).
#define CUCO_CHECK_LAUNCH() CUCO_CUDA_CHECK(cudaGetLastError())

// Supplied by the candidate, inside its EVOLVE blocks.
cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state);
cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io);
void cuco_candidate_teardown(cuco::RankContext& ctx, void* state);
