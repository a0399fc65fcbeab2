// Session::Run: the search under Ctrl-C handling, every evaluation through the session's cascade,
// then best.<ext> and the summary (session.h).
#include <iostream>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "launch/slurm_launcher.h"
#include "search/budget.h"
#include "search/gain_check.h"
#include "search/progress.h"
#include "search/seed_disagreement.h"
#include "search/session_impl.h"
#include "search/stop_signals.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// What the summary says about going on: a spent budget is raised with its flag; a search stopped
// by a signal, by Slurm or for want of GPUs continues as it is; one that ended by itself (nothing
// new to propose, generation 0 failed) has nothing to continue, and --resume would stop again.
std::string SessionContinueHint(const std::string& command, const fs::path& run_dir, const SearchResult& r,
                                const RunConfig& cfg, bool stopped) {
  const std::string raise = RaiseBudgetFlag(SpentBudgetKey(r.stop_reason), cfg);
  if (!raise.empty())
    return fmt::format("  (the budget is spent; to search on, raise it: cuco {} --resume {} {})", command, run_dir.string(),
                       raise);
  if (stopped || r.compiled_only || r.aborted > 0)
    return fmt::format("  (continue with: cuco {} --resume {})", command, run_dir.string());
  return "";
}

nlohmann::json SessionSummaryJson(const fs::path& run_dir, const std::string& workload, const SearchResult& r,
                                  const std::string& best_path, const std::optional<GainCheck>& gain) {
  nlohmann::json j;
  j["run_dir"] = run_dir.string();
  j["workload"] = workload;
  j["stop_reason"] = r.stop_reason;
  j["resumed"] = r.resumed;
  j["generations"] = r.generations;
  j["candidates"] = r.candidates;
  j["not_evaluated"] = r.not_evaluated;
  j["reevaluated"] = r.reevaluated;
  j["lineage"] = r.lineage;
  if (!r.lineage_changes.empty()) j["lineage_changes"] = r.lineage_changes;
  j["aborted"] = r.aborted;
  j["interrupted"] = r.interrupted;
  j["by_status"] = r.by_status;
  j["dollars"] = r.dollars;
  j["reference_id"] = r.reference_id;
  j["reference_ms"] = r.reference_ms;
  j["compiled_only"] = r.compiled_only;
  if (r.best_id > 0) j["best"] = {{"id", r.best_id}, {"time_ms", r.best_ms}, {"speedup", r.best_speedup}, {"path", best_path}};
  if (gain) j["gain_check"] = gain->ToJson();
  return j;
}

// The candidates of the session (counts, statuses, what was left pending) and the best one.
std::string SessionSummaryText(const std::string& command, const fs::path& run_dir, const std::string& workload,
                               const RunConfig& cfg, const SearchResult& r, const std::string& best_path,
                               const std::optional<GainCheck>& gain, bool launcher_failed, bool stopped) {
  std::string summary = "cuco " + command + ": " + fmt::format("{}: stopped: {}\n", workload, r.stop_reason);
  if (!r.lineage_changes.empty()) {
    summary += fmt::format("  lineage {} began this session (--accept-changes), after:\n", r.lineage);
    for (const std::string& c : r.lineage_changes) summary += "    " + c + "\n";
  }
  summary += fmt::format("  {} candidates in {} generation(s)", r.candidates, r.generations);
  std::string statuses;
  for (const auto& [k, n] : r.by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", k, n);
  if (!statuses.empty()) summary += " (" + statuses + ")";
  if (r.not_evaluated > 0) summary += fmt::format("; {} near-duplicates not evaluated", r.not_evaluated);
  if (r.reevaluated > 0) summary += fmt::format("; {} left in flight by the killed session evaluated again", r.reevaluated);
  if (r.interrupted > 0)
    summary += fmt::format("; {} cut short by the interrupt: left pending (not judged), --resume evaluates them",
                           r.interrupted);
  if (r.aborted > 0)
    summary += fmt::format("; {} aborted by {}: left pending, --resume evaluates them", r.aborted,
                           launcher_failed ? "Slurm's failure" : "the second Ctrl-C");
  summary += fmt::format("; ${:.2f} spent\n", r.dollars);
  if (r.best_id > 0) {
    summary += fmt::format("  best: candidate {} at {:.4f} ms", r.best_id, r.best_ms);
    if (r.best_speedup > 0)
      summary += fmt::format(", {:.2f}x over the {} ({:.4f} ms, candidate {})", r.best_speedup,
                             r.reference_is_seed ? "seed" : "generation 0 file (the seed failed)", r.reference_ms,
                             r.reference_id);
    if (gain) summary += "\n  " + gain->Line(r.reference_is_seed ? "seed" : "generation 0 file");
    summary += fmt::format("\n  code: {}\n", best_path);
  } else if (r.compiled_only) {
    summary += "  no timings on this machine: nothing to rank\n";
  } else {
    summary += "  no candidate passed\n";
  }
  summary += fmt::format("  store: {}{}\n", (run_dir / "cuco.db").string(),
                         SessionContinueHint(command, run_dir, r, cfg, stopped));
  return summary;
}

// Compiled only (no GPU here): whether a candidate of generation 0 failed (like `cuco eval` without
// a GPU, whose generation 0 did not compile).
bool Generation0FailedToCompile(CandidateStore& store) {
  ListQuery q;
  q.max_generation = 0;
  q.summary_only = true;
  auto g0 = store.List(q);
  if (g0.ok())
    for (const auto& r : *g0)
      if (r.status != "skipped" && r.status != "ok" && r.status != "pending") return true;
  return false;
}

// After a generation 0 that did not pass: the note of its candidate that is the program as written
// and disagreed with its frozen copy (seed_disagreement.h), or "".
std::string Generation0SeedNote(CandidateStore& store, const WorkloadConfig& wl) {
  ListQuery q;
  q.max_generation = 0;
  auto g0 = store.List(q);
  if (!g0.ok()) return "";
  for (const auto& r : *g0) {
    const nlohmann::json m = nlohmann::json::parse(r.metrics_json, nullptr, false);
    const std::string run_dir = m.is_object() && m.contains("run_dir") && m["run_dir"].is_string() ? m["run_dir"].get<std::string>() : "";
    std::string note = SeedDisagreementNote(wl, r.code, EvalStatusFromName(r.status), run_dir);
    if (!note.empty()) return note;
  }
  return "";
}

}  // namespace

// The gain re-timed before it is claimed (gain_check.h), for a search that ended by itself with a
// best that is not the reference; recorded in the store (kMetaGainCheck) and the log. nullopt when
// there is nothing to check or it is turned off ([budget] gain_check_rounds = 0).
std::optional<GainCheck> Session::Impl::RetimeBestAgainstReference(const SearchResult& result,
                                                                   const std::string& code_extension,
                                                                   const std::atomic<bool>* stop) {
  if (cfg.gain_check_rounds <= 0 || result.best_id <= 0 || result.reference_id <= 0 ||
      result.best_id == result.reference_id)
    return std::nullopt;
  auto best = store->Get(result.best_id);
  auto reference = store->Get(result.reference_id);
  if (!best.ok() || !reference.ok()) return std::nullopt;
  const std::string reference_name = result.reference_is_seed ? "seed" : "generation 0 file";
  if (options.live_output)
    std::cerr << me << fmt::format("re-timing the best (candidate {}) against the {} in {} alternating rounds\n",
                                   result.best_id, reference_name, cfg.gain_check_rounds);
  auto evaluate = [&](const std::string& code, const std::string&, const fs::path& dir, double) {
    const fs::path file = dir / ("candidate" + code_extension);  // as a search's candidates are
    MakeDirs(dir);
    (void)WriteFileAtomic(file, code);
    return cascade->Evaluate(code, file.string(), dir);
  };
  GainCheck gain = CheckGain(evaluate, reference->code, best->code, run_dir / "gain-check", cfg.gain_check_rounds, stop);
  nlohmann::json stored = gain.ToJson();
  stored["best_id"] = result.best_id;
  stored["reference_id"] = result.reference_id;
  stored["line"] = gain.Line(reference_name);
  log->Line("gain check: " + stored.dump());
  if (Status put = store->PutMeta(kMetaGainCheck, stored.dump()); !put.ok())
    std::cerr << me << "could not record the gain check in the store: " << put.message() << "\n";
  return gain;
}

Result<SessionSummary> Session::Run() {
  Impl& s = *impl_;
  if (s.ran) return Status::Internal("Session::Run called twice");
  s.ran = true;
  StopSignals signals(s.options.command == "run" ? "cuco run: " : "cuco evolve: ");  // Ctrl-C: stop_signals.h
  SearchOptions so = s.so;
  so.interrupt = signals.stop();
  so.abort = signals.abort();
  ProgressPrinter printer(stderr);
  std::string last_logged;
  so.on_progress = [&](const SearchProgress& p) {
    signals.SetInFlight(p.in_flight);
    if (s.options.live_output) printer.Update(p);
    const std::string key = ProgressKey(p);
    if (key != last_logged) s.log->Line(FormatProgress(p));
    last_logged = key;
  };
  if (s.options.live_output)
    std::cerr << s.me << fmt::format("{} {} with the {} proposer, {} island(s), {} evaluation(s) at once; run dir {}\n",
                                     s.resuming ? "resuming" : "searching", s.wl.name, s.proposer->Name(), s.cfg.islands,
                                     so.evaluations, s.run_dir.string());

  // Slurm failing past its retries (sbatch refused, scheduler events, slurmctld gone) is no verdict
  // on the candidate: the search stops there, and the candidates in flight stay pending for --resume.
  std::mutex slurm_mu;
  std::string slurm_failure;
  Cascade& cascade = *s.cascade;
  Evolution evo(s.wl, s.cfg, s.store.get(), s.proposer.get(),
                [&](const std::string& code, const std::string& label, const fs::path& dir, double best_hi_ms) {
                  EvaluateOptions call;
                  call.retime_unless_above_ms = best_hi_ms;
                  EvalRecord r = cascade.Evaluate(code, label, dir, call);
                  // (after an abort, Ctrl-C's or ours, the jobs stopped say "slurm: stopped": no failure)
                  if (r.status == EvalStatus::kSkipped && r.reason.rfind("slurm: ", 0) == 0 && !signals.abort()->load()) {
                    std::lock_guard<std::mutex> l(slurm_mu);
                    if (slurm_failure.empty()) slurm_failure = r.reason;
                    signals.AbortNow();
                  }
                  return r;
                },
                so);
  auto result = evo.Run();
  // None should be left; if one is, it is cancelled (by id). Not StopSlurmJobs: that would stop the
  // gain check's evaluations below too (every Slurm run's gain check was "skipped").
  CancelSlurmJobsLeft();
  printer.Done();
  if (!result.ok()) {
    s.log->Line("error: " + result.status().message());
    return result.status();
  }

  SessionSummary out;
  if (!slurm_failure.empty())
    result->stop_reason = slurm_failure + "; the candidates in flight stay pending (fix Slurm, then --resume)";
  else if (signals.abort()->load()) result->stop_reason = "aborted by a second Ctrl-C (continue with --resume)";
  if (result->best_id > 0) {
    auto best = s.store->Get(result->best_id);
    if (best.ok()) {
      out.best_path = (s.run_dir / ("best" + so.code_extension)).string();
      if (Status w = WriteFileAtomic(out.best_path, best->code); !w.ok()) return Status::IOError(w.message());
    }
  }
  const bool ended_by_itself = slurm_failure.empty() && !signals.stop()->load() && !signals.abort()->load();
  const std::optional<GainCheck> gain = ended_by_itself ? s.RetimeBestAgainstReference(*result, so.code_extension, signals.stop())
                                                        : std::nullopt;
  out.json = SessionSummaryJson(s.run_dir, s.wl.name, *result, out.best_path, gain);
  out.text = SessionSummaryText(s.options.command, s.run_dir, s.wl.name, s.cfg, *result, out.best_path, gain,
                                !slurm_failure.empty(), signals.stop()->load() || !slurm_failure.empty());
  if (result->generation0_failed)
    if (const std::string note = Generation0SeedNote(*s.store, s.wl); !note.empty()) out.text += "  " + note + "\n";
  s.log->Line(out.text);
  if (!slurm_failure.empty()) out.end = SessionEnd::kLauncherFailed;
  else if (signals.abort()->load()) out.end = SessionEnd::kAborted;
  else if (signals.stop()->load()) out.end = SessionEnd::kStopped;
  else if (result->generation0_failed) out.end = SessionEnd::kCandidateFailed;
  else if (result->compiled_only && Generation0FailedToCompile(*s.store)) out.end = SessionEnd::kCandidateFailed;
  out.result = std::move(*result);
  out.workload = s.wl;
  out.toolchain = s.tc;
  return out;
}

}  // namespace cuco
