// cuco::RankContext's services for candidate code (cuco/harness.h), implemented by the candidate
// runtime in the candidate's own process.
#include <algorithm>
#include <string>

#include "candidate/context_state.h"
#include "common/driver_api.h"

namespace cuco {

cudaStream_t RankContext::side_stream(int i, int priority) {
  cuco_harness::ContextState* st = state_;
  if (i < 0 || i >= kMaxSideStreams) {
    st->note_error("ctx.side_stream(" + std::to_string(i) + "): the index must be in [0, " +
                   std::to_string(kMaxSideStreams) + ")");
    return st->stream;
  }
  if (st->side[i] == nullptr) {
    int least = 0, greatest = 0;
    cudaError_t e = cudaDeviceGetStreamPriorityRange(&least, &greatest);
    const int p = std::min(std::max(priority, greatest), least);  // greatest <= least numerically
    cudaStream_t s = nullptr;
    cudaEvent_t ev = nullptr;
    if (e == cudaSuccess) e = cudaStreamCreateWithPriority(&s, st->stream_flags, p);
    if (e == cudaSuccess) e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
    // Created inside an iteration: it must not start before the iteration did.
    if (e == cudaSuccess && st->in_iteration) e = cudaStreamWaitEvent(s, st->ev_start, 0);
    if (e != cudaSuccess) {
      st->note_error(std::string("ctx.side_stream(") + std::to_string(i) + "): " + cudaGetErrorString(e));
      return st->stream;
    }
    st->side[i] = s;
    st->side_join[i] = ev;
  }
  return st->side[i];
}

void RankContext::record_event(int i, cudaStream_t stream) {
  cuco_harness::ContextState* st = state_;
  if (i < 0 || i >= kMaxEvents) {
    st->note_error("ctx.record_event(" + std::to_string(i) + "): the index must be in [0, " + std::to_string(kMaxEvents) + ")");
    return;
  }
  const cudaError_t e = cudaEventRecord(st->user_events[i], stream);
  if (e != cudaSuccess) st->note_error("ctx.record_event(" + std::to_string(i) + "): " + cudaGetErrorString(e));
}

void RankContext::wait_event(cudaStream_t stream, int i) {
  cuco_harness::ContextState* st = state_;
  if (i < 0 || i >= kMaxEvents) {
    st->note_error("ctx.wait_event(" + std::to_string(i) + "): the index must be in [0, " + std::to_string(kMaxEvents) + ")");
    return;
  }
  const cudaError_t e = cudaStreamWaitEvent(stream, st->user_events[i], 0);
  if (e != cudaSuccess) st->note_error("ctx.wait_event(" + std::to_string(i) + "): " + cudaGetErrorString(e));
}

cublasLtHandle_t RankContext::cublaslt() { return state_->lt; }

Status RankContext::write_value32(cudaStream_t stream, uint32_t* flag, uint32_t value) {
  std::string e;
  const cuco::driver::Api* api = cuco::driver::Load(&e);
  if (api == nullptr) return Status::Error("ctx.write_value32: " + e);
  const CUresult r = api->StreamWriteValue32(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(flag),
                                             value, CU_STREAM_WRITE_VALUE_DEFAULT);
  if (r != CUDA_SUCCESS) return Status::Error("ctx.write_value32: cuStreamWriteValue32 failed: " + cuco::driver::ErrorName(r));
  return Status::Ok();
}

Status RankContext::wait_value32(cudaStream_t stream, const uint32_t* flag, uint32_t target) {
  std::string e;
  const cuco::driver::Api* api = cuco::driver::Load(&e);
  if (api == nullptr) return Status::Error("ctx.wait_value32: " + e);
  const CUresult r = api->StreamWaitValue32(reinterpret_cast<CUstream>(stream), reinterpret_cast<CUdeviceptr>(flag),
                                            target, CU_STREAM_WAIT_VALUE_GEQ);
  if (r != CUDA_SUCCESS) return Status::Error("ctx.wait_value32: cuStreamWaitValue32 failed: " + cuco::driver::ErrorName(r));
  return Status::Ok();
}

Status RankContext::alloc_symmetric(size_t bytes, Buffer* out) {
  cuco_harness::ContextState* st = state_;
  if (out == nullptr) return Status::Error("ctx.alloc_symmetric: out is null");
  if (st->in_teardown) return Status::Error("ctx.alloc_symmetric may not be called in teardown");
  const size_t registered = (std::max<size_t>(bytes, 1) + 4095) / 4096 * 4096;
  void* p = nullptr;
  ncclResult_t r = ncclMemAlloc(&p, registered);
  if (r != ncclSuccess)
    return Status::Error(std::string("ctx.alloc_symmetric: ncclMemAlloc(") + std::to_string(registered) +
                         ") failed: " + ncclGetErrorString(r));
  ncclWindow_t w = nullptr;
  r = ncclCommWindowRegister(st->comm, p, registered, &w, NCCL_WIN_COLL_SYMMETRIC);
  if (r != ncclSuccess) {
    ncclMemFree(p);
    return Status::Error(std::string("ctx.alloc_symmetric: ncclCommWindowRegister failed: ") + ncclGetErrorString(r) +
                         " " + ncclGetLastError(st->comm));
  }
  st->windows.push_back(cuco_harness::SymAlloc{p, w, true});
  // Zeroed, so that nothing from an earlier user of the memory is visible.
  const cudaError_t e = cudaMemset(p, 0, registered);
  if (e != cudaSuccess) return Status::Error(std::string("ctx.alloc_symmetric: cudaMemset: ") + cudaGetErrorString(e));
  out->ptr = p;
  out->bytes = bytes;
  out->window = w;
  return Status::Ok();
}

Status RankContext::create_dev_comm(const ncclDevCommRequirements& reqs, ncclDevComm* out) {
  cuco_harness::ContextState* st = state_;
  if (out == nullptr) return Status::Error("ctx.create_dev_comm: out is null");
  if (st->in_teardown) return Status::Error("ctx.create_dev_comm may not be called in teardown");
  if (reqs.lsaMultimem)
    return Status::Error("ctx.create_dev_comm: lsaMultimem (NVLink multicast) is not allowed on cuco's machines");
  const ncclResult_t r = ncclDevCommCreate(st->comm, &reqs, out);
  if (r != ncclSuccess)
    return Status::Error(std::string("ctx.create_dev_comm: ncclDevCommCreate failed: ") + ncclGetErrorString(r) + " " +
                         ncclGetLastError(st->comm));
  st->dev_comms.push_back(*out);
  return Status::Ok();
}

}  // namespace cuco
