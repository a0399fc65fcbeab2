// cuco/program/impl/reference_shims.h: what the program's calls become on the reference side.
// Included after every CUDA and NCCL header is declared; each name below is then a macro for its
// stand-in in the program's text. Allocations are noted (their size is a bound buffer's size),
// every rank uses the engine's device, communicators are tokens for the emulation, and the rank
// variables of the environment answer the calling rank thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/nccl_emulation.h>
#include <cuco/program/impl/program_env.h>
#include <cuco/program/impl/reference_engine.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::ref {

template <class T>
cudaError_t Malloc(T** p, size_t bytes) {
  if (!proj::Own()) return cudaSuccess;  // another GPU's buffer (projection.h): never touched here
  const cudaError_t e = ::cudaMalloc(reinterpret_cast<void**>(p), bytes);
  if (e == cudaSuccess) {
    std::lock_guard<std::mutex> lock(E().alloc_mu);
    E().allocations[reinterpret_cast<uintptr_t>(*p)] = bytes;
  }
  return e;
}
template <class T>
cudaError_t MallocAsync(T** p, size_t bytes, cudaStream_t) {
  return Malloc(p, bytes);
}
inline cudaError_t Free(void* p) {
  if (!proj::Own()) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(E().alloc_mu);
    E().allocations.erase(reinterpret_cast<uintptr_t>(p));
  }
  return ::cudaFree(p);
}
inline cudaError_t FreeAsync(void* p, cudaStream_t) { return Free(p); }
inline cudaError_t SetDevice(int device) {
  if (proj::kProjected) {  // the program's GPU `device` is rank `device`'s
    if (device < 0 || device >= E().world) return cudaErrorInvalidDevice;
    proj::t_device = device;
  }
  return ::cudaSetDevice(E().device);
}
inline cudaError_t GetDevice(int* device) {
  *device = proj::t_device;
  return cudaSuccess;
}
inline cudaError_t GetDeviceCount(int* count) {
  *count = E().world;
  return cudaSuccess;
}

inline ncclResult_t GetUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof *id);
  return ncclSuccess;
}
inline ncclComm_t CommToken(int r) { return reinterpret_cast<ncclComm_t>(static_cast<uintptr_t>(0x1000 + r)); }
inline ncclResult_t CommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int r) {
  if (proj::kProjected && nranks == E().world && r >= 0 && r < nranks && r != t_rank) {
    *comm = proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(r));  // another GPU's (projection.h)
    return ncclSuccess;
  }
  if (nranks != E().world || r != t_rank) {
    std::fprintf(stderr, "cuco reference: the program asked for rank %d of %d; it runs as rank %d of %d\n", r, nranks,
                 t_rank, E().world);
    return ncclInvalidArgument;
  }
  *comm = CommToken(r);
  return ncclSuccess;
}
inline ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int r, ncclConfig_t*) {
  return CommInitRank(comm, nranks, id, r);
}
inline ncclResult_t CommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  if (!proj::kProjected || ndev != E().world) {
    std::fprintf(stderr, "cuco reference: ncclCommInitAll for %d GPUs; it runs %d ranks\n", ndev, E().world);
    return ncclInvalidUsage;
  }
  for (int i = 0; i < ndev; ++i) {
    const int gpu = devlist != nullptr ? devlist[i] : i;
    comms[i] = gpu == t_rank ? CommToken(gpu) : proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(gpu));
  }
  return ncclSuccess;
}
inline ncclResult_t CommDestroy(ncclComm_t) { return ncclSuccess; }
inline ncclResult_t CommCount(ncclComm_t, int* n) { return (*n = E().world), ncclSuccess; }
inline ncclResult_t CommUserRank(ncclComm_t c, int* r) {
  return (*r = proj::IsForeign(c) ? static_cast<int>(reinterpret_cast<uintptr_t>(c) & 0xFFFF) : t_rank), ncclSuccess;
}
inline ncclResult_t CommCuDevice(ncclComm_t, int* d) { return (*d = E().device), ncclSuccess; }

}  // namespace cuco_program::ref

// getenv as a rank thread sees it (std::getenv too).
inline char* cuco_program_getenv(const char* name) { return const_cast<char*>(cuco_program::program_getenv(name)); }
namespace std {
using ::cuco_program_getenv;
}

#define cudaMalloc cuco_program::ref::Malloc
#ifdef CUCO_PROGRAM_PROJECTED
#define cudaGetDevice cuco_program::ref::GetDevice
#define cudaGetDeviceCount cuco_program::ref::GetDeviceCount
#endif
#define cudaMallocAsync cuco_program::ref::MallocAsync
#define cudaFree cuco_program::ref::Free
#define cudaFreeAsync cuco_program::ref::FreeAsync
#define cudaSetDevice cuco_program::ref::SetDevice
#define getenv cuco_program_getenv
#define ncclGetUniqueId cuco_program::ref::GetUniqueId
#define ncclCommInitRank cuco_program::ref::CommInitRank
#define ncclCommInitRankConfig cuco_program::ref::CommInitRankConfig
#define ncclCommInitAll cuco_program::ref::CommInitAll
#define ncclCommDestroy cuco_program::ref::CommDestroy
#define ncclCommFinalize cuco_program::ref::CommDestroy
#define ncclCommAbort cuco_program::ref::CommDestroy
#define ncclCommCount cuco_program::ref::CommCount
#define ncclCommUserRank cuco_program::ref::CommUserRank
#define ncclCommCuDevice cuco_program::ref::CommCuDevice
#define ncclGroupStart cuco_program::emu::GroupStart
#define ncclGroupEnd cuco_program::emu::GroupEnd
#define ncclAllReduce cuco_program::emu::AllReduce
#define ncclBroadcast cuco_program::emu::Broadcast
#define ncclBcast cuco_program::emu::Bcast
#define ncclReduce cuco_program::emu::ReduceTo
#define ncclAllGather cuco_program::emu::AllGather
#define ncclReduceScatter cuco_program::emu::ReduceScatter
#define ncclSend cuco_program::emu::Send
#define ncclRecv cuco_program::emu::Recv
