#include "search/eval_run.h"

#include <iostream>

#include "evaluate/cascade.h"
#include "evaluate/launcher_choice.h"
#include "search/seed_disagreement.h"
#include "store/candidate_store.h"
#include "store/run_dir.h"
#include "toolchain/toolchain.h"
#include "util/files.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// The candidates named (label, code), or the workload's seed when none is.
Result<std::vector<EvalCandidate>> CandidatesToEvaluate(const EvalOptions& a, const WorkloadConfig& wl) {
  std::vector<EvalCandidate> todo;
  if (a.candidates.empty()) {
    auto seed = ReadFile(wl.SeedPath());
    if (!seed.ok()) return Status::InvalidArgument(seed.status().message());
    todo.push_back({wl.SeedPath().string(), *seed});
  }
  for (const auto& c : a.candidates) {
    auto code = ReadFile(c);
    if (!code.ok()) return Status::InvalidArgument(code.status().message());
    todo.push_back({c, *code});
  }
  return todo;
}

}  // namespace

Result<EvalRunResult> RunEval(const EvalOptions& a) {
  auto wl = LoadWorkloadWithOverrides(a.workload, a.sizes, a.verify_limit_s, a.bench_limit_s);
  if (!wl.ok()) return wl.status();
  Toolchain tc = DetectToolchain();
  if (wl->language == "cuda" && tc.nvcc.empty())
    return Status::Unavailable("nvcc was not found, so CUDA candidates cannot even be compiled. Run `cuco doctor`.");
  if (Status s = CheckWorldSizeListed(*wl, a.world_size); !s.ok()) return s;
  auto todo = CandidatesToEvaluate(a, *wl);
  if (!todo.ok()) return todo.status();
  EvalRunResult out;
  out.run_dir = a.run_dir.empty() ? fs::path("cuco-runs") / ("eval-" + wl->name) : fs::path(a.run_dir);
  if (Status s = PrepareRunDir(out.run_dir); !s.ok()) return Status::InvalidArgument(s.message());
  auto store = CandidateStore::Open((out.run_dir / "cuco.db").string());
  if (!store.ok()) return Status::Internal(store.status().message());
  CascadeOptions opts;
  opts.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : fs::path(a.cache_dir);
  opts.gpus = a.gpus;
  opts.world_size = a.world_size;
  opts.skip_deny_scan = a.skip_deny_scan;
  opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
  if (Status s = ChooseLauncher(a.launcher, "local", SlurmOptions{}, out.run_dir, &opts); !s.ok()) return s;
  opts.compile_only = a.stage == "compile" || a.stage == "compile-check";
  opts.unoptimized = a.stage == "compile-check";
  opts.max_parallel_compiles = a.parallel_compiles;
  Cascade cascade(*wl, tc, opts);
  if (wl->language == "cuda" && (cascade.has_gpus() || opts.launcher == "slurm") && !opts.compile_only)
    std::cerr << "cuco eval: " << cascade.timing_plan().Line() << "\n";  // one line, before anything runs
  if (wl->language == "cuda" && !cascade.has_gpus() && !a.quiet)
    std::cerr << "cuco eval: no GPU found on this machine: running the cascade as far as it goes here (scan and "
                 "compile, L1).\n  On a GPU machine it would run: verify: " << cascade.DescribeRun("verify")
              << "\n                                  bench:  " << cascade.DescribeRun("bench") << "\n";
  out.done = EvaluateAndStore(cascade, **store, out.run_dir, *todo, a.candidates.empty() ? "seed" : "manual", a.jobs);
  for (size_t i = 0; i < out.done.size() && i < todo->size(); ++i)
    out.done[i].note =
        SeedDisagreementNote(*wl, (*todo)[i].code, out.done[i].record.status, out.done[i].record.run_dir);
  return out;
}

}  // namespace cuco
