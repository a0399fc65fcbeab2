// cuco evolve <workload>: the slow path. An evolutionary search over candidates (islands,
// archive, novelty filter, a proposer), every candidate through the cascade and into the run's
// store; resumable (--resume). docs/search.md describes the run config and the loop.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <mutex>

#include <fmt/format.h>

#include "cli/bench_provenance.h"
#include "cli/commands.h"
#include "cli/run_dir_option.h"
#include "cli/stop_signals.h"
#include "cli/workload_options.h"
#include "evaluate/cascade.h"
#include "prompts/design_space_text.h"
#include "search/budget.h"
#include "search/evolution.h"
#include "search/progress.h"
#include "search/proposer_factory.h"
#include "cli/launcher_option.h"
#include "launch/slurm_launcher.h"
#include "search/run_config.h"
#include "store/candidate_store.h"
#include "toolchain/toolchain.h"
#include "util/clock.h"
#include "util/files.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

std::string Timestamp() { return FormatTime(NowMs(), "%Y%m%d-%H%M%S", TimeZone::kLocal); }

// What proposers are told about the machine and the installed communication API
// (src/prompts/design_space_text.h; the builtin proposer ignores both).
std::string Hardware(const Toolchain& tc) {
  if (!tc.gpus.empty()) return HardwareFactsText(tc);
  return "no GPU";
}

std::string CommApi(const Toolchain& tc) {
  if (tc.nccl.found) return InstalledCommApiText(tc);
  return "NCCL not found";
}

int Fail(const std::string& me, const Status& s) {
  std::cerr << me << s.message() << "\n";
  return ExitCodeFor(s);
}

// A stream that writes plain progress lines to logs/evolve.log.
class LogFile {
 public:
  explicit LogFile(const fs::path& path) : out_(path, std::ios::app) {}
  void Line(const std::string& s) {
    if (!out_) return;
    out_ << s << "\n";
    out_.flush();
  }

 private:
  std::ofstream out_;
};

// What the summary says about going on: a spent budget is raised with its flag; a search stopped
// by a signal, by Slurm or for want of GPUs continues as it is; one that ended by itself (nothing
// new to propose, generation 0 failed) has nothing to continue, and --resume would stop again.
std::string ContinueHint(const std::string& command, const fs::path& run_dir, const SearchResult& r,
                         const RunConfig& cfg, bool stopped) {
  const std::string raise = RaiseBudgetFlag(SpentBudgetKey(r.stop_reason), cfg);
  if (!raise.empty())
    return fmt::format("  (the budget is spent; to search on, raise it: cuco {} --resume {} {})", command, run_dir.string(),
                       raise);
  if (stopped || r.compiled_only || r.aborted > 0)
    return fmt::format("  (continue with: cuco {} --resume {})", command, run_dir.string());
  return "";
}

}  // namespace

int RunEvolve(const EvolveArgs& a) {
  const std::string me = "cuco " + a.command + ": ";  // every message's prefix
  const bool resuming = !a.resume.empty();
  if (resuming && !a.config.empty()) {
    std::cerr << me << "--resume continues a run with the config.toml in its folder; edit that file instead of "
                 "passing --config\n";
    return kExitUsage;
  }
  if (resuming && (a.world_size > 0 || !a.sizes.empty())) {
    std::cerr << me << "--resume keeps the run's world size and sizes ([workload] in its config.toml); "
                 "--world-size and --size start new runs\n";
    return kExitUsage;
  }
  if (a.accept_changes && !resuming) {
    std::cerr << me << "--accept-changes goes with --resume (a new run binds what it finds)\n";
    return kExitUsage;
  }
  if (resuming && !a.run_dir.empty() && fs::path(a.run_dir) != fs::path(a.resume)) {
    std::cerr << me << "give --resume D or --run-dir D, not both\n";
    return kExitUsage;
  }
  fs::path run_dir;
  std::string config_text, config_path;
  std::string workload_path = a.workload;

  if (resuming) {
    run_dir = a.resume;
    if (!fs::exists(run_dir / "cuco.db") || !fs::exists(run_dir / "config.toml")) {
      std::cerr << me << fmt::format("{}: not a run directory of `cuco evolve` (no cuco.db and config.toml)\n",
                               run_dir.string());
      return kExitUsage;
    }
    config_path = (run_dir / "config.toml").string();
  } else if (a.workload.empty()) {
    std::cerr << me << "name a workload folder, or --resume a run directory\n";
    return kExitUsage;
  } else if (!a.config.empty()) {
    config_path = a.config;
  }
  if (!config_path.empty()) {
    auto text = ReadFile(config_path);
    if (!text.ok()) return Fail(me, Status::InvalidArgument(text.status().message()));
    config_text = *text;
  }
  const std::string config_as_read = config_text;
  auto cfg = config_path.empty() ? ParseRunConfig("", "(defaults)") : ParseRunConfig(config_text, config_path);
  if (!cfg.ok()) return Fail(me, cfg.status());
  if (config_path.empty()) config_text = RunConfigToToml(*cfg);
  auto budget = ApplyBudgetFlags(a.budget, &*cfg);
  if (!budget.ok()) return Fail(me, budget.status());
  if (!budget->empty()) {
    auto recorded = RecordBudgetChange(config_text, config_path.empty() ? "(defaults)" : config_path, *budget, *cfg);
    if (!recorded.ok()) return Fail(me, recorded.status());
    config_text = *recorded;
  }

  std::unique_ptr<CandidateStore> store;
  if (resuming) {
    auto s = CandidateStore::Open((run_dir / "cuco.db").string());
    if (!s.ok()) return Fail(me, s.status());
    store = std::move(*s);
    auto stored = store->GetMeta(kMetaWorkload);
    if (!stored.ok()) return Fail(me, stored.status());
    if (!stored->has_value()) return Fail(me, Status::InvalidArgument((run_dir / "cuco.db").string() + ": holds no `cuco evolve` run"));
    if (!budget->empty()) {  // the flags replace the recorded budget, in config.toml and the store
      if (Status w = WriteFileAtomic(config_path, config_text); !w.ok()) return Fail(me, Status::IOError(w.message()));
      if (Status m = store->PutMeta(kMetaConfig, config_text); !m.ok()) return Fail(me, m);
      for (const std::string& line : budget->lines)
        std::cerr << me << line << " (recorded in " << config_path << ")\n";
    }
    if (workload_path.empty()) {
      workload_path = **stored;
    } else {
      std::error_code ec;
      if (!fs::equivalent(fs::path(workload_path), fs::path(**stored), ec)) {
        std::cerr << me << fmt::format("{} is a run of workload {}, not {}\n", run_dir.string(), **stored, workload_path);
        return kExitUsage;
      }
    }
  }

  auto wl = LoadWorkload(workload_path);
  if (!wl.ok()) return Fail(me, wl.status());
  if (!WorldSizeFlagListed(a.command, *wl, a.world_size)) return kExitUsage;
  // --world-size and --size land in [workload], and the run dir's config.toml records them;
  // OverrideBenchSizes parses and checks the settings (its errors name the --size setting).
  if (a.world_size > 0 || !a.sizes.empty()) {
    WorkloadConfig probe = *wl;
    if (Status s = OverrideBenchSizes(&probe, a.sizes); !s.ok()) return Fail(me, s);
    for (const std::string& setting : a.sizes) {
      const std::string name = setting.substr(0, setting.find('='));
      cfg->sizes[name] = probe.bench_sizes.at(name);
    }
    if (a.world_size > 0) cfg->world_size = a.world_size;
    config_text = RunConfigToToml(*cfg);
  }
  if (Status s = CheckRunConfigAgainst(*cfg, *wl); !s.ok()) return Fail(me, s);
  if (Status s = OverrideBenchSizes(&*wl, SizeSettings(*cfg)); !s.ok()) return Fail(me, s);
  if (cfg->world_size > 0) wl->world_size = cfg->world_size;  // what the cascade and the prompts see

  if (!resuming) {
    run_dir = a.run_dir.empty() ? fs::path("cuco-runs") / fmt::format("evolve-{}-{}", wl->name, Timestamp()) : fs::path(a.run_dir);
    if (fs::exists(run_dir / "cuco.db")) {
      std::cerr << me << fmt::format("{} already holds a run; continue it with --resume {} or choose another --run-dir\n",
                               run_dir.string(), run_dir.string());
      return kExitUsage;
    }
    if (Status s = PrepareRunDir(run_dir); !s.ok()) return Fail(me, s);
    if (Status s = MakeDirs(run_dir / "logs"); !s.ok()) return Fail(me, Status::IOError(s.message()));
    if (Status s = WriteFileAtomic(run_dir / "config.toml", config_text); !s.ok()) return Fail(me, Status::IOError(s.message()));
    auto s = CandidateStore::Open((run_dir / "cuco.db").string());
    if (!s.ok()) return Fail(me, s.status());
    store = std::move(*s);
    if (Status m = store->PutMeta(kMetaConfig, config_text); !m.ok()) return Fail(me, m);
    for (const std::string& line : budget->lifts) std::cerr << me << line << "\n";
  }
  MakeDirs(run_dir / "logs");
  LogFile log(run_dir / "logs" / "evolve.log");
  log.Line(fmt::format("=== {} session {} (workload {}, config {})", resuming ? "resumed" : "new", Timestamp(),
                       wl->dir.string(), config_path.empty() ? "defaults" : config_path));

  Toolchain tc = DetectToolchain();
  if (wl->language == "cuda" && tc.nvcc.empty()) {
    std::cerr << me << "nvcc was not found, so CUDA candidates cannot even be compiled. Run `cuco doctor`.\n";
    return kExitEnvironment;
  }
  // Where this session ran, for `cuco report` (the latest session's).
  const nlohmann::json provenance = {{"time", UtcNow()}, {"host", HostName()}, {"command", CommandLine()},
                                     {"git", GitInfo(wl->dir)}, {"toolchain", ToJson(tc)}};
  if (Status m = store->PutMeta(kMetaProvenance, provenance.dump()); !m.ok()) return Fail(me, m);
  CascadeOptions opts;
  opts.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : fs::path(a.cache_dir);
  opts.gpus = a.gpus;
  opts.max_parallel_compiles = cfg->compiles;
  opts.world_size = cfg->world_size;
  opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
  if (int rc = ApplyLauncher(a.command, a.launcher, cfg->launcher, cfg->slurm, run_dir, &opts); rc != 0) return rc;
  Cascade cascade(*wl, tc, opts);
  if (wl->language == "cuda" && (cascade.has_gpus() || opts.launcher == "slurm"))
    std::cerr << me << cascade.timing_plan().Line() << "\n";  // one line, before anything runs

  SearchOptions so;
  so.run_dir = run_dir;
  so.code_extension = fs::path(wl->seed_file).extension().string();
  so.hardware = Hardware(tc);
  so.comm_api = CommApi(tc);
  so.timings_available = !(wl->language == "cuda" && !cascade.has_gpus());
  const int gpus = a.gpus.empty() ? static_cast<int>(tc.gpus.size()) : static_cast<int>(a.gpus.size());
  const int gpu_groups = std::max(1, gpus / std::max(1, cascade.world_size()));  // disjoint rank sets
  if (cfg->evaluations > 0) {
    so.evaluations = cfg->evaluations;
  } else if (wl->language == "cuda") {
    // One evaluation per GPU group running, plus `compiles` more compiling beside them (the
    // cascade's GPU pool and compile limit keep each to its share). With one evaluation per
    // group, each GPU sat idle through its next candidate's compile: on 1x H100, moe at world
    // size 1 (12 s compile, 4 s run) made 3.7 evaluations a minute instead of ~14.
    so.evaluations = gpu_groups + (cascade.has_gpus() ? cfg->compiles : 0);
  } else {
    so.evaluations = 1;  // CPU timings would disturb each other
  }
  if (cfg->overlap_generations)  // the GPU groups' last runs may finish while the next generation compiles
    so.carry_over = std::min(so.evaluations, gpu_groups);
  if (!so.timings_available)
    std::cerr << me << "no GPU found on this machine: generation 0 is compiled only (scan and compile, L1), and "
                 "the search stops there.\n  On a GPU machine each candidate would run: verify: "
              << cascade.DescribeRun("verify") << "\n                                            bench:  "
              << cascade.DescribeRun("bench") << "\n";

  auto proposer = MakeProposer(SpecFromConfig(*cfg, &*wl, run_dir.string()));
  if (!proposer.ok()) return Fail(me, proposer.status());

  so.accept_changes = a.accept_changes;
  so.config_text = config_as_read;
  so.config_path = config_path;
  StopSignals signals(a.command == "run" ? "cuco run: " : "cuco evolve: ");  // Ctrl-C: stop_signals.h
  so.interrupt = signals.stop();
  so.abort = signals.abort();
  ProgressPrinter printer(stderr);
  std::string last_logged;
  so.on_progress = [&](const SearchProgress& p) {
    signals.SetInFlight(p.in_flight);
    if (!a.json) printer.Update(p);
    const std::string key = ProgressKey(p);
    if (key != last_logged) log.Line(FormatProgress(p));
    last_logged = key;
  };
  if (!a.json)
    std::cerr << me << fmt::format("{} {} with the {} proposer, {} island(s), {} evaluation(s) at once; run dir {}\n",
                             resuming ? "resuming" : "searching", wl->name, (*proposer)->Name(), cfg->islands,
                             so.evaluations, run_dir.string());

  // Slurm failing past its retries (sbatch refused, scheduler events, slurmctld gone) is no verdict
  // on the candidate: the search stops there, and the candidates in flight stay pending for --resume.
  std::mutex slurm_mu;
  std::string slurm_failure;
  Evolution evo(*wl, *cfg, store.get(), proposer->get(),
                [&](const std::string& code, const std::string& label, const fs::path& dir) {
                  EvalRecord r = cascade.Evaluate(code, label, dir);
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
  StopSlurmJobs();  // none should be left; if one is, it is cancelled (by id)
  printer.Done();
  if (!result.ok()) {
    log.Line("error: " + result.status().message());
    return Fail(me, result.status());
  }

  if (!slurm_failure.empty())
    result->stop_reason = slurm_failure + "; the candidates in flight stay pending (fix Slurm, then --resume)";
  else if (signals.abort()->load()) result->stop_reason = "aborted by a second Ctrl-C (continue with --resume)";
  nlohmann::json j;
  j["run_dir"] = run_dir.string();
  j["workload"] = wl->name;
  j["stop_reason"] = result->stop_reason;
  j["resumed"] = result->resumed;
  j["generations"] = result->generations;
  j["candidates"] = result->candidates;
  j["not_evaluated"] = result->not_evaluated;
  j["reevaluated"] = result->reevaluated;
  j["lineage"] = result->lineage;
  if (!result->lineage_changes.empty()) j["lineage_changes"] = result->lineage_changes;
  j["aborted"] = result->aborted;
  j["interrupted"] = result->interrupted;
  j["by_status"] = result->by_status;
  j["dollars"] = result->dollars;
  j["reference_id"] = result->reference_id;
  j["reference_ms"] = result->reference_ms;
  j["compiled_only"] = result->compiled_only;
  std::string best_path;
  if (result->best_id > 0) {
    auto best = store->Get(result->best_id);
    if (best.ok()) {
      best_path = (run_dir / ("best" + so.code_extension)).string();
      if (Status s = WriteFileAtomic(best_path, best->code); !s.ok()) return Fail(me, Status::IOError(s.message()));
    }
    j["best"] = {{"id", result->best_id}, {"time_ms", result->best_ms}, {"speedup", result->best_speedup}, {"path", best_path}};
  }
  std::string summary = me + fmt::format("{}: stopped: {}\n", wl->name, result->stop_reason);
  if (!result->lineage_changes.empty()) {
    summary += fmt::format("  lineage {} began this session (--accept-changes), after:\n", result->lineage);
    for (const std::string& c : result->lineage_changes) summary += "    " + c + "\n";
  }
  summary += fmt::format("  {} candidates in {} generation(s)", result->candidates, result->generations);
  std::string statuses;
  for (const auto& [k, n] : result->by_status) statuses += fmt::format("{}{} {}", statuses.empty() ? "" : ", ", k, n);
  if (!statuses.empty()) summary += " (" + statuses + ")";
  if (result->not_evaluated > 0) summary += fmt::format("; {} near-duplicates not evaluated", result->not_evaluated);
  if (result->reevaluated > 0) summary += fmt::format("; {} left in flight by the killed session evaluated again", result->reevaluated);
  if (result->interrupted > 0)
    summary += fmt::format("; {} cut short by the interrupt: left pending (not judged), --resume evaluates them",
                           result->interrupted);
  if (result->aborted > 0)
    summary += fmt::format("; {} aborted by {}: left pending, --resume evaluates them", result->aborted,
                           slurm_failure.empty() ? "the second Ctrl-C" : "Slurm's failure");
  summary += fmt::format("; ${:.2f} spent\n", result->dollars);
  if (result->best_id > 0) {
    summary += fmt::format("  best: candidate {} at {:.4f} ms", result->best_id, result->best_ms);
    if (result->best_speedup > 0)
      summary += fmt::format(", {:.2f}x over the {} ({:.4f} ms, candidate {})", result->best_speedup,
                             result->reference_is_seed ? "seed" : "generation 0 file (the seed failed)", result->reference_ms,
                             result->reference_id);
    summary += fmt::format("\n  code: {}\n", best_path);
  } else if (result->compiled_only) {
    summary += "  no timings on this machine: nothing to rank\n";
  } else {
    summary += "  no candidate passed\n";
  }
  summary += fmt::format("  store: {}{}\n", (run_dir / "cuco.db").string(),
                         ContinueHint(a.command, run_dir, *result, *cfg, signals.stop()->load() || !slurm_failure.empty()));
  log.Line(summary);
  if (a.json) std::cout << j.dump(2) << "\n";
  else std::cout << summary;

  if (!slurm_failure.empty()) return kExitEnvironment;
  if (signals.abort()->load()) return kExitAborted;
  if (signals.stop()->load()) return kExitStopped;
  if (result->generation0_failed) return kExitCandidateFailed;
  if (result->compiled_only) {  // like `cuco eval` without a GPU: 1 when generation 0 failed to compile
    ListQuery q;
    q.max_generation = 0;
    q.summary_only = true;
    auto g0 = store->List(q);
    if (g0.ok())
      for (const auto& r : *g0)
        if (r.status != "skipped" && r.status != "ok" && r.status != "pending") return kExitCandidateFailed;
  }
  return kExitOk;
}

void AddEvolveCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("evolve", "Search for faster candidates: islands of candidates mutated by a proposer, "
                                           "each evaluated by the cascade and stored; resumable (docs/search.md)");
  auto a = std::make_shared<EvolveArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml); optional with --resume");
  cmd->add_option("--config", a->config, "Run config (TOML, docs/search.md); default: every key's default");
  cmd->add_option("--run-dir", a->run_dir, "Where config.toml, cuco.db, logs/ and candidates/ go "
                                           "(default: cuco-runs/evolve-<workload>-<time>)");
  cmd->add_option("--resume", a->resume, "Continue the run in this directory (after a kill, a Ctrl-C or a budget)");
  cmd->add_flag("--accept-changes", a->accept_changes,
                "With --resume: go on although the workload's frozen files or the run config changed since the run "
                "began, as a new lineage (recorded in the store and the report); without it such a resume is refused");
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  AddWorldSizeOption(cmd, &a->world_size, "Ranks per candidate (default: [workload] world_size of the config, else the "
                                          "workload's world_size); recorded in the run's config.toml");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; recorded in the run's config.toml)");
  AddBudgetOptions(cmd, &a->budget);
  cmd->add_flag("--json", a->json, "Print the summary as JSON (and no progress line)");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->callback([a, exit_code] { *exit_code = RunEvolve(*a); });
}

}  // namespace cuco
