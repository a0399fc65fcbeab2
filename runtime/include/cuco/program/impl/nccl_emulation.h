// cuco/program/impl/nccl_emulation.h: NCCL between the reference's rank threads (one GPU). Each
// call (or ncclGroupStart..End) first waits for the streams it names, then:
//   collectives: every rank stages a copy of its send buffer (a broadcast's or scatter's root
//                alone), all meet, each writes its own output from the staged copies (sums in
//                double), all meet again; all-reduce, broadcast, reduce, all-gather,
//                reduce-scatter, all-to-all, gather, scatter;
//   send/recv:   a send stages a copy into the (sender, receiver) mailbox and returns; a receive
//                takes the oldest one in its (peer, self) mailbox, waiting for it if need be.
// Synchronous and slow, and exact where NCCL's order of summation is not: the reference. A call
// made while its stream is being captured into a CUDA graph becomes graph work instead
// (nccl_emulation_captured.h). The calls are here; what they do is in
// runtime/src/program/nccl_emulation.cu, compiled once for every program.
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/emulated_spans.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::emu {

struct Op {
  Kind kind;
  const void* send = nullptr;
  void* recv = nullptr;
  size_t count = 0;
  ncclDataType_t type = ncclFloat32;
  ncclRedOp_t red = ncclSum;
  int root = 0, peer = 0;
  cudaStream_t stream = nullptr;
  ncclComm_t comm = nullptr;  // the call's communicator: the world's token, or a split's (emulated_groups.h)
};

constexpr int kMaxRanks = 64;
struct Ptrs {
  const void* p[kMaxRanks];
};

// One call, or everything between ncclGroupStart and ncclGroupEnd, on the calling rank thread
// (runtime/src/program/nccl_emulation.cu, compiled once for every program).
void Execute(const std::vector<Op>& ops);

inline thread_local int t_group_depth = 0;
inline thread_local std::vector<Op> t_pending;

inline ncclResult_t Post(Op op, ncclComm_t comm) {
  op.comm = comm;
  if (t_group_depth > 0) {
    t_pending.push_back(op);
    return ncclSuccess;
  }
  Execute({op});
  return ncclSuccess;
}

inline ncclResult_t GroupStart() {
  ++t_group_depth;
  return ncclSuccess;
}
inline ncclResult_t GroupEnd() {
  if (t_group_depth == 0) return ncclInvalidUsage;
  if (--t_group_depth == 0) {
    std::vector<Op> ops;
    ops.swap(t_pending);
    Execute(ops);
  }
  return ncclSuccess;
}
// A call on another GPU's communicator (projection.h) does nothing.
inline ncclResult_t AllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kAllReduce, s, r, n, t, op, 0, 0, st}, comm);
}
inline ncclResult_t Broadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kBroadcast, s, r, n, t, ncclSum, root, 0, st}, comm);
}
inline ncclResult_t Bcast(void* b, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return Broadcast(b, b, n, t, root, c, st);
}
inline ncclResult_t ReduceTo(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t comm,
                             cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kReduce, s, r, n, t, op, root, 0, st}, comm);
}
inline ncclResult_t AllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kAllGather, s, r, n, t, ncclSum, 0, 0, st}, comm);
}
inline ncclResult_t ReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t comm,
                                  cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kReduceScatter, s, r, n, t, op, 0, 0, st}, comm);
}
inline ncclResult_t AlltoAll(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kAlltoAll, s, r, n, t, ncclSum, 0, 0, st}, comm);
}
inline ncclResult_t Gather(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kGather, s, r, n, t, ncclSum, root, 0, st}, comm);
}
inline ncclResult_t Scatter(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kScatter, s, r, n, t, ncclSum, root, 0, st}, comm);
}
inline ncclResult_t Send(const void* s, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kSend, s, nullptr, n, t, ncclSum, 0, peer, st}, comm);
}
inline ncclResult_t Recv(void* r, size_t n, ncclDataType_t t, int peer, ncclComm_t comm, cudaStream_t st) {
  return cuco_program::proj::IsForeign(comm) ? ncclSuccess : Post({Kind::kRecv, nullptr, r, n, t, ncclSum, 0, peer, st}, comm);
}

}  // namespace cuco_program::emu
