// The supervisor's GPU backend: rank_backend.h for harness-mode CUDA workloads (gpu_backend.cu says
// how the window is timed and how memory is shared).
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include <cuco/harness.h>
#include <cuco/workload_spec.h>

#include "common/driver_api.h"
#include "supervisor/args.h"
#include "supervisor/gpu_state.h"
#include "supervisor/rank_backend.h"
#include "supervisor/start_line.h"

namespace cuco::supervisor {

class GpuBackend : public RankBackend {
 public:
  // `start_line` is shared by every rank's backend of this process (start_line.h).
  GpuBackend(const Args& args, StartLine* start_line);
  ~GpuBackend() override;

  void Init(int rank, int world, int output_sets) override;
  std::string DeviceName() const override { return device_name_; }
  void DescribeDevice(Json& j) const override;
  std::string TimingMethod() const override;
  void ReadDeviceState(const std::string& point) override;
  std::vector<protocol::WireBuffer> Buffers() const override;
  int64_t OutputRows() const override;
  std::vector<int> ConfigFds() override;
  bool WantsCommId() const override { return true; }
  bool WantsBuffers() const override { return true; }
  void AcceptBuffers(protocol::Received& msg) override;
  double NullIteration(uint64_t seed) override;
  bool CandidateWaitsForGo() const override { return true; }  // gpu_candidate_main.cu: wait GO, run, DONE
  void Begin(uint64_t seed, int set, int64_t serial) override;
  double End(int set, int64_t serial, double limit_s) override;
  void Unblock() override;
  void Poison(int set, uint64_t poison_seed) override;
  int64_t ChangedSincePoison(int set, uint64_t poison_seed) override;
  ScanFigures ScanSnapshot(uint64_t poison_seed) override;
  CheckFigures CheckSnapshot(uint64_t input_seed, const std::vector<int64_t>& rows) override;
  void KeepSnapshot() override;
  AgreeFigures AgreeWithKept() override;

 private:
  struct Buf {
    cuco_frozen::BufferSpec spec;
    int index = 0;            // position in the workload's buffer list (poison stream id)
    size_t bytes = 0;         // this rank's
    size_t registered = 0;    // the same on every rank
    driver::Shareable shared[protocol::kMaxOutputSets];  // the candidate's allocation, mapped here
  };
  cuco::IO SharedIO(int set) const;
  void Fill(uint64_t seed, const cuco::IO& io);
  ScanFigures Scan(const std::vector<const void*>& ptrs, uint64_t seed);
  unsigned Grid(int64_t n) const;

  const Args& args_;
  cuco::Sizes sizes_;
  const driver::Api* api_ = nullptr;
  int rank_ = 0, world_ = 1, sets_ = 1, device_ = 0, sm_count_ = 0;
  int runtime_version_ = 0, driver_version_ = 0, nccl_version_ = 0;
  bool mps_ = false;
  std::string device_name_, cc_, pci_bus_id_;
  GpuReading state_before_, state_after_;
  cudaStream_t stream_ = nullptr, rescue_ = nullptr;
  cudaEvent_t e0_ = nullptr, e1_ = nullptr;
  unsigned long long* counters_ = nullptr;
  std::vector<Buf> inputs_, outputs_;
  std::vector<void*> snapshot_, kept_, cal_inputs_, cal_outputs_;
  uint64_t unordered_outputs_ = 0;  // the reference's CheckResult::unordered_outputs, as seen so far
  std::vector<cuco_frozen::CheckResult::Run> left_alone_;  // the last check's CheckResult::left_alone
  double max_abs_scale_ = 1;  // the last check's CheckResult::max_abs_scale: the agreement's scale too
  driver::Shareable flags_;
  int flags_fd_ = -1;
  void* cal_flags_ = nullptr;
  uint32_t cal_serial_ = 0;
  StartLine* start_line_ = nullptr;
  uint32_t round_ = 0;  // start-line rounds crossed (null iterations and iterations alike)
};

}  // namespace cuco::supervisor
