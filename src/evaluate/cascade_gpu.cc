// Cascade: an evaluation's GPU session (cuco's own MPS daemon for its GPUs, gpu_session.h) and the
// GPU state as evidence (gpu_state_check.h), cascade.h.
#include <fmt/format.h>

#include "evaluate/cascade.h"

namespace cuco {
namespace {

std::string ReferenceKey(const nlohmann::json& rank, bool mps) {
  const std::string bus = rank.is_object() && rank.contains("pci_bus_id") && rank["pci_bus_id"].is_string()
                              ? rank["pci_bus_id"].get<std::string>()
                              : "";
  return bus.empty() ? "" : bus + (mps ? " mps" : " no-mps");
}

// Verdicts a GPU-state finding may replace: a candidate that passed (or only ran out of time, which
// a slowed GPU explains) is judged by it; any other failure is the candidate's own.
bool Replaceable(EvalStatus s) { return s == EvalStatus::kOk || s == EvalStatus::kTimed || s == EvalStatus::kTimeout; }

}  // namespace

std::vector<GpuReading> Cascade::GpuReferences(const nlohmann::json& ranks, bool mps) {
  std::vector<GpuReading> refs;
  if (slurm() || !ranks.is_array()) return refs;  // another node each time: nothing to compare with
  std::lock_guard<std::mutex> lock(gpu_state_mu_);
  for (const auto& r : ranks) {
    auto it = gpu_references_.find(ReferenceKey(r, mps));
    refs.push_back(it != gpu_references_.end() ? it->second : GpuReading{});
  }
  return refs;
}

void Cascade::RememberGpuReferences(const nlohmann::json& ranks, bool mps, const std::vector<GpuReading>& baseline) {
  if (slurm() || !ranks.is_array()) return;
  std::lock_guard<std::mutex> lock(gpu_state_mu_);
  for (size_t i = 0; i < ranks.size() && i < baseline.size(); ++i) {
    const std::string key = ReferenceKey(ranks[i], mps);
    if (!key.empty() && baseline[i].present) gpu_references_.emplace(key, baseline[i]);
  }
}

void Cascade::JudgeGpuEvidence(const std::string& stage, GpuSession* gpu, StageVerdict* v, EvalRecord* rec) {
  const bool first = gpu->baseline.empty();
  const std::vector<GpuReading> refs = first ? GpuReferences(v->ranks, gpu->mps()) : std::vector<GpuReading>{};
  GpuStateVerdict g = JudgeGpuState(stage, v->ranks, gpu->mps(), &gpu->baseline, refs);
  const std::string daemon = gpu->DaemonChanged();
  if (!daemon.empty()) {
    g.blame = GpuStateBlame::kCandidate;
    g.reason = daemon;
  }
  if (first) {
    // The GPUs that read differently before the candidate ran: twice in a row is a GPU to fence off.
    std::lock_guard<std::mutex> lock(gpu_state_mu_);
    const std::vector<int>& gpus = gpu->gpus();
    for (size_t r = 0; r < gpus.size(); ++r) {
      const bool suspect = std::count(g.suspect_ranks.begin(), g.suspect_ranks.end(), static_cast<int>(r)) > 0;
      int& strikes = gpu_strikes_[gpus[r]];
      strikes = suspect ? strikes + 1 : 0;
      if (suspect && strikes >= 2)
        (void)pool_->Quarantine(gpus[r], "read differently from its first reading before two candidates in a row ran: " +
                                             g.reason);
    }
  }
  if (first && g.blame == GpuStateBlame::kNone) RememberGpuReferences(v->ranks, gpu->mps(), gpu->baseline);
  if (g.blame == GpuStateBlame::kNone) return;
  if (g.blame == GpuStateBlame::kCandidate) {
    if (Replaceable(v->status) || v->status == EvalStatus::kRuntimeError) {
      v->status = EvalStatus::kRejected;
      v->reason = g.reason;
    } else {
      v->reason += "; also: " + g.reason;
    }
    return;
  }
  if (Replaceable(v->status)) {
    rec->infrastructure_failure = true;
    v->reason = g.reason;
  }
}

void Cascade::CloseGpuSession(GpuSession* gpu, EvalRecord* rec) {
  if (!gpu->is_open()) return;
  gpu->StopDaemon();
  if (gpu->probe_after) ProbeGpus(gpu->gpus(), rec);
  rec->gpu_session = gpu->ToJson();
  gpu->Close();
}

}  // namespace cuco
