// Session::Open: a run settled once, step by step (session.h). Run and the summary:
// session_run.cc.
#include "search/session.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

#include "evaluate/launcher_choice.h"
#include "launch/provenance.h"
#include "prompts/design_space_text.h"
#include "search/proposer_factory.h"
#include "search/session_impl.h"
#include "store/run_dir.h"
#include "util/clock.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// The flags that cannot go together, before anything is read.
Status CheckSessionFlags(const SessionOptions& o) {
  const bool resuming = !o.resume.empty();
  if (resuming && !o.config.empty())
    return Status::InvalidArgument("--resume continues a run with the config.toml in its folder; edit that file "
                                   "instead of passing --config");
  if (resuming && (o.world_size > 0 || !o.sizes.empty()))
    return Status::InvalidArgument("--resume keeps the run's world size and sizes ([workload] in its config.toml); "
                                   "--world-size and --size start new runs");
  if (o.accept_changes && !resuming)
    return Status::InvalidArgument("--accept-changes goes with --resume (a new run binds what it finds)");
  if (resuming && !o.run_dir.empty() && fs::path(o.run_dir) != fs::path(o.resume))
    return Status::InvalidArgument("give --resume D or --run-dir D, not both");
  if (resuming && (!fs::exists(fs::path(o.resume) / "cuco.db") || !fs::exists(fs::path(o.resume) / "config.toml")))
    return Status::InvalidArgument(
        fmt::format("{}: not a run directory of `cuco evolve` (no cuco.db and config.toml)", o.resume));
  if (!resuming && o.workload.empty()) return Status::InvalidArgument("name a workload folder, or --resume a run directory");
  return Status::Ok();
}

// What proposers are told about the machine and the installed communication API
// (src/prompts/design_space_text.h; the builtin proposer ignores both).
std::string HardwareForProposers(const Toolchain& tc) { return tc.gpus.empty() ? "no GPU" : HardwareFactsText(tc); }
std::string CommApiForProposers(const Toolchain& tc) { return tc.nccl.found ? InstalledCommApiText(tc) : "NCCL not found"; }

}  // namespace

std::string SessionTimestamp() { return FormatTime(NowMs(), "%Y%m%d-%H%M%S", TimeZone::kLocal); }

Session::Impl::Impl(const SessionOptions& o)
    : options(o), me("cuco " + o.command + ": "), resuming(!o.resume.empty()), workload_path(o.workload) {}

// The run config: --config, the run's config.toml on resume, else the defaults; the budget flags
// applied (and, for a config read from a file, written into its text).
Status Session::Impl::ReadConfig() {
  if (resuming) {
    run_dir = options.resume;
    config_path = (run_dir / "config.toml").string();
  } else {
    config_path = options.config;
  }
  if (!config_path.empty()) {
    auto text = ReadFile(config_path);
    if (!text.ok()) return Status::InvalidArgument(text.status().message());
    config_text = *text;
  }
  config_as_read = config_text;
  auto parsed = config_path.empty() ? ParseRunConfig("", "(defaults)") : ParseRunConfig(config_text, config_path);
  if (!parsed.ok()) return parsed.status();
  cfg = *parsed;
  if (config_path.empty()) config_text = RunConfigToToml(cfg);
  auto change = ApplyBudgetFlags(options.budget, &cfg);
  if (!change.ok()) return change.status();
  budget = *change;
  if (!budget.empty()) {
    auto recorded = RecordBudgetChange(config_text, config_path.empty() ? "(defaults)" : config_path, budget, cfg);
    if (!recorded.ok()) return recorded.status();
    config_text = *recorded;
  }
  return Status::Ok();
}

// A resumed run's store: it must hold a run, of the workload named (when one is); the budget flags
// replace the recorded budget.
Status Session::Impl::OpenResumedStore() {
  auto opened = CandidateStore::Open((run_dir / "cuco.db").string());
  if (!opened.ok()) return opened.status();
  store = std::move(*opened);
  auto stored = store->GetMeta(kMetaWorkload);
  if (!stored.ok()) return stored.status();
  if (!stored->has_value()) return Status::InvalidArgument((run_dir / "cuco.db").string() + ": holds no `cuco evolve` run");
  if (!budget.empty()) {  // the flags replace the recorded budget, in config.toml and the store
    if (Status w = WriteFileAtomic(config_path, config_text); !w.ok()) return Status::IOError(w.message());
    if (Status m = store->PutMeta(kMetaConfig, config_text); !m.ok()) return m;
    for (const std::string& line : budget.lines) std::cerr << me << line << " (recorded in " << config_path << ")\n";
  }
  if (workload_path.empty()) {
    workload_path = **stored;
    return Status::Ok();
  }
  std::error_code ec;
  if (!fs::equivalent(fs::path(workload_path), fs::path(**stored), ec))
    return Status::InvalidArgument(fmt::format("{} is a run of workload {}, not {}", run_dir.string(), **stored, workload_path));
  return Status::Ok();
}

// The workload as the run sees it: --world-size and --size land in [workload] of the run config
// (config.toml records them), checked against the workload, then applied to it.
Status Session::Impl::SettleWorkload() {
  if (options.workload_config) {
    wl = *options.workload_config;
  } else {
    auto loaded = LoadWorkload(workload_path);
    if (!loaded.ok()) return loaded.status();
    wl = *loaded;
  }
  if (Status s = CheckWorldSizeListed(wl, options.world_size); !s.ok()) return s;
  if (options.world_size > 0 || !options.sizes.empty()) {
    WorkloadConfig probe = wl;  // OverrideBenchSizes parses and checks the settings (its errors name --size)
    if (Status s = OverrideBenchSizes(&probe, options.sizes); !s.ok()) return s;
    for (const std::string& setting : options.sizes) {
      const std::string name = setting.substr(0, setting.find('='));
      cfg.sizes[name] = probe.bench_sizes.at(name);
    }
    if (options.world_size > 0) cfg.world_size = options.world_size;
    config_text = RunConfigToToml(cfg);
  }
  if (Status s = CheckRunConfigAgainst(cfg, wl); !s.ok()) return s;
  if (Status s = OverrideBenchSizes(&wl, SizeSettings(cfg)); !s.ok()) return s;
  if (cfg.world_size > 0) wl.world_size = cfg.world_size;  // what the cascade and the prompts see
  return Status::Ok();
}

// A new run's folder, its config.toml and its store.
Status Session::Impl::CreateRun() {
  run_dir = options.run_dir.empty() ? fs::path("cuco-runs") / fmt::format("evolve-{}-{}", wl.name, SessionTimestamp())
                                    : fs::path(options.run_dir);
  if (fs::exists(run_dir / "cuco.db"))
    return Status::InvalidArgument(fmt::format(
        "{} already holds a run; continue it with --resume {} or choose another --run-dir", run_dir.string(), run_dir.string()));
  if (Status s = PrepareRunDir(run_dir); !s.ok()) return s;
  if (Status s = MakeDirs(run_dir / "logs"); !s.ok()) return Status::IOError(s.message());
  if (Status s = WriteFileAtomic(run_dir / "config.toml", config_text); !s.ok()) return Status::IOError(s.message());
  auto opened = CandidateStore::Open((run_dir / "cuco.db").string());
  if (!opened.ok()) return opened.status();
  store = std::move(*opened);
  if (Status m = store->PutMeta(kMetaConfig, config_text); !m.ok()) return m;
  for (const std::string& line : budget.lifts) std::cerr << me << line << "\n";
  return Status::Ok();
}

// The toolchain, this session's provenance, the launcher and the cascade that judges candidates.
Status Session::Impl::MakeEvaluator() {
  tc = options.toolchain ? *options.toolchain : DetectToolchain();
  if (wl.language == "cuda" && tc.nvcc.empty())
    return Status::Unavailable("nvcc was not found, so CUDA candidates cannot even be compiled. Run `cuco doctor`.");
  // Where this session ran, for `cuco report` (the latest session's).
  const nlohmann::json provenance = {{"time", UtcNow()}, {"host", HostName()}, {"command", CommandLine()},
                                     {"git", GitInfo(wl.dir)}, {"toolchain", ToJson(tc)}};
  if (Status m = store->PutMeta(kMetaProvenance, provenance.dump()); !m.ok()) return m;
  CascadeOptions opts;
  opts.cache_dir = options.cache_dir.empty() ? DefaultCacheDir() : fs::path(options.cache_dir);
  opts.gpus = options.gpus;
  opts.max_parallel_compiles = cfg.compiles;
  opts.world_size = cfg.world_size;
  opts.unsafe_no_sandbox = options.unsafe_no_sandbox;
  if (Status s = ChooseLauncher(options.launcher, cfg.launcher, cfg.slurm, run_dir, &opts); !s.ok()) return s;
  slurm = opts.launcher == "slurm";
  cascade = std::make_unique<Cascade>(wl, tc, opts);
  if (wl.language == "cuda" && (cascade->has_gpus() || slurm))
    std::cerr << me << cascade->timing_plan().Line() << "\n";  // one line, before anything runs
  return Status::Ok();
}

// How many evaluations run at once, and what the search is told about this machine.
void Session::Impl::SettleConcurrency() {
  so.run_dir = run_dir;
  so.code_extension = fs::path(wl.seed_file).extension().string();
  so.hardware = HardwareForProposers(tc);
  so.comm_api = CommApiForProposers(tc);
  so.timings_available = !(wl.language == "cuda" && !cascade->has_gpus());
  const int gpus = options.gpus.empty() ? static_cast<int>(tc.gpus.size()) : static_cast<int>(options.gpus.size());
  const int gpu_groups = std::max(1, gpus / std::max(1, cascade->world_size()));  // disjoint rank sets
  if (cfg.evaluations > 0) {
    so.evaluations = cfg.evaluations;
  } else if (wl.language == "cuda") {
    // One evaluation per GPU group running, plus `compiles` more compiling beside them (the
    // cascade's GPU pool and compile limit keep each to its share). With one evaluation per
    // group, each GPU sat idle through its next candidate's compile: on 1x H100, moe at world
    // size 1 (12 s compile, 4 s run) made 3.7 evaluations a minute instead of ~14.
    so.evaluations = gpu_groups + (cascade->has_gpus() ? cfg.compiles : 0);
  } else {
    so.evaluations = 1;  // CPU timings would disturb each other
  }
  if (cfg.overlap_generations)  // the GPU groups' last runs may finish while the next generation compiles
    so.carry_over = std::min(so.evaluations, gpu_groups);
  if (!so.timings_available)
    std::cerr << me << "no GPU found on this machine: generation 0 is compiled only (scan and compile, L1), and "
                 "the search stops there.\n  On a GPU machine each candidate would run: verify: "
              << cascade->DescribeRun("verify") << "\n                                            bench:  "
              << cascade->DescribeRun("bench") << "\n";
  so.accept_changes = options.accept_changes;
  so.config_text = config_as_read;
  so.config_path = config_path;
}

Result<std::unique_ptr<Session>> Session::Open(const SessionOptions& options) {
  CUCO_RETURN_IF_ERROR(CheckSessionFlags(options));
  auto impl = std::make_unique<Impl>(options);
  CUCO_RETURN_IF_ERROR(impl->ReadConfig());
  if (impl->resuming) CUCO_RETURN_IF_ERROR(impl->OpenResumedStore());
  CUCO_RETURN_IF_ERROR(impl->SettleWorkload());
  if (!impl->resuming) CUCO_RETURN_IF_ERROR(impl->CreateRun());
  MakeDirs(impl->run_dir / "logs");
  impl->log = std::make_unique<SessionLog>(impl->run_dir / "logs" / "evolve.log");
  impl->log->Line(fmt::format("=== {} session {} (workload {}, config {})", impl->resuming ? "resumed" : "new",
                              SessionTimestamp(), impl->wl.dir.string(),
                              impl->config_path.empty() ? "defaults" : impl->config_path));
  CUCO_RETURN_IF_ERROR(impl->MakeEvaluator());
  impl->SettleConcurrency();
  auto proposer = MakeProposer(SpecFromConfig(impl->cfg, &impl->wl, impl->run_dir.string()));
  if (!proposer.ok()) return proposer.status();
  impl->proposer = std::move(*proposer);
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;
const std::filesystem::path& Session::run_dir() const { return impl_->run_dir; }
const WorkloadConfig& Session::workload() const { return impl_->wl; }

}  // namespace cuco
