#include "evaluate/gpu_session.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <cstdlib>

#include <fmt/format.h>

#include "launch/gpu_visibility.h"

namespace cuco {
namespace {

// Given to processes that must not be MPS clients: a pipe folder that can never exist (/dev/null is
// no folder), so that neither a daemon at the default /tmp/nvidia-mps nor one the user started is used.
constexpr const char* kNoPipeDir = "/dev/null/cuco-no-mps";

std::string IdentityDevices(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) s += ',';
    s += std::to_string(i);
  }
  return s;
}

}  // namespace

bool ComparableWithPeers(const std::string& method) { return method.rfind("time-sliced", 0) != 0; }

std::string TimingPlan::Line() const { return fmt::format("timing: {}: {}", Method(), why); }

TimingPlan PlanTiming(const Toolchain& tc, bool cuda, bool slurm) {
  TimingPlan p;
  if (!cuda) {
    p.why = "a CPU workload, timed by the supervisor's own clock";
    return p;
  }
  if (slurm) {
    p.why = "the Slurm launcher: cuco starts its MPS daemon only where it runs the supervisor itself (--launcher local)";
    return p;
  }
  if (tc.gpus.empty()) {
    p.why = "no GPU found";
    return p;
  }
  for (const GpuInfo& g : tc.gpus)
    if (g.compute_mode == 1 || g.compute_mode == 2) {
      p.why = fmt::format("GPU {} is in {} compute mode, where MPS cannot serve it", g.index, ComputeModeName(g.compute_mode));
      return p;
    }
  p.control = FindMpsControl(std::getenv("PATH"));
  if (p.control.empty()) {
    p.why = "nvidia-cuda-mps-control not found (looked in PATH, /usr/local/nvidia/bin, /usr/bin)";
    return p;
  }
  p.mps = true;
  p.why = fmt::format("cuco starts {} for the GPUs of each evaluation (private pipe and log folders, stopped when the "
                      "evaluation ends)", p.control);
  return p;
}

TimingPlan CheckTimingPlan(const Toolchain& tc, const MpsOptions& base) {
  TimingPlan p = PlanTiming(tc, /*cuda=*/true, /*slurm=*/false);
  if (!p.mps) return p;
  MpsOptions o = base;
  o.control = p.control;
  o.devices.clear();
  for (const GpuInfo& g : tc.gpus) o.devices.push_back(g.uuid.empty() ? std::to_string(g.index) : g.uuid);
  auto d = MpsDaemon::Start(o);
  if (!d.ok()) {
    p.mps = false;
    p.why = "cuco's MPS daemon did not start here: " + d.status().message();
    return p;
  }
  const double start = (*d)->start_seconds();
  const MpsStopReport stop = (*d)->Stop();
  p.why += fmt::format("; a test start for all {} GPU(s) took {:.2f} s, its stop {}", tc.gpus.size(), start, stop.Describe());
  return p;
}

std::string FormatTimingSection(const TimingPlan& plan) {
  std::string out = "timing\n";
  out += "  method      " + plan.Method() + "\n";
  out += "  why         " + plan.why + "\n";
  if (!plan.mps)
    out += "  note        CUDA candidates will be timed 1.4-1.8x slow, unevenly between candidates; every record and "
           "table says so, and `cuco bench` leaves out their speed-up over PyTorch peers\n";
  return out;
}

nlohmann::json TimingPlanJson(const TimingPlan& plan) {
  return {{"method", plan.Method()}, {"mps", plan.mps}, {"control", plan.control}, {"why", plan.why},
          {"comparable_with_peers", ComparableWithPeers(plan.Method())}};
}

void GpuSession::Open(GpuLease lease, const std::vector<GpuInfo>& infos, const TimingPlan& plan, const MpsOptions& base) {
  Close();
  open_ = true;
  lease_ = std::move(lease);
  why_ = plan.why;
  mps_ = limits_known_ = false;
  if (!plan.mps || lease_.gpus().empty()) return;
  MpsOptions o = base;
  o.control = plan.control;
  o.devices.clear();
  for (int g : lease_.gpus()) {
    std::string uuid;
    for (const GpuInfo& info : infos)
      if (info.index == g) uuid = info.uuid;
    o.devices.push_back(uuid);
  }
  // Without every UUID the daemon gets the ordinals as this process numbers them, translated
  // through cuco's own CUDA_VISIBLE_DEVICES (the daemon inherits CUDA_DEVICE_ORDER).
  if (std::count(o.devices.begin(), o.devices.end(), std::string()) > 0) {
    o.devices.clear();
    const char* parent = std::getenv("CUDA_VISIBLE_DEVICES");
    for (int g : lease_.gpus()) o.devices.push_back(VisibleDevicesFor({g}, parent));
  }
  auto d = MpsDaemon::Start(o);
  if (!d.ok()) {
    why_ = "cuco's MPS daemon did not start: " + d.status().message();
    return;
  }
  daemon_ = std::move(*d);
  mps_ = true;
  control_ = daemon_->control();
  pipe_dir_ = daemon_->pipe_dir();
  start_s_ = daemon_->start_seconds();
  auto limits = daemon_->Limits();
  limits_known_ = limits.ok();
  limits_at_start_ = limits.ok() ? *limits : "";
  why_ = fmt::format("cuco's own MPS daemon for GPUs {} (started in {:.2f} s)", fmt::join(lease_.gpus(), ","), start_s_);
}

std::map<std::string, std::string> GpuSession::SupervisorEnv() const {
  if (!mps_) return {{"CUDA_MPS_PIPE_DIRECTORY", kNoPipeDir}};
  return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_},
          {"CUDA_VISIBLE_DEVICES", IdentityDevices(lease_.gpus().size())},
          {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"}};
}

void GpuSession::SetCandidateEnv(std::map<std::string, std::string>* env) const {
  for (auto it = env->begin(); it != env->end();) it = it->first.rfind("CUDA_MPS_", 0) == 0 ? env->erase(it) : std::next(it);
  for (const auto& [k, v] : SupervisorEnv()) (*env)[k] = v;
}

void GpuSession::ConfineSandbox(SandboxSpec* spec) const { spec->mps_pipe_dir = mps_ && daemon_ ? pipe_dir_ : ""; }

std::string GpuSession::DaemonChanged() {
  if (!mps_) return "";
  if (!daemon_ || !daemon_->Alive()) return "cuco's MPS daemon for this evaluation is gone (only a candidate process could reach it)";
  if (!limits_known_) return "";  // unreadable from the start: only the daemon's life is checked
  // A command failing now that answered at the start is asked again (three times, 0.5 s apart)
  // before it is judged: the daemon may be busy with a server the candidate's processes left.
  std::string changed;
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto now = daemon_->Limits();
    if (!now.ok()) return "cuco's MPS daemon no longer answers (" + now.status().message() + ")";
    changed = LimitsDiffer(limits_at_start_, *now);
    if (!OnlyUnanswered(changed)) break;
  }
  if (changed.empty()) return "";
  if (OnlyUnanswered(changed)) return "cuco's MPS daemon no longer answers what it answered at the start (" + changed + ")";
  return "a candidate process changed cuco's MPS daemon for this evaluation (" + changed + ")";
}

nlohmann::json GpuSession::ToJson() const {
  nlohmann::json j = {{"method", method()}, {"why", why_}, {"gpus", lease_.gpus()}};
  if (mps_) j["mps"] = {{"control", control_}, {"pipe_dir", pipe_dir_}, {"start_s", start_s_}, {"stop", stop_}};
  return j;
}

void GpuSession::StopDaemon() {
  if (!daemon_) return;
  stop_ = daemon_->Stop().Describe();
  daemon_.reset();
}

void GpuSession::Close() {
  StopDaemon();
  lease_.Release();
}

}  // namespace cuco
