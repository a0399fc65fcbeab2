// The candidate runtime's side of a cuco::RankContext (cuco/harness.h declares it opaque): the
// streams, events, handles and NCCL resources a candidate rank uses. It lives in the candidate's
// own process, which is untrusted as a whole: nothing here decides a verdict.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nccl.h>
#include <nccl_device.h>

#include <string>
#include <vector>

#include <cuco/harness.h>

namespace cuco_harness {

struct SymAlloc {
  void* ptr;
  ncclWindow_t window;
  bool nccl_memory;  // from ncclMemAlloc (else a cuMem allocation of the runtime's own)
};

struct ContextState {
  int rank = 0, world = 1, local_rank = 0, local_world = 1, device = 0, sm_count = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  unsigned stream_flags = cudaStreamDefault;  // of ctx.stream and the side streams
  cudaStream_t side[cuco::RankContext::kMaxSideStreams] = {};
  cudaEvent_t side_join[cuco::RankContext::kMaxSideStreams] = {};
  cudaEvent_t ev_start = nullptr;
  cudaEvent_t user_events[cuco::RankContext::kMaxEvents] = {};
  cublasLtHandle_t lt = nullptr;
  std::vector<SymAlloc> windows;       // every window registered on comm, in order
  std::vector<ncclDevComm> dev_comms;  // candidate's create_dev_comm, in order
  bool in_iteration = false;
  bool in_teardown = false;
  std::string sticky_error;            // a misuse of the context found during a candidate call
  void note_error(const std::string& e) {
    if (sticky_error.empty()) sticky_error = e;
  }
};

}  // namespace cuco_harness
