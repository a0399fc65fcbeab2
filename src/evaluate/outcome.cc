#include "evaluate/outcome.h"

#include <cmath>

#include <fmt/format.h>

namespace cuco {

const char* EvalStatusName(EvalStatus s) {
  switch (s) {
    case EvalStatus::kOk: return "ok";
    case EvalStatus::kRejected: return "rejected";
    case EvalStatus::kCompileError: return "compile_error";
    case EvalStatus::kRuntimeError: return "runtime_error";
    case EvalStatus::kTimeout: return "timeout";
    case EvalStatus::kWrongResult: return "wrong_result";
    case EvalStatus::kCrashed: return "crashed";
    case EvalStatus::kSkipped: return "skipped";
    case EvalStatus::kTimed: return "timed";
    case EvalStatus::kPending: return "pending";
  }
  return "pending";
}

EvalStatus EvalStatusFromName(const std::string& name) {
  for (EvalStatus s : {EvalStatus::kOk, EvalStatus::kRejected, EvalStatus::kCompileError, EvalStatus::kRuntimeError,
                       EvalStatus::kTimeout, EvalStatus::kWrongResult, EvalStatus::kCrashed, EvalStatus::kSkipped,
                       EvalStatus::kTimed})
    if (name == EvalStatusName(s)) return s;
  return EvalStatus::kPending;
}

std::string EvalStatusText(EvalStatus s) {
  return s == EvalStatus::kTimed ? "unverified (bound part)" : EvalStatusName(s);
}

StageRecord* EvalRecord::Stage(const std::string& name) {
  for (auto& s : stages)
    if (s.name == name) return &s;
  StageRecord s;
  s.name = name;
  stages.push_back(std::move(s));
  return &stages.back();
}

namespace {

nlohmann::json Finite(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json ErrorsJson(const ErrorFigures& e) {
  nlohmann::json j = {{"rel_l2", Finite(e.rel_l2)},         {"max_abs", Finite(e.max_abs)},
                      {"nonfinite", e.nonfinite},            {"poison_left", e.poison_left},
                      {"elements_checked", e.elements},      {"checks", e.checks}};
  if (e.left_alone > 0) j["left_alone"] = e.left_alone;
  if (e.has_agreement) j["agreement_max_abs"] = Finite(e.agreement_max_abs);
  return j;
}

}  // namespace

nlohmann::json EvalRecord::ToJson() const {
  nlohmann::json j;
  j["workload"] = workload;
  j["candidate"] = candidate_path;
  j["code_hash"] = code_hash;
  j["mode"] = mode;
  j["trusted"] = trusted;
  j["sandbox"] = sandbox;
  j["status"] = EvalStatusName(status);
  j["status_text"] = EvalStatusText(status);
  j["verified"] = status == EvalStatus::kOk;
  j["timing_only"] = timing_only;
  if (timing_only) j["part"] = part;
  j["reason"] = reason;
  if (interrupted) j["interrupted"] = true;
  j["world_size"] = world_size;
  j["gpus"] = gpus;
  j["device"] = device;
  j["run_dir"] = run_dir;
  j["timing_method"] = timing_method;
  j["gpu_session"] = gpu_session;
  j["infrastructure_failure"] = infrastructure_failure;
  j["sizes"] = {{"verify", verify_sizes}, {"bench", bench_sizes}};
  nlohmann::json st = nlohmann::json::array();
  for (const auto& s : stages)
    st.push_back({{"stage", s.name},
                  {"status", EvalStatusName(s.status)},
                  {"seconds", s.seconds},
                  {"detail", s.detail},
                  {"log", s.log_path}});
  j["stages"] = st;
  j["verify"] = ErrorsJson(verify_errors);
  j["bench"] = ErrorsJson(bench_errors);
  if (timing.median_ms >= 0)
    j["timing"] = {{"median_ms", timing.median_ms},           {"p10_ms", timing.p10_ms},
                   {"p90_ms", timing.p90_ms},                 {"tail_median_ms", timing.tail_median_ms},
                   {"iters", timing.iters},                   {"rank_median_ms", timing.rank_median_ms},
                   {"spread", timing.Spread()},               {"noisy", timing.Noisy()},
                   {"retimed_from_iters", timing.retimed_from},  {"method", timing.method},
                   {"at_resolution_floor", timing.AtResolutionFloor()}, {"floor_share", timing.floor_share}};
  if (timing.median_ms >= 0 && timing.median_lo_ms > 0) {
    j["timing"]["median_interval_ms"] = {timing.median_lo_ms, timing.median_hi_ms};
    j["timing"]["precision"] = timing.Precision();
    j["timing"]["imprecise"] = timing.Imprecise();
  }
  j["rank_metrics"] = rank_metrics;
  return j;
}

std::string EvalRecord::Summary() const {
  std::string out = fmt::format("{}: {}{}{}\n", workload, EvalStatusText(status),
                                timing_only ? fmt::format(" ({} alone: timed, outputs not checked)", part == "comm" ? "communication" : "compute")
                                            : "",
                                trusted ? "" : " (UNTRUSTED: program mode)");
  if (sandbox.rfind("none", 0) == 0) out += "  UNSANDBOXED: the candidate ran with cuco's own rights (--unsafe-no-sandbox)\n";
  if (!reason.empty()) out += fmt::format("  reason: {}\n", reason);
  for (const auto& s : stages)
    out += fmt::format("  {:<8} {:<14} {:7.2f} s  {}\n", s.name, EvalStatusName(s.status), s.seconds, s.detail);
  if (timing.median_ms >= 0)
    out += fmt::format("  time: {:.4f} ms median (max over {} ranks; p10 {:.4f}, p90 {:.4f}; {} iterations)\n",
                       timing.median_ms, timing.rank_median_ms.size(), timing.p10_ms, timing.p90_ms, timing.iters);
  if (timing.median_ms >= 0 && timing.median_lo_ms > 0)
    out += fmt::format("  median known to +-{:.1f}% (95% interval {:.4f}-{:.4f} ms)\n", 100 * timing.Precision(),
                       timing.median_lo_ms, timing.median_hi_ms);
  if (timing.median_ms >= 0 && timing.retimed_from > 0)
    out += fmt::format("  timed again: the first {} iterations spread widely (p90/p10 over {:.2f}) or left the median "
                       "imprecise (over +-{:.0f}%); these figures are over {}\n",
                       timing.retimed_from, kNoisySpread, 100 * kMedianPrecision, timing.iters);
  if (timing.median_ms >= 0 && timing.Imprecise())
    out += fmt::format("  IMPRECISE timing: the median is known only to +-{:.1f}%{}: a gain smaller than that is not "
                       "shown by this evaluation\n",
                       100 * timing.Precision(), timing.retimed_from > 0 ? " even over the longer run" : "");
  if (timing.AtResolutionFloor())
    out += fmt::format("  BELOW RESOLUTION: the median is the timer's floor ({} ms; {:.0f}% of the iterations): the "
                       "iteration is shorter than the supervisor's own overhead varies, so this says only that it "
                       "is too short to time\n",
                       kTimerResolutionMs, 100 * timing.floor_share);
  if (timing.median_ms >= 0 && timing.Noisy())
    out += fmt::format("  NOISY timing: p90/p10 = {:.2f} (over {:.2f}): the iterations spread widely{}; rerun, or raise "
                       "[timing] iters, before trusting this time\n",
                       timing.Spread(), kNoisySpread, timing.retimed_from > 0 ? " even over the longer run" : "");
  if (!timing_method.empty()) {
    const std::string why = gpu_session.is_object() && gpu_session.contains("why") && gpu_session["why"].is_string()
                                ? gpu_session["why"].get<std::string>()
                                : "";
    out += timing_method.rfind("time-sliced", 0) == 0 ? fmt::format("  TIMING {}{}\n", timing_method, why.empty() ? "" : " (" + why + ")")
                                                       : fmt::format("  timing method: {}\n", timing_method);
  }
  if (!run_dir.empty()) out += fmt::format("  logs: {}\n", run_dir);
  return out;
}

std::string CollectLogs(const EvalRecord& r) {
  std::string logs;
  for (const auto& s : r.stages)
    if (!s.log_tail.empty()) logs += "=== " + s.name + " (" + s.log_path + ") ===\n" + s.log_tail + "\n";
  return logs;
}

}  // namespace cuco
