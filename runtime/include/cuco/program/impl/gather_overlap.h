// cuco/program/impl/gather_overlap.h: the gather knob (cuco/program/codesign.h). An
// all-gather whose output the next GEMM reads as its B operand (a sequence-parallel layer's
// `ncclAllGather(x_local, x_full, ...)`, then `x_full` times the weights) runs as one exchange per
// peer on a side stream, and the GEMM as one column range per source rank: its own rank's first,
// at once, then each peer's as soon as its part has arrived. The transfer of one part overlaps the
// GEMM of another.
//
// How the pieces meet, on the calling thread:
//   Consumer c(kCucoGather, x_full);        "on" arms: the next all-gather into `x_full` waits for its GEMM
//   comm::AllGather(..., x_local, x_full)   DeferGather keeps the call instead of issuing it
//   gemm(..., x_full, ...)                  the GEMM stand-ins (chunk_overlap.h) find it (OverGather)
// A GEMM that reads it otherwise (transposed, not whole parts of it, another stream) issues the
// all-gather whole first, and so does every GEMM stand-in while one is kept, and the Consumer at
// scope end. The parts are the ranks' (2 to 8; the all-gather runs whole at other sizes).
#pragma once

#include <cstddef>
#include <cstdio>
#include <optional>
#include <string_view>

#include <cublas_api.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/harness.h>
#include <cuco/program/impl/candidate_state.h>
#include <cuco/program/impl/chunk_state.h>
#include <cuco/impl/nccl_type_bytes.h>

namespace cuco_program::overlap {
namespace detail {

// The all-gather a Consumer kept for the GEMM that reads it.
struct KeptGather {
  const void* armed = nullptr;  // the buffer the current Consumer names; null when none
  uint64_t consumer = 0, next_consumer = 0;
  bool kept = false;
  const char* backend = nullptr;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;  // elements per rank
  ncclDataType_t type = ncclFloat;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
};

inline KeptGather& G() {
  static thread_local KeptGather g;
  return g;
}

// The harness events the consumer form uses, below the chunks knob's (chunk_state.h): the fork of
// the side stream, then one per exchange step.
inline int ForkEvent() { return JoinEvent(cuco::RankContext::kMaxSideStreams - 1) - 1; }
inline int StepEvent(int step) { return ForkEvent() - step; }
inline constexpr int kMaxGatherRanks = 8;

}  // namespace detail

// Runtime unit (runtime/src/program/program_collectives.cu): the kept all-gather as the program
// called it, and its exchange with the rank `step` places on (1 <= step < world) on `side`: this
// rank's part to rank + step, rank - step's part into its place.
ncclResult_t IssueKeptWhole(const detail::KeptGather& g);
ncclResult_t IssueKeptStep(const detail::KeptGather& g, int step, cudaStream_t side);

// Issues the kept all-gather whole, if there is one, with the program's groups closed. Whether that
// succeeded.
inline bool FlushKept() {
  detail::KeptGather& g = detail::G();
  if (!g.kept) return true;
  g.kept = false;
  // As the program called it: outside its groups, which it called no all-gather in.
  return OutsideGroups([&] { return IssueKeptWhole(g); }) == ncclSuccess;
}

// comm::AllGather's question: whether the current Consumer keeps this call for its GEMM (then the
// call returns at once). Only on the program's own communicator, with NCCL or the copy engines
// ("ce": ce_collectives.h's steps) as its backend, outside the program's groups, at 2 to 8 ranks.
inline bool DeferGather(const char* backend, const void* send, void* recv, size_t count, ncclDataType_t type,
                        ncclComm_t comm, cudaStream_t stream) {
  detail::KeptGather& g = detail::G();
  if (g.armed == nullptr || g.armed != recv) return false;
  g.armed = nullptr;  // one all-gather per arming
  const int world = candidate_detail::S().ctx->world_size;
  if (GroupDepth() > 0 || world < 2 || world > detail::kMaxGatherRanks || backend == nullptr ||
      (std::string_view(backend) != "nccl" && std::string_view(backend) != "ce") || count == 0)
    return false;
  if (!FlushKept()) return false;
  g = detail::KeptGather{nullptr, g.consumer, g.next_consumer, true, backend, send, recv, count, type, comm, stream};
  return true;
}

// For a GEMM on `stream` reading `B` (`tb`, leading dimension `ldb`, `elem` bytes an element) as
// n columns: when it is the kept all-gather's output, whole parts of it, runs the exchange and
// `part(c0, c1)` per source rank (own first), returning the GEMM's status. Otherwise issues the
// kept all-gather whole first and answers nullopt (the caller runs the GEMM as before).
template <class Part>
std::optional<cublasStatus_t> OverGather(const void* B, cublasOperation_t tb, int64_t ldb, size_t elem, int n,
                                         cudaStream_t stream, Part part) {
  detail::KeptGather& g = detail::G();
  if (!g.kept) return std::nullopt;
  cuco::RankContext& ctx = *candidate_detail::S().ctx;
  const int world = ctx.world_size, rank = ctx.rank;
  const size_t part_bytes = g.count * cuco::NcclTypeBytes(g.type);
  const size_t col_bytes = static_cast<size_t>(ldb) * elem;
  const bool fits = part_bytes > 0 && GroupDepth() == 0 && B == g.recv && tb == CUBLAS_OP_N && stream == g.stream && col_bytes > 0 &&
                    part_bytes % col_bytes == 0 &&
                    static_cast<size_t>(n) * col_bytes == part_bytes * static_cast<size_t>(world);
  if (!fits) {
    if (!FlushKept()) return CUBLAS_STATUS_EXECUTION_FAILED;
    return std::nullopt;
  }
  const detail::KeptGather kept = g;
  g.kept = false;
  const int cols = static_cast<int>(part_bytes / col_bytes);
  // This rank's part in place, then the side stream forks from the program's.
  char* own = static_cast<char*>(kept.recv) + part_bytes * static_cast<size_t>(rank);
  if (own != kept.send && cudaMemcpyAsync(own, kept.send, part_bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
    return CUBLAS_STATUS_EXECUTION_FAILED;
  ctx.record_event(detail::ForkEvent(), stream);
  cudaStream_t side = SideStream(stream);
  if (side == nullptr) return CUBLAS_STATUS_NOT_SUPPORTED;
  ctx.wait_event(side, detail::ForkEvent());
  for (int step = 1; step < world; ++step) {
    if (IssueKeptStep(kept, step, side) != ncclSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    ctx.record_event(detail::StepEvent(step), side);
  }
  if (const cublasStatus_t st = part(rank * cols, (rank + 1) * cols); st != CUBLAS_STATUS_SUCCESS) return st;
  for (int step = 1; step < world; ++step) {
    const int from = (rank - step + world) % world;
    ctx.wait_event(stream, detail::StepEvent(step));
    if (const cublasStatus_t st = part(from * cols, (from + 1) * cols); st != CUBLAS_STATUS_SUCCESS) return st;
  }
  return CUBLAS_STATUS_SUCCESS;
}

// Arms the next all-gather into `buffer` on this thread to wait for the GEMM that reads it ("on";
// "off" arms nothing; any other value is said on stderr and arms nothing). Disarmed by that
// all-gather; at scope end a kept all-gather no GEMM took is issued whole.
class Consumer {
 public:
  Consumer(const char* gather, void* buffer) {
    detail::KeptGather& g = detail::G();
    id_ = ++g.next_consumer;
    g.consumer = id_;
    const std::string_view v = gather == nullptr ? "" : gather;
    g.armed = v == "on" ? buffer : nullptr;
    if (v != "on" && v != "off") std::fprintf(stderr, "cuco: gather knob \"%s\" is neither \"on\" nor \"off\"\n", gather ? gather : "(null)");
  }
  ~Consumer() {
    detail::KeptGather& g = detail::G();
    if (g.consumer != id_) return;
    g.armed = nullptr;
    FlushKept();
  }
  Consumer(const Consumer&) = delete;
  Consumer& operator=(const Consumer&) = delete;

 private:
  uint64_t id_ = 0;
};

}  // namespace cuco_program::overlap
