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
#include <cuco/program/impl/program_env.h>
#include <cuco/program/impl/p2p_bounce.h>
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
inline cudaError_t SetDevice(int device) {
  if (proj::kProjected) {  // the program's GPU `device` is rank `device`'s
    if (device < 0 || device >= S().ctx->world_size) return cudaErrorInvalidDevice;
    proj::t_device = device;
    return device == S().ctx->rank ? ::cudaSetDevice(S().ctx->device) : cudaSuccess;
  }
  if (device == S().ctx->device) return ::cudaSetDevice(device);
  std::fprintf(stderr, "cuco: the program selects GPU %d; the harness gives this rank GPU %d\n", device, S().ctx->device);
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
#define ncclSend cuco_program::p2p::Send  // through a plain buffer when on a harness buffer (p2p_bounce.h)
#define ncclRecv cuco_program::p2p::Recv
#define ncclGroupStart cuco_program::p2p::GroupStart
#define ncclGroupEnd cuco_program::p2p::GroupEnd
#ifdef CUCO_PROGRAM_PROJECTED
#define cudaGetDevice cuco_program::shim::GetDevice
#define cudaGetDeviceCount cuco_program::shim::GetDeviceCount
#endif
