// cuco eval <workload> [candidate...]: candidates through the cascade, every record stored in the
// run's SQLite store (search/eval_candidates.h) and printed.
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "store/run_dir.h"
#include "cli/workload_options.h"
#include "evaluate/cascade.h"
#include "search/eval_candidates.h"
#include "store/candidate_store.h"
#include "toolchain/toolchain.h"
#include "util/files.h"
#include "cli/launcher_option.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

struct EvalArgs {
  std::string workload;
  std::vector<std::string> candidates;
  bool json = false;
  std::string stage = "all";
  std::vector<int> gpus;
  int world_size = 0;
  std::string run_dir;
  std::string cache_dir;
  bool skip_deny_scan = false;
  bool unsafe_no_sandbox = false;
  std::string launcher;
  int jobs = 1;
  int parallel_compiles = 2;
  std::vector<std::string> sizes;  // --size NAME=VALUE (bench sizes)
  double verify_limit_s = 0, bench_limit_s = 0;
};

// The candidates named (label, code), or the workload's seed when none is.
Result<std::vector<EvalCandidate>> CandidatesToEvaluate(const EvalArgs& a, const WorkloadConfig& wl) {
  std::vector<EvalCandidate> todo;
  if (a.candidates.empty()) {
    auto seed = ReadFile(wl.SeedPath());
    if (!seed.ok()) return seed.status();
    todo.push_back({wl.SeedPath().string(), *seed});
  }
  for (const auto& c : a.candidates) {
    auto code = ReadFile(c);
    if (!code.ok()) return code.status();
    todo.push_back({c, *code});
  }
  return todo;
}

int Run(const EvalArgs& a) {
  auto wl = LoadWorkloadWithOverrides("eval", a.workload, a.sizes, a.verify_limit_s, a.bench_limit_s);
  if (!wl) return kExitUsage;
  Toolchain tc = DetectToolchain();
  if (wl->language == "cuda" && tc.nvcc.empty()) {
    std::cerr << "cuco eval: nvcc was not found, so CUDA candidates cannot even be compiled. Run `cuco doctor`.\n";
    return kExitEnvironment;
  }
  if (!WorldSizeFlagListed("eval", *wl, a.world_size)) return kExitUsage;
  auto read = CandidatesToEvaluate(a, *wl);
  if (!read.ok()) {
    std::cerr << "cuco eval: " << read.status().message() << "\n";
    return kExitUsage;
  }
  const std::vector<EvalCandidate>& todo = *read;
  fs::path run_dir = a.run_dir.empty() ? fs::path("cuco-runs") / ("eval-" + wl->name) : fs::path(a.run_dir);
  if (Status s = PrepareRunDir(run_dir); !s.ok()) {
    std::cerr << "cuco eval: " << s.message() << "\n";
    return kExitUsage;
  }
  auto store = CandidateStore::Open((run_dir / "cuco.db").string());
  if (!store.ok()) {
    std::cerr << "cuco eval: " << store.status().message() << "\n";
    return kExitInternal;
  }
  CascadeOptions opts;
  opts.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : fs::path(a.cache_dir);
  opts.gpus = a.gpus;
  opts.world_size = a.world_size;
  opts.skip_deny_scan = a.skip_deny_scan;
  opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
  if (int rc = ApplyLauncher("eval", a.launcher, "local", SlurmOptions{}, run_dir, &opts); rc != 0) return rc;
  opts.compile_only = a.stage == "compile" || a.stage == "compile-check";
  opts.unoptimized = a.stage == "compile-check";
  opts.max_parallel_compiles = a.parallel_compiles;
  Cascade cascade(*wl, tc, opts);
  if (wl->language == "cuda" && (cascade.has_gpus() || opts.launcher == "slurm") && !opts.compile_only)
    std::cerr << "cuco eval: " << cascade.timing_plan().Line() << "\n";  // one line, before anything runs
  if (wl->language == "cuda" && !cascade.has_gpus() && !a.json)
    std::cerr << "cuco eval: no GPU found on this machine: running the cascade as far as it goes here (scan and "
                 "compile, L1).\n  On a GPU machine it would run: verify: " << cascade.DescribeRun("verify")
              << "\n                                  bench:  " << cascade.DescribeRun("bench") << "\n";

  const std::vector<EvaluatedCandidate> done =
      EvaluateAndStore(cascade, **store, run_dir, todo, a.candidates.empty() ? "seed" : "manual", a.jobs);

  int code = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const EvaluatedCandidate& e : done) {
    nlohmann::json j = e.record.ToJson();
    j["store_id"] = e.store_id;
    all.push_back(j);
    if (!a.json) std::cout << e.record.Summary() << fmt::format("  stored as candidate {} in {}\n\n", e.store_id, (run_dir / "cuco.db").string());
    if (e.record.status != EvalStatus::kOk && e.record.status != EvalStatus::kSkipped) code = kExitCandidateFailed;
  }
  if (a.json) std::cout << (all.size() == 1 ? all[0] : all).dump(2) << "\n";
  return code;
}

}  // namespace

void AddEvalCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("eval", "Run candidates through the cascade (scan, compile, verify, benchmark) and "
                                         "print and store their records; with no candidate, the workload's seed");
  auto a = std::make_shared<EvalArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml)")->required();
  cmd->add_option("candidates", a->candidates, "Candidate files (copies of the seed with changed EVOLVE blocks)");
  cmd->add_flag("--json", a->json, "Print records as JSON");
  cmd->add_option("--stage", a->stage,
                  "How far to go: compile | compile-check (device code unoptimised: does it build; faster) | all")
      ->check(CLI::IsMember({"compile", "compile-check", "all"}));
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  AddWorldSizeOption(cmd, &a->world_size, "Ranks (default: the workload's world_size; one of its world_sizes)");
  cmd->add_option("--run-dir", a->run_dir, "Where the store and logs go (default: cuco-runs/eval-<workload>)");
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  cmd->add_option("--jobs", a->jobs, "Candidates evaluated at once (compiles overlap runs; GPU runs get disjoint GPUs)");
  cmd->add_option("--parallel-compiles", a->parallel_compiles, "Compiles at once (default 2)");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; the verify sizes stay)");
  cmd->add_option("--verify-limit", a->verify_limit_s, "Override the workload's verify time limit (seconds)");
  cmd->add_option("--bench-limit", a->bench_limit_s, "Override the workload's bench time limit (seconds)");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->add_flag("--unsafe-skip-deny-scan", a->skip_deny_scan,
                "Testing cuco only: skip the deny-list scan so the harness's runtime defences are exercised");
  cmd->callback([a, exit_code] { *exit_code = Run(*a); });
}

}  // namespace cuco
