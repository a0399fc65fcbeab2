#include "evaluate/cascade.h"

#include <cstring>

#include <fmt/format.h>

#include "launch/interrupts.h"
#include "launch/sandbox.h"
#include "launch/slurm_launcher.h"
#include "util/files.h"
#include "util/sha256.h"
#include "workload/evolve_blocks.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

}  // namespace

Result<std::string> MaterializeVariant(const WorkloadConfig& workload, const Variant& variant) {
  const fs::path path = workload.dir / variant.file;
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  auto out = ApplyKnobs(*text, path.string(), variant.knobs, workload.knobs);
  if (!out.ok())
    return Status::InvalidArgument(fmt::format("{}:{}: variant '{}': {}", workload.toml_path.string(), variant.line,
                                               variant.name, out.status().message()));
  return out;
}

Cascade::Cascade(WorkloadConfig workload, Toolchain toolchain, CascadeOptions options)
    : workload_(std::move(workload)), toolchain_(std::move(toolchain)), options_(std::move(options)) {
  world_size_ = options_.world_size > 0 ? options_.world_size : workload_.world_size;
  auto seed = ReadFile(workload_.SeedPath());
  seed_code_ = seed.ok() ? *seed : "";
  frozen_code_ = seed_code_;
  frozen_path_ = workload_.SeedPath().string();
  // A program-mode seed is the user's program as is (no EVOLVE blocks); once the fast path has
  // annotated it, the generation 0 file (the program plus marker lines) defines what is frozen.
  if (workload_.mode == "program" && !HasEvolveMarker(seed_code_) &&
      workload_.generation0_file != workload_.seed_file) {
    auto g0 = ReadFile(workload_.Generation0Path());
    if (g0.ok() && HasEvolveMarker(*g0)) {
      frozen_code_ = *g0;
      frozen_path_ = workload_.Generation0Path().string();
    }
  }
  std::vector<int> gpus = options_.gpus;
  if (gpus.empty())
    for (const auto& g : toolchain_.gpus) gpus.push_back(g.index);
  gpu_count_ = static_cast<int>(gpus.size());
  pool_ = std::make_unique<GpuPool>(gpus);
  timing_plan_ = PlanTiming(toolchain_, workload_.language == "cuda", options_.launcher == "slurm");
  builder_ = std::make_unique<Builder>(options_.cache_dir, workload_, toolchain_);
  builder_->set_sandboxed(!options_.unsafe_no_sandbox);
  builder_->set_unoptimized(options_.unoptimized && (options_.compile_only || gpu_count_ == 0));
  local_launcher_ = MakeLocalLauncher();
  if (options_.launcher == "slurm") slurm_launcher_ = MakeSlurmLauncher(options_.slurm);
  if (ProgramUsesMpirun()) launcher_ = MakeMpirunLauncher(toolchain_.mpirun);
  else launcher_ = MakeLocalLauncher();
}

std::vector<std::string> Cascade::HarnessArgs(const std::string& stage, bool timing_only, int iters) const {
  std::vector<std::string> a = {"--stage", stage};
  const auto& sizes = stage == "verify" ? workload_.verify_sizes : workload_.bench_sizes;
  for (const auto& [k, v] : sizes) {
    a.push_back("--size");
    a.push_back(k + "=" + std::to_string(v));
  }
  a.insert(a.end(), {"--warmup", std::to_string(workload_.warmup), "--iters",
                     std::to_string(iters > 0 ? iters : workload_.iters),
                     "--verify-runs", std::to_string(workload_.verify_runs), "--verify-fraction",
                     fmt::format("{}", workload_.verify_fraction), "--iteration-limit",
                     fmt::format("{}", workload_.iteration_s)});
  if (timing_only && stage == "bench") a.push_back("--timing-only");
  // A first bench's timed loop is sized by the supervisor after its warm-up, at the bench's sizes;
  // a second one (RetimeNoisy) times the count it is given.
  if (stage == "bench" && iters <= 0)
    a.insert(a.end(), {"--timed-seconds", fmt::format("{}", kFirstBenchTimedSeconds), "--max-iters",
                       std::to_string(kMaxRetimeIters)});
  return a;
}

bool Cascade::ProgramUsesMpirun() const {
  return workload_.program && workload_.program->launcher == "mpirun" && !toolchain_.mpirun.empty();
}

double Cascade::SetupLimit(const std::string& stage) const {
  return std::max(10.0, 0.8 * (stage == "verify" ? workload_.verify_s : workload_.bench_s));
}

// Timing-only runs are for the workload's own bound parts, never for a candidate: the code must be
// byte for byte what the cascade materialises from the named [[variants]] part entry.
bool Cascade::CheckBoundPart(const std::string& code, const std::string& part_name, EvalRecord* rec) {
  const Variant* part = nullptr;
  for (const auto& v : workload_.variants)
    if (v.name == part_name) part = &v;
  std::string why;
  if (!part) {
    why = fmt::format("'{}' is not a [[variants]] entry of {}", part_name, workload_.toml_path.string());
  } else if (part->part.empty()) {
    why = fmt::format("variant '{}' has no `part`: only compute-alone / communication-alone parts run unverified",
                      part_name);
  } else if (workload_.mode != "harness") {
    why = "timing-only parts need harness mode";
  } else {
    auto expected = MaterializeVariant(workload_, *part);
    if (!expected.ok()) why = expected.status().message();
    else if (*expected != code)
      why = fmt::format("the code is not variant '{}' as the workload ships it (timing-only runs are reserved for the "
                        "workload's own bound parts)", part_name);
  }
  if (!why.empty()) {
    StageRecord* st = rec->Stage("scan");
    st->status = EvalStatus::kRejected;
    st->detail = why;
    rec->status = EvalStatus::kRejected;
    rec->reason = "timing-only run refused: " + why;
    return false;
  }
  rec->timing_only = true;
  rec->part = part->part;
  return true;
}

EvalRecord Cascade::Evaluate(const std::string& code, const std::string& label, const fs::path& work_dir,
                             const EvaluateOptions& call) {
  const uint64_t interrupts = InterruptCount();
  EvalRecord rec = EvaluateStages(code, label, work_dir, call);
  // An interrupt may have reached the processes this evaluation ran (a Slurm cancel or a shutdown
  // signals them all): what did not pass is not the candidate's verdict.
  if (InterruptCount() != interrupts && !rec.interrupted && rec.status != EvalStatus::kOk &&
      rec.status != EvalStatus::kTimed) {
    const int sig = LastInterruptSignal();
    const std::string ended = rec.reason.empty() ? "" : " (it ended: " + rec.reason + ")";
    MarkUnjudged(nullptr, &rec, fmt::format("interrupted by signal {} ({}) while it was evaluated{}", sig,
                                            strsignal(sig), ended));
  }
  return rec;
}

EvalRecord Cascade::EvaluateStages(const std::string& code, const std::string& label, const fs::path& work_dir,
                                   const EvaluateOptions& call) {
  EvalRecord rec;
  rec.workload = workload_.name;
  rec.candidate_path = label;
  rec.code_hash = Sha256Hex(code);
  rec.mode = workload_.mode;
  rec.trusted = workload_.mode == "harness";
  rec.world_size = world_size_;
  rec.run_dir = work_dir.string();
  for (const auto& [k, v] : workload_.verify_sizes) rec.verify_sizes[k] = v;
  for (const auto& [k, v] : workload_.bench_sizes) rec.bench_sizes[k] = v;
  MakeDirs(work_dir);
  if (seed_code_.empty()) {
    rec.status = EvalStatus::kRuntimeError;
    rec.reason = workload_.SeedPath().string() + ": cannot read the seed";
    return rec;
  }
  const bool timing_only = !call.bound_part.empty();
  if (timing_only && !CheckBoundPart(code, call.bound_part, &rec)) return rec;
  if (!Scan(code, label, work_dir, &rec)) return rec;
  if (!options_.unsafe_no_sandbox && !DetectSandbox().available) {
    rec.status = EvalStatus::kSkipped;
    rec.reason = "no working sandbox on this machine (" + DetectSandbox().why_not +
                 "): cuco neither compiles nor runs candidate code unconfined; see `cuco doctor`, or pass "
                 "--unsafe-no-sandbox to do so with your own rights";
    return rec;
  }
  BuildResult built;
  if (!Compile(code, &rec, &built)) return rec;
  const std::string& exe = built.executable;
  if (options_.compile_only || call.compile_only) {
    rec.status = EvalStatus::kSkipped;
    rec.reason = !options_.compile_only ? "compile only"
                 : options_.unoptimized ? "compile only (--stage compile-check, device code unoptimised)"
                                        : "compile only (--stage compile)";
    return rec;
  }
  if (workload_.mode == "program") {
    if (RunProgram(exe, work_dir, &rec)) rec.status = EvalStatus::kOk;
    return rec;
  }
  // L2 and L3 on one GPU session (cuco's MPS daemon, the GPU-state baseline). A stage that finds
  // the GPU changed through no doing of the candidate (an infrastructure failure) costs the
  // evaluation: it runs once more, on a fresh session; a second one leaves the record skipped
  // ("infrastructure: ..."), which a search evaluates again.
  const EvalRecord before_stages = rec;
  for (int attempt = 0;; ++attempt) {
    GpuSession gpu;
    RunHarnessStages(built, work_dir, &rec, timing_only, &gpu, call.retime_unless_above_ms);
    CloseGpuSession(&gpu, &rec);
    if (!rec.infrastructure_failure || attempt >= 1) break;
    const std::string first = rec.reason;
    rec = before_stages;
    std::error_code ec;  // a run of its own: no Slurm job of the first attempt to adopt
    for (const char* stage : {"verify", "bench"}) fs::remove(work_dir / (std::string("slurm-") + stage + ".job"), ec);
    StageRecord* again = rec.Stage("evaluated_again");
    again->status = EvalStatus::kOk;
    again->detail = "the first attempt was an infrastructure failure, not the candidate's: " + first;
  }
  return rec;
}

void Cascade::RunHarnessStages(const BuildResult& built, const fs::path& work_dir, EvalRecord* rec, bool timing_only,
                               GpuSession* gpu, double retime_unless_above_ms) {
  if (timing_only) {
    // A bound part computes a deliberately incomplete result: no L2, and L3 without checks.
    StageRecord* verify = rec->Stage("verify");
    verify->status = EvalStatus::kSkipped;
    verify->detail = fmt::format("not verified: a bound part ({} alone) computes a deliberately incomplete result",
                                 rec->part == "comm" ? "communication" : "compute");
    if (RunHarnessStage("bench", built, work_dir, rec, gpu, /*timing_only=*/true)) rec->status = EvalStatus::kTimed;
    return;
  }
  bool verified = RunHarnessStage("verify", built, work_dir, rec, gpu);
  if (verified && RunHarnessStage("bench", built, work_dir, rec, gpu)) {
    rec->status = EvalStatus::kOk;
    const TimingFigures& t = rec->timing;
    if ((t.Noisy() || t.Imprecise()) && t.IntervalAbove(retime_unless_above_ms)) {
      rec->Stage("bench")->detail += fmt::format(
          "; not timed again: its median's interval ({:.4f}-{:.4f} ms) lies above the best so far ({:.4f} ms), so it "
          "is slower either way", t.median_lo_ms, t.median_hi_ms, retime_unless_above_ms);
    } else if (t.Noisy() || t.Imprecise()) {
      RetimeNoisy(built, work_dir, rec, gpu);
    }
  }
  if (!verified && rec->status == EvalStatus::kSkipped && !rec->infrastructure_failure) {
    StageRecord* bench = rec->Stage("bench");
    bench->status = EvalStatus::kSkipped;
    bench->detail = "no GPU found: would run " + DescribeRun("bench");
  }
}

void Cascade::RetimeNoisy(const BuildResult& built, const fs::path& work_dir, EvalRecord* rec, GpuSession* gpu) {
  const TimingFigures first = rec->timing;
  const std::string first_detail = rec->Stage("bench")->detail;  // with its Slurm job, when there is one
  const double first_seconds = rec->Stage("bench")->seconds;
  const int iters = first.Imprecise() ? RetimeIterations(first.Precision(), first.iters, workload_.warmup, first_seconds,
                                                         workload_.bench_s)
                                      : std::min(std::max(first.iters, workload_.iters) * kNoisyRetimeFactor,
                                                 kMaxRetimeIters);
  // No longer bench fits the stage's limit, or the first was as long as a second would be: the
  // record says how imprecise or spread it is.
  if (iters <= first.iters) return;
  // A run of its own: not the first bench's Slurm job to adopt (RunHarnessStage).
  std::error_code ec;
  fs::remove(work_dir / "slurm-bench.job", ec);
  const bool ok = RunHarnessStage("bench", built, work_dir, rec, gpu, /*timing_only=*/false, iters);
  StageRecord* bench = rec->Stage("bench");
  bench->seconds += first_seconds;
  const std::string why = first.Imprecise() ? fmt::format("the median known to +-{:.1f}%", 100 * first.Precision())
                                             : fmt::format("p90/p10 {:.2f}", first.Spread());
  bench->detail = fmt::format("{} over {} iterations ({}): {}; so timed again over {}: {}",
                              first.Noisy() ? "noisy" : "imprecise", first.iters, why, first_detail, iters, bench->detail);
  if (ok) rec->timing.retimed_from = first.iters;
}

}  // namespace cuco
