// cuco/program/impl/reference_shims.h: what the program's calls become on the reference side.
// Included after every CUDA and NCCL header is declared; each name below is then a macro for its
// stand-in in the program's text. Allocations are noted (their size is a bound buffer's size),
// every rank uses the engine's device, communicators are tokens for the emulation, and the rank
// variables of the environment answer the calling rank thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/nccl_emulation.h>
#include <cuco/program/impl/program_env.h>
#include <cuco/program/impl/reference_engine.h>
#include <cuco/program/impl/peer_access.h>
#include <cuco/program/impl/pinned_host_shims.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::ref {

template <class T>
cudaError_t Malloc(T** p, size_t bytes) {
  if (!proj::Own()) {  // another GPU's buffer (projection.h): a foreign handle, never touched here
    proj::ForeignAllocation(p);
    return cudaSuccess;
  }
  const cudaError_t e = ::cudaMalloc(reinterpret_cast<void**>(p), bytes);
  if (e == cudaSuccess) {
    std::lock_guard<std::mutex> lock(E().alloc_mu);
    E().allocations[reinterpret_cast<uintptr_t>(*p)] = bytes;
  }
  if (e == cudaSuccess && proj::kProjected) proj::NoteOwn(t_rank, *p, bytes);
  return e;
}
template <class T>
cudaError_t MallocAsync(T** p, size_t bytes, cudaStream_t) {
  return Malloc(p, bytes);
}
inline cudaError_t Free(void* p) {
  if (!proj::OwnMemoryCall(p)) return cudaSuccess;
  {
    std::lock_guard<std::mutex> lock(E().alloc_mu);
    E().allocations.erase(reinterpret_cast<uintptr_t>(p));
  }
  if (proj::kProjected) proj::ForgetOwn(t_rank, p);
  return ::cudaFree(p);
}
inline cudaError_t FreeAsync(void* p, cudaStream_t) { return Free(p); }
inline cudaError_t SetDevice(int device) {
  if (proj::kProjected) {  // the program's GPU `device` is rank `device`'s
    if (device < 0 || device >= E().world) return cudaErrorInvalidDevice;
    proj::t_device = device;
    if (proj::kThreads) t_rank = device;  // one copy of the program: the thread is that GPU's rank
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
// A communicator of another size than the harness's world: the program's own arguments or constants
// chose it (`--gpus 1` by default, `int nranks = 6`).
inline std::string WorldHint(int asked) {
  return ": the program, run with the arguments the harness gives it, makes a communicator of " + std::to_string(asked) +
         " ranks; evaluate it at --world-size " + std::to_string(asked) +
         ", or give it the arguments that make it use " + std::to_string(E().world) + " GPUs (cuco init/run --args)";
}
inline ncclComm_t CommToken(int r) { return reinterpret_cast<ncclComm_t>(static_cast<uintptr_t>(0x1000 + r)); }
inline ncclResult_t CommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int r) {
  if (proj::kProjected && nranks == E().world && r >= 0 && r < nranks && r != t_rank) {
    *comm = proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(r));  // another GPU's (projection.h)
    return ncclSuccess;
  }
  if (nranks != E().world || r != t_rank) {
    Refuse("the program asked for rank " + std::to_string(r) + " of " + std::to_string(nranks) + "; it runs as rank " +
           std::to_string(t_rank) + " of " + std::to_string(E().world) + (nranks != E().world ? WorldHint(nranks) : ""));
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
    Refuse("ncclCommInitAll for " + std::to_string(ndev) + " GPUs; it runs " + std::to_string(E().world) + " ranks" +
           (ndev != E().world ? WorldHint(ndev) : std::string(" (the program was not made projected by cuco init)")));
    return ncclInvalidUsage;
  }
  // One copy of a program running a thread per GPU (proj::kThreads) has every rank in it: each GPU's
  // communicator is that rank's token, for the thread that selects the GPU. (Foreign handles there
  // made every other thread's calls no-ops, and the ranks' emulated calls waited for them forever.)
  // A copy per rank (one thread driving every GPU) has its own rank only.
  for (int i = 0; i < ndev; ++i) {
    const int gpu = devlist != nullptr ? devlist[i] : i;
    comms[i] = gpu == t_rank || proj::kThreads ? CommToken(gpu) : proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(gpu));
  }
  return ncclSuccess;
}
inline ncclResult_t CommDestroy(ncclComm_t) { return ncclSuccess; }
// A split's communicator (emulated_groups.h): its group, and the caller's index in it in *index.
inline emu::Group* GroupOf(ncclComm_t c, int* index) {
  int id = -1;
  return emu::IsGroupToken(reinterpret_cast<uintptr_t>(c), &id, index) ? emu::AllGroups().ById(id) : nullptr;
}
inline ncclResult_t CommCount(ncclComm_t c, int* n) {
  int index = 0;
  const emu::Group* g = GroupOf(c, &index);
  return (*n = g ? static_cast<int>(g->members.size()) : E().world), ncclSuccess;
}
// The rank a communicator is: another GPU's (foreign), a split's index, or a token's own
// (CommToken), else the caller's.
inline int RankOf(ncclComm_t c) {
  const uintptr_t v = reinterpret_cast<uintptr_t>(c);
  if (int index = 0; GroupOf(c, &index) != nullptr) return index;
  if (proj::IsForeign(c)) return static_cast<int>(v & 0xFFFF);
  if (v >= 0x1000 && v < 0x1000 + static_cast<uintptr_t>(E().world)) return static_cast<int>(v - 0x1000);
  return t_rank;
}
inline ncclResult_t CommUserRank(ncclComm_t c, int* r) { return (*r = RankOf(c)), ncclSuccess; }
// The program's GPU of the communicator: rank r's is GPU r when the program drives every GPU.
inline ncclResult_t CommCuDevice(ncclComm_t c, int* d) {
  return (*d = proj::kProjected ? RankOf(c) : E().device), ncclSuccess;
}

// Every other call on a communicator: the reference's are tokens for the emulation and another
// GPU's are foreign handles; neither may reach NCCL, which would dereference it (a program checking
// ncclCommGetAsyncError crashed the supervisor). Registration has no meaning in the emulation.
inline ncclResult_t CommGetAsyncError(ncclComm_t, ncclResult_t* e) { return (*e = ncclSuccess), ncclSuccess; }
inline ncclResult_t CommRegister(ncclComm_t, void*, size_t, void** handle) { return (*handle = nullptr), ncclSuccess; }
inline ncclResult_t CommDeregister(ncclComm_t, void*) { return ncclSuccess; }
inline ncclResult_t CommWindowRegister(ncclComm_t, void*, size_t, ncclWindow_t* win, int) {
  return (*win = nullptr), ncclSuccess;
}
inline ncclResult_t CommWindowDeregister(ncclComm_t, ncclWindow_t) { return ncclSuccess; }
// Buffers from NCCL's allocator are noted like cudaMalloc's (a bound buffer's size is its allocation's).
inline ncclResult_t MemAlloc(void** p, size_t bytes) { return Malloc(p, bytes) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError; }
inline ncclResult_t MemFree(void* p) { return Free(p) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError; }
inline ncclResult_t CommInitRankScalable(ncclComm_t* comm, int nranks, int r, int, ncclUniqueId*, ncclConfig_t*) {
  return CommInitRank(comm, nranks, ncclUniqueId{}, r);
}
// A split every rank makes with one color, ordered by rank, is the world again; another GPU's
// communicator stays another GPU's. Any other split of the world makes a group per colour
// (emulated_groups.h), members ordered by key then rank; a rank of NCCL_SPLIT_NOCOLOR gets none.
inline thread_local int t_splits = 0;  // this rank's ncclCommSplit calls so far (every rank's are in one order)
inline ncclResult_t CommSplit(ncclComm_t c, int color, int key, ncclComm_t* out, ncclConfig_t*) {
  if (proj::IsForeign(c)) return (*out = c), ncclSuccess;
  if (int index = 0; GroupOf(c, &index) != nullptr) {
    Refuse("ncclCommSplit of a communicator a split made is not emulated: the reference splits the world's only");
    return ncclInvalidUsage;
  }
  const int mine[2] = {color, key};
  std::vector<int> all(2 * static_cast<size_t>(E().world));
  host_allgather(mine, all.data(), sizeof mine);
  const int serial = t_splits++;
  if (emu::SplitIsWorld(all)) {
    *out = color == NCCL_SPLIT_NOCOLOR ? nullptr : c;
    return ncclSuccess;
  }
  if (proj::kProjected) {
    Refuse("ncclCommSplit into several groups in a program driving every GPU from one process is not emulated");
    return ncclInvalidUsage;
  }
  if (color == NCCL_SPLIT_NOCOLOR) return (*out = nullptr), ncclSuccess;
  const std::vector<int> members = emu::SplitMembers(all, color);
  if (members.size() > static_cast<size_t>(emu::kGroupRanks)) {
    Refuse("ncclCommSplit into a group of more than 64 ranks is not emulated");
    return ncclInvalidUsage;
  }
  emu::Group* g = emu::AllGroups().Join(serial, color, members);
  *out = reinterpret_cast<ncclComm_t>(emu::GroupToken(g->id, g->IndexOf(t_rank)));
  return ncclSuccess;
}
// What the emulation cannot do: said, and the program's own error check ends it.
inline ncclResult_t Unsupported(const char* what) {
  Refuse(std::string(what) + " is not emulated (the reference runs the program's NCCL calls between its rank threads "
         "on one GPU)");
  return ncclInvalidUsage;
}
template <class... A>
ncclResult_t CommShrink(A&&...) { return Unsupported("ncclCommShrink"); }
template <class... A>
ncclResult_t CommRevoke(A&&...) { return Unsupported("ncclCommRevoke"); }
template <class... A>
ncclResult_t RedOpCreatePreMulSum(A&&...) { return Unsupported("ncclRedOpCreatePreMulSum"); }
template <class... A>
ncclResult_t RedOpDestroy(A&&...) { return Unsupported("ncclRedOpDestroy"); }

// Every rank of the reference is a thread of one process: a capture in the global mode would forbid
// the other ranks' calls while it lasts (their cudaStreamSynchronize fails, and the capture with it).
// The thread's own mode keeps what the program asked for its own thread.
inline cudaStreamCaptureMode CaptureModeForRank(cudaStreamCaptureMode mode) {
  return mode == cudaStreamCaptureModeGlobal ? cudaStreamCaptureModeThreadLocal : mode;
}
// Every rank of the reference is also a thread on one GPU: while one rank captures a blocking stream,
// another's work on the legacy stream (cudaMemcpy, cudaMemset, cudaDeviceSynchronize, the emulated
// NCCL's copies) fails ("operation would make the legacy stream depend on a capturing blocking
// stream") and invalidates the capture, where in the program's own run it is another process's. So
// the ranks capture together: none begins until every rank has come to the capture, and none goes on
// after its capture ends until every rank's has. False, said on stderr, when the others did not come.
inline bool CaptureTogether(const char* at) {
  if (t_rank < 0 || t_rank >= E().world) return true;  // not one of the ranks' threads
  if (E().barrier.ArriveAndWait(kWaitLimitS)) return true;
  std::fprintf(stderr, "cuco reference: rank %d waited %.0f s for the other ranks at a CUDA graph capture's %s (the "
                       "reference runs every rank as a thread on one GPU, so the ranks capture together: do all ranks "
                       "capture the same graphs, in the same order?)\n", t_rank, kWaitLimitS, at);
  return false;
}
inline cudaError_t StreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
  if (!CaptureTogether("start")) return cudaErrorStreamCaptureUnsupported;
  return ::cudaStreamBeginCapture(stream, CaptureModeForRank(mode));
}
inline cudaError_t StreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  const cudaError_t ended = ::cudaStreamEndCapture(stream, graph);
  if (!CaptureTogether("end")) return ended != cudaSuccess ? ended : cudaErrorStreamCaptureUnsupported;
  return ended;
}

}  // namespace cuco_program::ref

// getenv as a rank thread sees it (std::getenv too).
inline char* cuco_program_getenv(const char* name) { return cuco_program::program_getenv(name); }
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
#undef cudaStreamBeginCapture  // the per-thread default stream's name, where CUDA defines one
#define cudaStreamBeginCapture cuco_program::ref::StreamBeginCapture
#undef cudaStreamEndCapture
#define cudaStreamEndCapture cuco_program::ref::StreamEndCapture
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
#define ncclCommGetAsyncError cuco_program::ref::CommGetAsyncError
#define ncclCommRegister cuco_program::ref::CommRegister
#define ncclCommDeregister cuco_program::ref::CommDeregister
#define ncclCommWindowRegister cuco_program::ref::CommWindowRegister
#define ncclCommWindowDeregister cuco_program::ref::CommWindowDeregister
#define ncclMemAlloc cuco_program::ref::MemAlloc
#define ncclMemFree cuco_program::ref::MemFree
#define ncclCommInitRankScalable cuco_program::ref::CommInitRankScalable
#define ncclCommSplit cuco_program::ref::CommSplit
#define ncclCommShrink cuco_program::ref::CommShrink
#define ncclCommRevoke cuco_program::ref::CommRevoke
#define ncclRedOpCreatePreMulSum cuco_program::ref::RedOpCreatePreMulSum
#define ncclRedOpDestroy cuco_program::ref::RedOpDestroy
#define ncclAlltoAll cuco_program::emu::AlltoAll
#define ncclGather cuco_program::emu::Gather
#define ncclScatter cuco_program::emu::Scatter
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
