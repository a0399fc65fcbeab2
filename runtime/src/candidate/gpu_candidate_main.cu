// The GPU candidate runtime: main() of a CUDA workload's candidate executable (candidate code plus
// this runtime). One process per rank, all ranks inside one sandbox; as untrusted as the candidate
// it carries. It builds what cuco/harness.h promises a candidate (its communicator, ctx.stream, side
// streams, events, cuBLASLt, the workload's buffers as NCCL windows), shares each buffer with the
// supervisor as a cuMem POSIX fd, and on each kIter:
//   ctx.stream waits GO >= n; cuco_candidate_run; side streams joined; ctx.stream writes DONE = n.
// The supervisor times, fills inputs and checks outputs on its own; see cuco/protocol.h.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "candidate/context_state.h"
#include "common/channel.h"
#include "common/driver_api.h"

namespace {

using namespace cuco::protocol;
using cuco_harness::ContextState;

[[noreturn]] void Die(const std::string& why) {
  std::fprintf(stderr, "cuco candidate runtime: %s\n", why.c_str());
  std::fflush(stderr);
  std::_Exit(1);
}

void Send(const Message& m, const void* payload = nullptr, size_t bytes = 0, const std::vector<int>& fds = {}) {
  const std::string err = SendMessage(kCandidateFd, m, payload, bytes, fds);
  if (!err.empty()) Die("cannot talk to the supervisor: " + err);
}

Received Receive() {
  Received got;
  std::string err;
  if (RecvMessage(kCandidateFd, -1, &got, &err) != RecvStatus::kOk) Die("the supervisor went away or sent garbage " + err);
  return got;
}

void CudaOrDie(cudaError_t e, const char* what) {
  if (e != cudaSuccess) Die(std::string(what) + ": " + cudaGetErrorString(e));
}

void NcclOrDie(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) Die(std::string(what) + ": " + ncclGetErrorString(r) + " " + ncclGetLastError(nullptr));
}

template <typename F>
std::string Guarded(F&& f) {
  try {
    const cuco::Status s = f();
    return s.ok() ? std::string() : s.message();
  } catch (const std::exception& e) {
    return std::string("exception thrown by the candidate: ") + e.what();
  } catch (...) {
    return "unknown exception thrown by the candidate";
  }
}

struct SharedBuffer {
  void* ptr = nullptr;
  ncclWindow_t window = nullptr;
  int fd = -1;
  size_t size = 0;  // of the allocation the fd names
};

// A harness buffer: registered on ctx.comm as a symmetric window and exportable as a POSIX fd.
// ncclMemAlloc's memory when NCCL made it exportable; else a cuMem allocation of our own.
SharedBuffer AllocShared(ContextState& st, size_t registered, const cuco::driver::Api* api) {
  SharedBuffer b;
  NcclOrDie(ncclMemAlloc(&b.ptr, registered), "ncclMemAlloc");
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr base = 0;
  size_t size = 0;
  bool exported = api->MemRetainAllocationHandle(&h, b.ptr) == CUDA_SUCCESS &&
                  api->MemGetAddressRange(&base, &size, reinterpret_cast<CUdeviceptr>(b.ptr)) == CUDA_SUCCESS &&
                  base == reinterpret_cast<CUdeviceptr>(b.ptr) && cuco::driver::ExportFd(h, &b.fd).empty();
  if (h != 0) api->MemRelease(h);  // the retain's reference
  if (exported) {
    b.size = size;
    NcclOrDie(ncclCommWindowRegister(st.comm, b.ptr, registered, &b.window, NCCL_WIN_COLL_SYMMETRIC),
              "ncclCommWindowRegister");
    st.windows.push_back(cuco_harness::SymAlloc{b.ptr, b.window, true});
  } else {
    ncclMemFree(b.ptr);
    cuco::driver::Shareable s;
    std::string e = cuco::driver::CreateShareable(st.device, registered, &s);
    if (e.empty()) e = cuco::driver::ExportFd(s.handle, &b.fd);
    if (!e.empty()) Die("cannot make a shareable buffer: " + e);
    b.ptr = reinterpret_cast<void*>(s.ptr);
    b.size = s.size;
    NcclOrDie(ncclCommWindowRegister(st.comm, b.ptr, registered, &b.window, NCCL_WIN_COLL_SYMMETRIC),
              "ncclCommWindowRegister");
    st.windows.push_back(cuco_harness::SymAlloc{b.ptr, b.window, false});
  }
  CudaOrDie(cudaMemset(b.ptr, 0, registered), "cudaMemset");
  return b;
}

std::string Name(const char* field, size_t cap) { return std::string(field, strnlen(field, cap)); }

}  // namespace

int main() {
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  Send(MakeMessage(MsgType::kHello, kVersion, ::getpid()));
  Received cfg_msg = Receive();
  if (cfg_msg.msg.type != static_cast<uint32_t>(MsgType::kConfig) || cfg_msg.payload.size() != sizeof(WireConfig) ||
      cfg_msg.fds.size() != 1)
    Die("bad config from the supervisor");
  WireConfig cfg;
  std::memcpy(&cfg, cfg_msg.payload.data(), sizeof cfg);

  ContextState st;
  st.rank = cfg.rank;
  st.world = cfg.world;
  st.local_rank = cfg.local_rank;
  st.local_world = cfg.local_world;
  st.device = cfg.local_rank;
  CudaOrDie(cudaSetDevice(st.device), "cudaSetDevice");
  CudaOrDie(cudaDeviceGetAttribute(&st.sm_count, cudaDevAttrMultiProcessorCount, st.device), "cudaDeviceGetAttribute");
  std::string err;
  const cuco::driver::Api* api = cuco::driver::Load(&err);
  if (!api) Die(err);
  cuco::driver::Shareable flags;
  size_t flag_bytes = 0;
  {
    // The flags allocation is at least one granule; map it whole.
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = st.device;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    if (api->MemGetAllocationGranularity(&flag_bytes, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS)
      Die("cuMemGetAllocationGranularity");
  }
  err = cuco::driver::MapImported(st.device, cfg_msg.fds[0], flag_bytes, &flags);
  if (!err.empty()) Die("cannot map the supervisor's flags: " + err);
  ::close(cfg_msg.fds[0]);
  const CUdeviceptr go = flags.ptr + 0, done = flags.ptr + 128;

  // The communicator: rank 0's id, relayed by the supervisor.
  if (st.rank == 0) {
    ncclUniqueId id;
    NcclOrDie(ncclGetUniqueId(&id), "ncclGetUniqueId");
    Send(MakeMessage(MsgType::kNcclId), &id, sizeof id);
  }
  Received id_msg = Receive();
  if (id_msg.msg.type != static_cast<uint32_t>(MsgType::kNcclId) || id_msg.payload.size() != sizeof(ncclUniqueId))
    Die("bad communicator id from the supervisor");
  ncclUniqueId id;
  std::memcpy(&id, id_msg.payload.data(), sizeof id);
  NcclOrDie(ncclCommInitRank(&st.comm, st.world, id, st.rank), "ncclCommInitRank");

  // Streams blocking with respect to the legacy default stream, so that work a candidate puts on
  // stream 0 is ordered with ctx.stream (diagnostic: CUCO_HARNESS_NONBLOCKING_STREAMS=1).
  if (const char* nb = std::getenv("CUCO_HARNESS_NONBLOCKING_STREAMS"); nb && std::string(nb) == "1")
    st.stream_flags = cudaStreamNonBlocking;
  CudaOrDie(cudaStreamCreateWithFlags(&st.stream, st.stream_flags), "cudaStreamCreate");
  CudaOrDie(cudaEventCreateWithFlags(&st.ev_start, cudaEventDisableTiming), "cudaEventCreate");
  for (auto& e : st.user_events) CudaOrDie(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
  if (cublasLtCreate(&st.lt) != CUBLAS_STATUS_SUCCESS) Die("cublasLtCreate failed");

  // The workload's buffers: inputs, then each output set; shared with the supervisor.
  cuco::IO io[kMaxOutputSets];
  std::vector<int> fds;
  Message buffers_msg = MakeMessage(MsgType::kBuffers);
  auto add = [&](const WireBuffer& w, int set_or_all) {
    const SharedBuffer b = AllocShared(st, static_cast<size_t>(w.registered), api);
    buffers_msg.sizes[fds.size()] = b.size;
    fds.push_back(b.fd);
    const cuco::Buffer buf{b.ptr, static_cast<size_t>(w.bytes), b.window};
    const std::string name = Name(w.name, kMaxName);
    if (set_or_all < 0)
      for (auto& x : io) x.add(name.c_str(), false, buf);
    else
      io[set_or_all].add(name.c_str(), true, buf);
  };
  if (cfg.n_buffers < 0 || cfg.n_buffers > kMaxBuffers || cfg.output_sets < 1 || cfg.output_sets > kMaxOutputSets)
    Die("bad buffer list from the supervisor");
  for (int i = 0; i < cfg.n_buffers; ++i)
    if (!cfg.buffers[i].is_output) add(cfg.buffers[i], -1);
  for (int set = 0; set < cfg.output_sets; ++set)
    for (int i = 0; i < cfg.n_buffers; ++i)
      if (cfg.buffers[i].is_output) add(cfg.buffers[i], set);
  CudaOrDie(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  Send(buffers_msg, nullptr, 0, fds);
  for (int fd : fds) ::close(fd);

  cuco::Sizes sizes;
  for (int i = 0; i < cfg.n_sizes && i < kMaxSizes; ++i) sizes.set(Name(cfg.sizes[i].name, kMaxName).c_str(), cfg.sizes[i].value);
  cuco::RankContext ctx(&st, st.rank, st.world, st.local_rank, st.local_world, st.device, st.sm_count, st.comm, st.stream);
  void* state = nullptr;
  err = Guarded([&] { return cuco_candidate_setup(ctx, sizes, &state); });
  if (err.empty()) {
    const cudaError_t launch = cudaGetLastError();
    if (!st.sticky_error.empty()) err = st.sticky_error;
    else if (launch != cudaSuccess) err = std::string("CUDA error after setup: ") + cudaGetErrorString(launch);
    else if (cudaDeviceSynchronize() != cudaSuccess) err = "CUDA error in setup's work";
  }
  Send(MakeMessage(MsgType::kReady, 0, 0, err));
  if (!err.empty()) return 3;

  for (;;) {
    Received m = Receive();
    if (m.msg.type == static_cast<uint32_t>(MsgType::kTeardown)) break;
    if (m.msg.type != static_cast<uint32_t>(MsgType::kIter)) Die("unexpected message from the supervisor");
    const int64_t serial = m.msg.a;
    const int set = static_cast<int>(m.msg.b);
    if (set < 0 || set >= cfg.output_sets) Die("bad output set");
    const CUstream s = reinterpret_cast<CUstream>(st.stream);
    if (api->StreamWaitValue32(s, go, static_cast<cuuint32_t>(serial), CU_STREAM_WAIT_VALUE_GEQ) != CUDA_SUCCESS)
      Die("cuStreamWaitValue32");
    CudaOrDie(cudaEventRecord(st.ev_start, st.stream), "cudaEventRecord");
    for (int i = 0; i < cuco::RankContext::kMaxSideStreams; ++i)
      if (st.side[i] != nullptr) CudaOrDie(cudaStreamWaitEvent(st.side[i], st.ev_start, 0), "cudaStreamWaitEvent");
    st.in_iteration = true;
    err = Guarded([&] { return cuco_candidate_run(ctx, state, io[set]); });
    st.in_iteration = false;
    const cudaError_t launch = cudaGetLastError();
    if (err.empty() && !st.sticky_error.empty()) err = st.sticky_error;
    if (err.empty() && launch != cudaSuccess) err = std::string("CUDA error after run: ") + cudaGetErrorString(launch);
    for (int i = 0; i < cuco::RankContext::kMaxSideStreams; ++i) {
      if (st.side[i] == nullptr) continue;
      CudaOrDie(cudaEventRecord(st.side_join[i], st.side[i]), "cudaEventRecord");
      CudaOrDie(cudaStreamWaitEvent(st.stream, st.side_join[i], 0), "cudaStreamWaitEvent");
    }
    if (api->StreamWriteValue32(s, done, static_cast<cuuint32_t>(serial), CU_STREAM_WRITE_VALUE_DEFAULT) != CUDA_SUCCESS)
      Die("cuStreamWriteValue32");
    Send(MakeMessage(MsgType::kIterDone, serial, 0, err));
  }

  st.in_teardown = true;
  err = Guarded([&] {
    cuco_candidate_teardown(ctx, state);
    return cuco::Status::Ok();
  });
  if (err.empty() && cudaDeviceSynchronize() != cudaSuccess) err = "CUDA error in teardown's work";
  if (err.empty() && !st.sticky_error.empty()) err = st.sticky_error;
  // Collective releases in the same order on every rank.
  for (const auto& dc : st.dev_comms) ncclDevCommDestroy(st.comm, &dc);
  for (auto it = st.windows.rbegin(); it != st.windows.rend(); ++it) {
    ncclCommWindowDeregister(st.comm, it->window);
    if (it->nccl_memory) ncclMemFree(it->ptr);
  }
  ncclCommDestroy(st.comm);
  Send(MakeMessage(MsgType::kBye, 0, 0, err));
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(0);
}
