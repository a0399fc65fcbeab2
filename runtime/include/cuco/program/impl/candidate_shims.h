// cuco/program/impl/candidate_shims.h: what the program's bootstrap calls become on the candidate
// side. Included after every CUDA and NCCL header is declared; each name below is then a macro for
// its stand-in in the program's text (and in the EVOLVE blocks).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>

#include <cuda_runtime.h>
#include <nccl.h>

#include <cuco/program/impl/candidate_side.h>
#include <cuco/program/impl/included_calls.h>
#include <cuco/program/impl/program_env.h>
#include <cuco/program/impl/p2p_bounce.h>
#include <cuco/program/impl/peer_access.h>
#include <cuco/program/impl/pinned_host_shims.h>
#include <cuco/program/impl/program_gpu.h>
#include <cuco/program/impl/projection.h>

namespace cuco_program::shim {

using candidate_detail::S;

inline ncclResult_t GetUniqueId(ncclUniqueId* id) {
  std::memset(id, 0, sizeof *id);  // the harness made the communicator: the program's id is not used
  return ncclSuccess;
}
inline ncclResult_t CommInitRank(ncclComm_t* comm, int nranks, ncclUniqueId, int r) {
  cuco::RankContext& ctx = *S().ctx;
  if (proj::kProjected && nranks == ctx.world_size && r >= 0 && r < nranks && r != ctx.rank) {
    *comm = proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(r));  // another GPU's (projection.h)
    return ncclSuccess;
  }
  if (nranks != ctx.world_size || r != ctx.rank) {
    std::fprintf(stderr, "cuco: the program asked for rank %d of a %d-rank communicator; the harness runs rank %d of %d\n",
                 r, nranks, ctx.rank, ctx.world_size);
    return ncclInvalidArgument;
  }
  *comm = ctx.comm;
  return ncclSuccess;
}
inline ncclResult_t CommInitRankConfig(ncclComm_t* comm, int nranks, ncclUniqueId id, int r, ncclConfig_t*) {
  return CommInitRank(comm, nranks, id, r);
}
// One communicator per GPU: the rank's GPU gets the harness's, the others foreign ones (projection.h).
inline ncclResult_t CommInitAll(ncclComm_t* comms, int ndev, const int* devlist) {
  cuco::RankContext& ctx = *S().ctx;
  if (!proj::kProjected || ndev != ctx.world_size) {
    std::fprintf(stderr, "cuco: ncclCommInitAll for %d GPUs; the harness runs %d ranks%s\n", ndev, ctx.world_size,
                 proj::kProjected ? "" : " (and this program was not made projected by cuco init)");
    return ncclInvalidUsage;
  }
  for (int i = 0; i < ndev; ++i) {
    const int gpu = devlist != nullptr ? devlist[i] : i;
    comms[i] = gpu == ctx.rank ? ctx.comm : proj::Foreign<ncclComm_t>(static_cast<uintptr_t>(gpu));
  }
  return ncclSuccess;
}
inline ncclResult_t CommDestroy(ncclComm_t) { return ncclSuccess; }  // ctx.comm is the harness's

// Every other call the program makes on a communicator: another GPU's (projection.h) is answered
// here, never handed to NCCL (which would dereference it: a program querying each GPU's
// communicator after ncclCommInitAll crashed in set-up); the harness's own is NCCL's.
inline int ForeignGpu(ncclComm_t c) { return static_cast<int>(reinterpret_cast<uintptr_t>(c) & 0xFFFF); }
inline ncclResult_t CommCount(ncclComm_t c, int* n) {
  return proj::IsForeign(c) ? (*n = S().ctx->world_size, ncclSuccess) : ::ncclCommCount(c, n);
}
inline ncclResult_t CommUserRank(ncclComm_t c, int* r) {
  return proj::IsForeign(c) ? (*r = ForeignGpu(c), ncclSuccess) : ::ncclCommUserRank(c, r);
}
// The program's GPU of the communicator: rank r's is GPU r when the program drives every GPU.
inline ncclResult_t CommCuDevice(ncclComm_t c, int* d) {
  if (proj::IsForeign(c)) return (*d = ForeignGpu(c)), ncclSuccess;
  return proj::kProjected ? (*d = S().ctx->rank, ncclSuccess) : ::ncclCommCuDevice(c, d);
}
inline ncclResult_t CommGetAsyncError(ncclComm_t c, ncclResult_t* e) {
  return proj::IsForeign(c) ? (*e = ncclSuccess, ncclSuccess) : ::ncclCommGetAsyncError(c, e);
}
inline ncclResult_t CommRegister(ncclComm_t c, void* buff, size_t size, void** handle) {
  if (proj::IsForeign(c) || !proj::Own()) return (*handle = nullptr), ncclSuccess;
  return ::ncclCommRegister(c, buff, size, handle);
}
inline ncclResult_t CommDeregister(ncclComm_t c, void* handle) {
  return proj::IsForeign(c) || handle == nullptr ? ncclSuccess : ::ncclCommDeregister(c, handle);
}
inline ncclResult_t CommWindowRegister(ncclComm_t c, void* buff, size_t size, ncclWindow_t* win, int flags) {
  if (proj::IsForeign(c) || !proj::Own()) return (*win = nullptr), ncclSuccess;
  return ::ncclCommWindowRegister(c, buff, size, win, flags);
}
inline ncclResult_t CommWindowDeregister(ncclComm_t c, ncclWindow_t win) {
  return proj::IsForeign(c) || win == nullptr ? ncclSuccess : ::ncclCommWindowDeregister(c, win);
}
inline ncclResult_t CommSplit(ncclComm_t c, int color, int key, ncclComm_t* out, ncclConfig_t* config) {
  if (proj::IsForeign(c)) return (*out = c), ncclSuccess;  // another GPU's stays another GPU's
  return ::ncclCommSplit(c, color, key, out, config);
}
inline ncclResult_t RedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t t, ncclScalarResidence_t where,
                                         ncclComm_t c) {
  return proj::IsForeign(c) ? (*op = ncclSum, ncclSuccess) : ::ncclRedOpCreatePreMulSum(op, scalar, t, where, c);
}
inline ncclResult_t RedOpDestroy(ncclRedOp_t op, ncclComm_t c) {
  return proj::IsForeign(c) ? ncclSuccess : ::ncclRedOpDestroy(op, c);
}

inline cudaError_t StreamCreateWithPriority(cudaStream_t* stream, unsigned int, int priority) {
  auto& s = S();
  if (!proj::Own()) {
    *stream = proj::Foreign<cudaStream_t>(0x100000u + static_cast<uintptr_t>(proj::t_device));
    return cudaSuccess;
  }
  if (s.streams_made == 0) {
    *stream = s.ctx->stream;
  } else if (s.streams_made - 1 < cuco::RankContext::kMaxSideStreams) {
    *stream = s.ctx->side_stream(s.streams_made - 1, priority);
    // Made inside an iteration: after the binds' copies too (IoBinder::JoinIn), not only its start.
    if (s.iterating && s.binds_done != nullptr && ::cudaStreamWaitEvent(*stream, s.binds_done, 0) != cudaSuccess)
      return cudaErrorUnknown;
  } else {
    std::fprintf(stderr, "cuco: the program creates more than %d streams\n", 1 + cuco::RankContext::kMaxSideStreams);
    return cudaErrorNotSupported;
  }
  ++s.streams_made;
  return cudaSuccess;
}
inline cudaError_t StreamCreate(cudaStream_t* stream) { return StreamCreateWithPriority(stream, 0, 0); }
inline cudaError_t StreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return StreamCreateWithPriority(stream, flags, 0);
}
inline cudaError_t StreamDestroy(cudaStream_t) { return cudaSuccess; }

// Events are the harness's: the handle holds index + 1.
inline int EventIndex(cudaEvent_t e) { return static_cast<int>(reinterpret_cast<uintptr_t>(e)) - 1; }
inline cudaStream_t Own(cudaStream_t stream) { return stream == nullptr ? S().ctx->stream : stream; }
inline cudaError_t EventCreateWithFlags(cudaEvent_t* e, unsigned int) {
  auto& s = S();
  if (!proj::Own()) {
    *e = proj::Foreign<cudaEvent_t>(0x200000u + static_cast<uintptr_t>(proj::t_device));
    return cudaSuccess;
  }
  if (s.events_made >= cuco::RankContext::kMaxEvents) return cudaErrorNotSupported;
  *e = reinterpret_cast<cudaEvent_t>(static_cast<uintptr_t>(++s.events_made));
  return cudaSuccess;
}
inline cudaError_t EventCreate(cudaEvent_t* e) { return EventCreateWithFlags(e, 0); }
inline cudaError_t EventCreate(cudaEvent_t* e, unsigned int flags) { return EventCreateWithFlags(e, flags); }
inline cudaError_t EventRecord(cudaEvent_t e, cudaStream_t stream = nullptr) {
  if (!proj::Own() || proj::IsForeign(e) || proj::IsForeign(stream)) return cudaSuccess;
  const int i = EventIndex(e);
  if (i < 0 || i >= cuco::RankContext::kMaxEvents) return cudaErrorInvalidResourceHandle;
  S().ctx->record_event(i, Own(stream));
  S().event_stream[i] = Own(stream);
  S().graphs.NoteRecord(i);
  return cudaSuccess;
}
inline cudaError_t EventRecordWithFlags(cudaEvent_t e, cudaStream_t stream = nullptr, unsigned int = 0) {
  return EventRecord(e, stream);
}
inline cudaError_t StreamWaitEvent(cudaStream_t stream, cudaEvent_t e, unsigned int = 0) {
  // Another GPU's event: the order between GPUs is NCCL's between the ranks.
  if (!proj::Own() || proj::IsForeign(e) || proj::IsForeign(stream)) return cudaSuccess;
  const int i = EventIndex(e);
  if (i < 0 || i >= cuco::RankContext::kMaxEvents) return cudaErrorInvalidResourceHandle;
  if (S().graphs.SkipsWait(i)) return cudaSuccess;  // an earlier pass's: ordered already (iteration_graph.h)
  S().ctx->wait_event(Own(stream), i);
  return cudaSuccess;
}
inline cudaStream_t RecordedOn(cudaEvent_t e) {
  const int i = EventIndex(e);
  return i >= 0 && i < cuco::RankContext::kMaxEvents && S().event_stream[i] ? S().event_stream[i] : S().ctx->stream;
}
inline cudaError_t EventSynchronize(cudaEvent_t e) {
  return proj::IsForeign(e) ? cudaSuccess : cudaStreamSynchronize(RecordedOn(e));
}
inline cudaError_t EventQuery(cudaEvent_t e) { return proj::IsForeign(e) ? cudaSuccess : cudaStreamQuery(RecordedOn(e)); }
inline cudaError_t EventElapsedTime(float* ms, cudaEvent_t, cudaEvent_t) {
  *ms = 0;  // the harness times
  return cudaSuccess;
}
inline cudaError_t EventDestroy(cudaEvent_t) { return cudaSuccess; }
// The program's own graphs, noted so that teardown destroys them (program_graphs.h).
inline cudaError_t StreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
  const cudaError_t e = cudaStreamEndCapture(stream, graph);
  if (e == cudaSuccess && graph != nullptr) S().program_graphs.NoteGraph(*graph);
  return e;
}
inline cudaError_t GraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0) {
  const cudaError_t e = cudaGraphInstantiate(exec, graph, flags);
  if (e == cudaSuccess && exec != nullptr) S().program_graphs.NoteExec(*exec);
  return e;
}
// CUDA 11's form, which cuda_runtime.h keeps for C++ (the error node and log are not filled).
inline cudaError_t GraphInstantiate(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphNode_t*, char*, size_t) {
  return GraphInstantiate(exec, graph, 0);
}
inline cudaError_t GraphInstantiateWithFlags(cudaGraphExec_t* exec, cudaGraph_t graph, unsigned long long flags = 0) {
  return GraphInstantiate(exec, graph, flags);
}
inline cudaError_t GraphInstantiateWithParams(cudaGraphExec_t* exec, cudaGraph_t graph, cudaGraphInstantiateParams* params) {
  const cudaError_t e = cudaGraphInstantiateWithParams(exec, graph, params);
  if (e == cudaSuccess && exec != nullptr) S().program_graphs.NoteExec(*exec);
  return e;
}
inline cudaError_t GraphExecDestroy(cudaGraphExec_t exec) {
  S().program_graphs.ForgetExec(exec);
  return cudaGraphExecDestroy(exec);
}
inline cudaError_t GraphDestroy(cudaGraph_t graph) {
  S().program_graphs.ForgetGraph(graph);
  return cudaGraphDestroy(graph);
}
inline cudaError_t SetDevice(int device) {
  if (proj::kProjected) {  // the program's GPU `device` is rank `device`'s
    if (device < 0 || device >= S().ctx->world_size) return cudaErrorInvalidDevice;
    proj::t_device = device;
    return device == S().ctx->rank ? ::cudaSetDevice(S().ctx->device) : cudaSuccess;
  }
  // One GPU a process: the number the program first selects is the rank's GPU (program_gpu.h).
  if (proj::SelectsOwnGpu(proj::g_program_gpu, device)) {
    proj::t_device = device;  // cudaGetDevice answers the program's own number
    return ::cudaSetDevice(S().ctx->device);
  }
  std::fprintf(stderr, "cuco: the program selects GPU %d after GPU %d: one process of it drives two GPUs, and the "
               "harness gives each rank one\n", device, proj::g_program_gpu.load());
  return cudaErrorInvalidDevice;
}

inline cudaError_t GetDevice(int* device) {
  *device = proj::t_device;
  return cudaSuccess;
}
inline cudaError_t GetDeviceCount(int* count) {
  *count = S().ctx->world_size;
  return cudaSuccess;
}

}  // namespace cuco_program::shim

#define ncclGetUniqueId cuco_program::shim::GetUniqueId
#define ncclCommInitRank cuco_program::shim::CommInitRank
#define ncclCommInitRankConfig cuco_program::shim::CommInitRankConfig
#define ncclCommInitAll cuco_program::shim::CommInitAll
#define ncclCommDestroy cuco_program::shim::CommDestroy
#define ncclCommFinalize cuco_program::shim::CommDestroy
#define ncclCommAbort cuco_program::shim::CommDestroy
#define ncclCommCount cuco_program::shim::CommCount
#define ncclCommUserRank cuco_program::shim::CommUserRank
#define ncclCommCuDevice cuco_program::shim::CommCuDevice
#define ncclCommGetAsyncError cuco_program::shim::CommGetAsyncError
#define ncclCommRegister cuco_program::shim::CommRegister
#define ncclCommDeregister cuco_program::shim::CommDeregister
#define ncclCommWindowRegister cuco_program::shim::CommWindowRegister
#define ncclCommWindowDeregister cuco_program::shim::CommWindowDeregister
#define ncclCommSplit cuco_program::shim::CommSplit
#define ncclRedOpCreatePreMulSum cuco_program::shim::RedOpCreatePreMulSum
#define ncclRedOpDestroy cuco_program::shim::RedOpDestroy
#define cudaStreamCreate cuco_program::shim::StreamCreate
#define cudaStreamCreateWithFlags cuco_program::shim::StreamCreateWithFlags
#define cudaStreamCreateWithPriority cuco_program::shim::StreamCreateWithPriority
#define cudaStreamDestroy cuco_program::shim::StreamDestroy
#define cudaEventCreate cuco_program::shim::EventCreate
#define cudaEventCreateWithFlags cuco_program::shim::EventCreateWithFlags
#define cudaEventRecord cuco_program::shim::EventRecord
#define cudaEventRecordWithFlags cuco_program::shim::EventRecordWithFlags
#define cudaStreamWaitEvent cuco_program::shim::StreamWaitEvent
#define cudaEventSynchronize cuco_program::shim::EventSynchronize
#define cudaEventQuery cuco_program::shim::EventQuery
#define cudaEventElapsedTime cuco_program::shim::EventElapsedTime
#define cudaEventDestroy cuco_program::shim::EventDestroy
#define cudaSetDevice cuco_program::shim::SetDevice
#define cudaStreamEndCapture cuco_program::shim::StreamEndCapture
#define cudaGraphInstantiate cuco_program::shim::GraphInstantiate
#define cudaGraphInstantiateWithFlags cuco_program::shim::GraphInstantiateWithFlags
#define cudaGraphInstantiateWithParams cuco_program::shim::GraphInstantiateWithParams
#define cudaGraphExecDestroy cuco_program::shim::GraphExecDestroy
#define cudaGraphDestroy cuco_program::shim::GraphDestroy
// The program's NCCL calls outside the EVOLVE blocks (included_calls.h): NCCL's own, sends and
// receives through a plain buffer when on a harness buffer (p2p_bounce.h), until generation 0
// routes them through the backend knob.
#define ncclSend cuco_program::included::Send
#define ncclRecv cuco_program::included::Recv
#define ncclGroupStart cuco_program::included::GroupStart
#define ncclGroupEnd cuco_program::included::GroupEnd
#define ncclAllReduce cuco_program::included::AllReduce
#define ncclAllGather cuco_program::included::AllGather
#define ncclReduceScatter cuco_program::included::ReduceScatter
#define ncclBroadcast cuco_program::included::Broadcast
#define ncclBcast cuco_program::included::Bcast
#define ncclReduce cuco_program::included::Reduce
#define ncclAlltoAll cuco_program::included::AlltoAll
#define ncclGather cuco_program::included::Gather
#define ncclScatter cuco_program::included::Scatter
// The program's cuBLAS and cublasLt GEMMs wherever they are (a helper in its own header, `hgemm` in
// gemm.h, that the blocks call, as well as the blocks' own): cuco's stand-ins (chunk_overlap.h),
// each the call itself unless generation 0's chunks knob armed a Producer naming its output, or the
// part knob skips GEMMs. Function-like, after chunk_overlap.h (whose stand-ins call cuBLAS's own):
// `cublasSgemm(` is cublas_v2.h's `cublasSgemm_v2(`, which then expands.
#define cublasSgemm_v2(...) cuco_program::overlap::Sgemm(__VA_ARGS__)
#define cublasHgemm(...) cuco_program::overlap::Hgemm(__VA_ARGS__)
#define cublasGemmEx(...) cuco_program::overlap::GemmEx(__VA_ARGS__)
#define cublasLtMatmul(...) cuco_program::overlap::LtMatmul(__VA_ARGS__)
#ifdef CUCO_PROGRAM_PROJECTED
#define cudaGetDevice cuco_program::shim::GetDevice
#define cudaGetDeviceCount cuco_program::shim::GetDeviceCount
#endif
