#include "evaluate/gpu_state_check.h"

#include <algorithm>

#include <fmt/format.h>

namespace cuco {
namespace {

double NumberOr(const nlohmann::json& j, const char* key, double fallback) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : fallback;
}

int IntOr(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number_integer() ? j[key].get<int>() : -1;
}

// "1.84x slower (0.150 -> 0.276 ms)", for a canary past its tolerance; "" otherwise.
std::string SlowerCanary(const char* what, double base_ms, double later_ms, double spread, double clock_ratio,
                         int reads) {
  if (base_ms <= 0 || later_ms <= 0) return "";
  const double ratio = later_ms / base_ms * clock_ratio;
  if (ratio <= 1 + CanaryTolerance(spread)) return "";
  return fmt::format("canary {} {:.2f}x slower ({:.3f} -> {:.3f} ms{}{})", what, ratio, base_ms, later_ms,
                     clock_ratio != 1 ? ", counted in SM cycles" : "",
                     reads > 1 ? fmt::format(", still after {} readings", reads) : "");
}

}  // namespace

GpuReading ParseGpuReading(const nlohmann::json& j) {
  GpuReading r;
  if (!j.is_object() || (j.contains("error") && j["error"].is_string())) return r;
  r.present = true;
  r.kernel_ms = NumberOr(j, "canary_kernel_ms", -1);
  r.kernel_spread = NumberOr(j, "canary_kernel_spread", 0);
  r.copy_ms = NumberOr(j, "canary_copy_ms", -1);
  r.copy_spread = NumberOr(j, "canary_copy_spread", 0);
  r.sm_count = IntOr(j, "sm_count");
  r.mem_total = j.contains("mem_total_bytes") && j["mem_total_bytes"].is_number_integer() ? j["mem_total_bytes"].get<long long>() : -1;
  r.sm_clock_mhz = IntOr(j, "sm_clock_mhz");
  r.app_sm_clock_mhz = IntOr(j, "app_sm_clock_mhz");
  r.app_mem_clock_mhz = IntOr(j, "app_mem_clock_mhz");
  r.compute_mode = IntOr(j, "compute_mode");
  r.persistence_mode = IntOr(j, "persistence_mode");
  // The processes NVML lists, however named: a pid NVML gives may belong to another pid namespace
  // (a container), where no name can be looked up, so names decide nothing. Readings are only ever
  // compared within one timing method (MPS: the server; without: the supervisor itself).
  r.reads = std::max(1, IntOr(j, "reads"));
  r.processes = j.contains("processes") && j["processes"].is_array() ? static_cast<int>(j["processes"].size()) : -1;
  return r;
}

double CanaryTolerance(double baseline_spread) { return std::max(0.25, 4 * std::max(0.0, baseline_spread)); }

std::string GpuStateChange::Text() const {
  std::vector<std::string> all = candidate;
  all.insert(all.end(), canary.begin(), canary.end());
  all.insert(all.end(), machine.begin(), machine.end());
  return fmt::format("{}", fmt::join(all, "; "));
}

GpuStateChange CompareGpuReadings(const GpuReading& base, const GpuReading& later) {
  GpuStateChange c;
  if (!base.present || !later.present) return c;
  if (base.sm_count > 0 && later.sm_count > 0 && base.sm_count != later.sm_count)
    c.candidate.push_back(fmt::format("SMs visible to a new context {} -> {} (an MPS active-thread limit)", base.sm_count,
                                      later.sm_count));
  if (base.mem_total > 0 && later.mem_total > 0 && base.mem_total != later.mem_total)
    c.candidate.push_back(fmt::format("device memory a new context gets {} -> {} MiB (an MPS memory limit)",
                                      base.mem_total >> 20, later.mem_total >> 20));
  const double clock_ratio =
      base.sm_clock_mhz > 0 && later.sm_clock_mhz > 0 ? static_cast<double>(later.sm_clock_mhz) / base.sm_clock_mhz : 1.0;
  for (const std::string& s :
       {SlowerCanary("kernel", base.kernel_ms, later.kernel_ms, base.kernel_spread, clock_ratio, later.reads),
        SlowerCanary("copy", base.copy_ms, later.copy_ms, base.copy_spread, 1.0, later.reads)})
    if (!s.empty()) c.canary.push_back(s);
  if (base.processes >= 0 && later.processes > base.processes)
    c.machine.push_back(fmt::format("processes on the GPU {} -> {} (another process is using it)", base.processes,
                                    later.processes));
  auto differs = [&](const char* what, int a, int b) {
    if (a >= 0 && b >= 0 && a != b) c.machine.push_back(fmt::format("{} {} -> {}", what, a, b));
  };
  differs("application SM clock (MHz)", base.app_sm_clock_mhz, later.app_sm_clock_mhz);
  differs("application memory clock (MHz)", base.app_mem_clock_mhz, later.app_mem_clock_mhz);
  differs("compute mode", base.compute_mode, later.compute_mode);
  differs("persistence mode", base.persistence_mode, later.persistence_mode);
  return c;
}

GpuStateVerdict JudgeGpuState(const std::string& stage, const nlohmann::json& ranks, bool expect_mps,
                              std::vector<GpuReading>* baseline, const std::vector<GpuReading>& reference) {
  GpuStateVerdict v;
  if (!ranks.is_array()) return v;
  const bool first = baseline->empty();
  if (first) baseline->resize(ranks.size());
  std::string candidate, infra;
  auto blame = [&](const GpuStateChange& ch, const std::string& where, bool before_candidate) {
    if (!ch.changed()) return;
    const std::string text = where + ": " + ch.Text();
    // A limit a candidate can set explains a slower canary; other processes or clocks explain it
    // better than the candidate does; before the candidate ran, nothing is its doing.
    const bool its = !before_candidate && (!ch.candidate.empty() || ch.machine.empty());
    std::string& into = its ? candidate : infra;
    if (into.empty()) into = text;
  };
  for (size_t i = 0; i < ranks.size(); ++i) {
    const nlohmann::json& m = ranks[i];
    if (!m.is_object()) continue;
    if (m.contains("mps") && m["mps"].is_boolean() && m["mps"].get<bool>() != expect_mps && infra.empty())
      infra = fmt::format("rank {}'s supervisor {} an MPS daemon, but cuco {} one for this evaluation", i,
                          m["mps"].get<bool>() ? "saw" : "did not see", expect_mps ? "started" : "did not start");
    if (!m.contains("gpu_state") || !m["gpu_state"].is_object()) continue;
    const nlohmann::json& gs = m["gpu_state"];
    const GpuReading before = ParseGpuReading(gs.value("before", nlohmann::json()));
    const GpuReading after = ParseGpuReading(gs.value("after", nlohmann::json()));
    if (i >= baseline->size()) baseline->resize(i + 1);
    GpuReading& base = (*baseline)[i];
    if (first) {
      base = before;
      if (i < reference.size()) {
        const GpuStateChange ch = CompareGpuReadings(reference[i], before);
        if (ch.changed()) v.suspect_ranks.push_back(static_cast<int>(i));
        blame(ch, fmt::format("rank {}'s GPU before the candidate ran, against its first reading in this run", i), true);
      }
    } else {
      blame(CompareGpuReadings(base, before),
            fmt::format("rank {}'s GPU at the start of the {} stage, after the candidate's earlier stage", i, stage),
            false);
    }
    blame(CompareGpuReadings(base, after), fmt::format("rank {}'s GPU after the candidate's {} run", i, stage), false);
  }
  if (!candidate.empty()) {
    v.blame = GpuStateBlame::kCandidate;
    v.reason = "the candidate left the GPU changed for whoever comes next (" + candidate + ")";
  } else if (!infra.empty()) {
    v.blame = GpuStateBlame::kInfrastructure;
    v.reason = "the GPU changed through no doing of the candidate (" + infra + ")";
  }
  return v;
}

}  // namespace cuco
