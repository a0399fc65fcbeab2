// cuco/program/impl/included_calls.h: the program's NCCL calls outside the EVOLVE blocks, on the
// candidate side (candidate_shims.h gives their names to these). The blocks' calls are
// cuco_program::comm's after `cuco transform`. A program may also communicate in files it includes,
// which the harness keeps as they are (a ring's send/recv in util/nccl_utils.h). Its generation 0
// then routes those calls through the backend knob as well, from its knobs' lines:
//     [[maybe_unused]] static const bool cuco_included_calls = cuco_program::comm::RouteIncluded(kCucoBackend);
// From then on each such call is comm::X(backend, ...), as the blocks' calls are. Before that, and
// in every program that routes nothing, it is NCCL's own call, and nothing on another GPU's
// communicator (projection.h).
// Included before candidate_shims.h's macros: the `::nccl...` calls here are NCCL's.
#pragma once

#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/codesign.h>
#include <cuco/program/impl/p2p_bounce.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program {
namespace comm {
namespace detail {
// The backend the program's calls outside the blocks take; null until RouteIncluded.
inline const char*& IncludedBackend() {
  static const char* backend = nullptr;
  return backend;
}
}  // namespace detail

// Routes the program's NCCL calls outside the EVOLVE blocks through `backend` (the backend knob's
// value); returns true. Called from a static initialiser of generation 0.
inline bool RouteIncluded(const char* backend) {
  detail::IncludedBackend() = backend;
  return true;
}

}  // namespace comm

namespace included {

// `routed(b)` with the registered backend, else `own()` unless `comm` is another GPU's.
template <class Routed, class Own>
ncclResult_t Call(ncclComm_t comm, Routed routed, Own own) {
  if (const char* b = comm::detail::IncludedBackend()) return routed(b);
  return proj::IsForeign(comm) ? ncclSuccess : own();
}

inline ncclResult_t AllReduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                              cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::AllReduce(b, s, r, n, t, op, c, st); },
              [&] { return ::ncclAllReduce(s, r, n, t, op, c, st); });
}
inline ncclResult_t AllGather(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::AllGather(b, s, r, n, t, c, st); },
              [&] { return ::ncclAllGather(s, r, n, t, c, st); });
}
inline ncclResult_t ReduceScatter(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c,
                                  cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::ReduceScatter(b, s, r, n, t, op, c, st); },
              [&] { return ::ncclReduceScatter(s, r, n, t, op, c, st); });
}
inline ncclResult_t Broadcast(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c,
                              cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Broadcast(b, s, r, n, t, root, c, st); },
              [&] { return ::ncclBroadcast(s, r, n, t, root, c, st); });
}
inline ncclResult_t Bcast(void* buf, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Bcast(b, buf, n, t, root, c, st); },
              [&] { return ::ncclBcast(buf, n, t, root, c, st); });
}
inline ncclResult_t Reduce(const void* s, void* r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c,
                           cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Reduce(b, s, r, n, t, op, root, c, st); },
              [&] { return ::ncclReduce(s, r, n, t, op, root, c, st); });
}
inline ncclResult_t AlltoAll(const void* s, void* r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::AlltoAll(b, s, r, n, t, c, st); },
              [&] { return ::ncclAlltoAll(s, r, n, t, c, st); });
}
inline ncclResult_t Gather(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Gather(b, s, r, n, t, root, c, st); },
              [&] { return ::ncclGather(s, r, n, t, root, c, st); });
}
inline ncclResult_t Scatter(const void* s, void* r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Scatter(b, s, r, n, t, root, c, st); },
              [&] { return ::ncclScatter(s, r, n, t, root, c, st); });
}
// Sends and receives: NCCL's own through the bounce (p2p_bounce.h), as before routing.
inline ncclResult_t Send(const void* buf, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Send(b, buf, n, t, peer, c, st); },
              [&] { return p2p::Send(buf, n, t, peer, c, st); });
}
inline ncclResult_t Recv(void* buf, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st) {
  return Call(c, [&](const char* b) { return comm::Recv(b, buf, n, t, peer, c, st); },
              [&] { return p2p::Recv(buf, n, t, peer, c, st); });
}
inline ncclResult_t GroupStart() {
  return Call(nullptr, [](const char* b) { return comm::GroupStart(b); }, [] { return p2p::GroupStart(); });
}
inline ncclResult_t GroupEnd() {
  return Call(nullptr, [](const char* b) { return comm::GroupEnd(b); }, [] { return p2p::GroupEnd(); });
}

}  // namespace included
}  // namespace cuco_program
