// How an evaluation's GPUs are timed, and the session that holds them from the first GPU stage of
// an evaluation to its end (docs/workload-contract.md, "Timing method").
//
// The supervisor and the candidate are two processes, so two CUDA contexts per GPU. Without MPS the
// GPU time-slices them and every window is timed slow (1.4-1.8x measured, unevenly between
// candidates). So each evaluation gets cuco's own MPS control daemon (launch/mps_daemon.h) for its
// GPUs, started when its first GPU stage leases them and stopped (quit, then killed by pid) when
// the evaluation ends: whatever a candidate sends it through the pipe folder dies with its own
// evaluation. Where it cannot start (no nvidia-cuda-mps-control, a failure, the Slurm launcher) the
// evaluation runs time-sliced and every record says so: timing.method is kTimeSlicedMethod.
//
// What the session gives the processes of a stage:
//   - the supervisor: CUDA_MPS_PIPE_DIRECTORY (cuco's pipe folder, or, without MPS, a path that can
//     never exist, so that no other daemon is used), and under MPS CUDA_VISIBLE_DEVICES "0,...,n-1"
//     and CUDA_DEVICE_ORDER=PCI_BUS_ID (the server's devices are the lease's GPUs);
//   - the candidate: the same variables, and its sandbox binds the pipe folder and nothing else of
//     MPS (never the log folder, never /tmp/nvidia-mps).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/gpu_state_check.h"
#include "launch/gpu_pool.h"
#include "launch/mps_daemon.h"
#include "launch/sandbox.h"
#include "toolchain/toolchain.h"

namespace cuco {

inline constexpr const char* kMpsTimingMethod = "MPS (cuco's own daemon: supervisor and candidate run concurrently)";
inline constexpr const char* kTimeSlicedMethod = "time-sliced (no MPS): not comparable with peers";
// Whether a record's timing method is one whose figures may stand beside a peer's.
bool ComparableWithPeers(const std::string& method);

// What a run will do, decided up front (and said in one line); an evaluation whose daemon then
// fails to start says so in its own record.
struct TimingPlan {
  bool mps = false;
  std::string control;  // nvidia-cuda-mps-control's path when mps
  std::string why;      // why not, or how
  std::string Method() const { return mps ? kMpsTimingMethod : kTimeSlicedMethod; }
  std::string Line() const;  // "timing: <method>: <why>"
};
// `cuda`: the workload runs on GPUs; `slurm`: the supervisor runs through the Slurm launcher.
TimingPlan PlanTiming(const Toolchain& tc, bool cuda, bool slurm);

// What `cuco doctor` reports: PlanTiming for this machine and, when that says MPS, the daemon started
// once for every GPU here and stopped again (mps stays true only when both went cleanly; `why`
// says how long they took, or why not).
TimingPlan CheckTimingPlan(const Toolchain& tc, const MpsOptions& base = {});
// The doctor's "timing" section (lines indented by 2), and its JSON.
std::string FormatTimingSection(const TimingPlan& plan);
nlohmann::json TimingPlanJson(const TimingPlan& plan);

class GpuSession {
 public:
  GpuSession() = default;
  GpuSession(const GpuSession&) = delete;
  GpuSession& operator=(const GpuSession&) = delete;
  ~GpuSession() { Close(); }

  // Holds `lease` (may be empty: Slurm's GPUs) and, when plan.mps and the lease has GPUs, starts
  // cuco's daemon for them (`infos`: the toolchain's GPUs, for their UUIDs). A daemon that does not
  // start leaves the session time-sliced, `why` saying why.
  void Open(GpuLease lease, const std::vector<GpuInfo>& infos, const TimingPlan& plan, const MpsOptions& base = {});
  bool is_open() const { return open_; }
  const std::vector<int>& gpus() const { return lease_.gpus(); }
  bool mps() const { return mps_; }
  std::string method() const { return mps() ? kMpsTimingMethod : kTimeSlicedMethod; }
  const std::string& why() const { return why_; }
  const MpsDaemon* daemon() const { return daemon_.get(); }

  // Variables of the supervisor's environment (on top of the launcher's); under MPS the launcher
  // must not set CUDA_VISIBLE_DEVICES from the lease (the job gets no GPU list).
  std::map<std::string, std::string> SupervisorEnv() const;
  // Sets the candidate's MPS and device variables in `env` (removing any MPS variable it holds).
  void SetCandidateEnv(std::map<std::string, std::string>* env) const;
  // The MPS folder the candidate's sandbox binds: cuco's pipe folder, or none.
  void ConfineSandbox(SandboxSpec* spec) const;
  // After a stage: what changed in the daemon since it started (its limits, or the daemon gone),
  // which only a candidate process can have done; "" when nothing did.
  std::string DaemonChanged();

  std::vector<GpuReading> baseline;  // per rank: the evaluation's first "before" readings
  bool probe_after = false;          // a stage failed in a way that may have wedged a GPU

  // {"method", "why", "gpus", "mps": {"control", "pipe_dir", "start_s", "stop"}}.
  nlohmann::json ToJson() const;
  // Stops the daemon (idempotent); the GPUs stay held (to be probed without it).
  void StopDaemon();
  // StopDaemon, then gives the GPUs back.
  void Close();

 private:
  bool open_ = false, mps_ = false, limits_known_ = false;
  GpuLease lease_;
  std::unique_ptr<MpsDaemon> daemon_;
  std::string why_, limits_at_start_, control_, pipe_dir_, stop_;
  double start_s_ = 0;
};

}  // namespace cuco
