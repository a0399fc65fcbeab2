#include "evaluate/cascade.h"

#include <chrono>
#include <random>
#include <regex>

#include <fmt/format.h>

#include "evaluate/judge.h"
#include "evaluate/object_check.h"
#include "launch/sandbox.h"
#include "util/files.h"
#include "util/sha256.h"

#include <cuco/protocol.h>
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string Nonce() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

// The last `n` lines of a text.
std::string Tail(const std::string& text, int n) {
  size_t pos = text.size();
  for (int i = 0; i <= n && pos != std::string::npos && pos > 0; ++i) pos = text.rfind('\n', pos - 1);
  return pos == std::string::npos ? text : text.substr(pos + 1);
}

std::string RankLogsTail(const JobOutcome& job, int lines) {
  std::string out;
  for (const auto& r : job.ranks) {
    auto text = ReadFile(r.log_path);
    if (!text.ok() || text->empty()) continue;
    out += fmt::format("--- rank {} ({}) ---\n{}", r.rank, r.log_path, Tail(*text, lines));
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

// The candidate ranks' own logs, which the supervisor writes beside its own.
std::string CandidateLogsTail(const fs::path& logs, int world, int lines) {
  std::string out;
  for (int r = 0; r < world; ++r) {
    const fs::path p = logs / fmt::format("candidate-rank{}.log", r);
    auto text = ReadFile(p);
    if (!text.ok() || text->empty()) continue;
    out += fmt::format("--- candidate rank {} ({}) ---\n{}", r, p.string(), Tail(*text, lines));
    if (out.back() != '\n') out += '\n';
  }
  return out;
}

std::string JoinArgs(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

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
  if (workload_.mode == "program" && seed_code_.find("EVOLVE-BLOCK-START") == std::string::npos &&
      workload_.generation0_file != workload_.seed_file) {
    auto g0 = ReadFile(workload_.Generation0Path());
    if (g0.ok() && g0->find("EVOLVE-BLOCK-START") != std::string::npos) {
      frozen_code_ = *g0;
      frozen_path_ = workload_.Generation0Path().string();
    }
  }
  std::vector<int> gpus = options_.gpus;
  if (gpus.empty())
    for (const auto& g : toolchain_.gpus) gpus.push_back(g.index);
  gpu_count_ = static_cast<int>(gpus.size());
  pool_ = std::make_unique<GpuPool>(gpus);
  builder_ = std::make_unique<Builder>(options_.cache_dir, workload_, toolchain_);
  builder_->set_sandboxed(!options_.unsafe_no_sandbox);
  local_launcher_ = MakeLocalLauncher();
  if (ProgramUsesMpirun()) launcher_ = MakeMpirunLauncher(toolchain_.mpirun);
  else launcher_ = MakeLocalLauncher();
}

std::vector<std::string> Cascade::HarnessArgs(const std::string& stage, bool timing_only) const {
  std::vector<std::string> a = {"--stage", stage};
  const auto& sizes = stage == "verify" ? workload_.verify_sizes : workload_.bench_sizes;
  for (const auto& [k, v] : sizes) {
    a.push_back("--size");
    a.push_back(k + "=" + std::to_string(v));
  }
  a.insert(a.end(), {"--warmup", std::to_string(workload_.warmup), "--iters", std::to_string(workload_.iters),
                     "--verify-runs", std::to_string(workload_.verify_runs), "--verify-fraction",
                     fmt::format("{}", workload_.verify_fraction), "--iteration-limit",
                     fmt::format("{}", workload_.iteration_s)});
  if (timing_only && stage == "bench") a.push_back("--timing-only");
  return a;
}

bool Cascade::ProgramUsesMpirun() const {
  return workload_.program && workload_.program->launcher == "mpirun" && !toolchain_.mpirun.empty();
}

std::string Cascade::SandboxName() const {
  return std::string("bwrap+seccomp") + (DetectSandbox().seccomp ? "" : " (seccomp unavailable)");
}

double Cascade::SetupLimit(const std::string& stage) const {
  return std::max(10.0, 0.8 * (stage == "verify" ? workload_.verify_s : workload_.bench_s));
}

std::map<std::string, std::string> Cascade::CandidateEnvironment(const std::vector<int>& gpus) const {
  // The whole environment a candidate gets: nothing of cuco's own (LLM keys, the user's variables,
  // the run nonce) reaches it.
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", "/tmp"}, {"LANG", "C"}};
  for (const auto& [k, v] : NoMulticastEnv()) env[k] = v;
  for (const char* pass : {"LD_LIBRARY_PATH", "CUDA_MPS_PIPE_DIRECTORY", "CUCO_HARNESS_NONBLOCKING_STREAMS"})
    if (const char* v = std::getenv(pass)) env[pass] = v;
  if (!gpus.empty()) {
    std::string list;
    for (int g : gpus) list += (list.empty() ? "" : ",") + std::to_string(g);
    env["CUDA_VISIBLE_DEVICES"] = list;
  }
  return env;
}

Result<std::vector<std::string>> Cascade::CandidateSandbox(const fs::path& stage_dir, const std::string& executable,
                                                           const std::vector<int>& gpus,
                                                           std::map<std::string, std::string> env, int ranks,
                                                           int fd_base) const {
  const SandboxSupport& support = DetectSandbox();
  if (!support.available)
    return Status::Unavailable("no working sandbox on this machine (" + support.why_not +
                               "): cuco does not run candidate code unconfined; see `cuco doctor`, or pass "
                               "--unsafe-no-sandbox to run it with your own rights");
  SandboxSpec spec;
  spec.env = std::move(env);
  spec.gpus = gpus;
  spec.hidden_dirs = {fs::absolute(stage_dir.parent_path()).string()};  // this candidate's metrics and logs
  spec.readonly_dirs = {fs::absolute(fs::path(executable).parent_path()).string()};  // may lie under /tmp
  if (const char* mps = std::getenv("CUDA_MPS_PIPE_DIRECTORY")) spec.mps_pipe_dir = mps;
  else if (fs::exists("/tmp/nvidia-mps")) spec.mps_pipe_dir = "/tmp/nvidia-mps";
  // CUDA reserves address space far beyond what it uses: no address-space limit on GPU ranks.
  if (workload_.language != "cuda") spec.address_space_bytes = 8ull << 30;
  spec.file_size_bytes = 1ull << 30;
  spec.open_files = 4096;
  spec.ranks = ranks;
  if (fd_base >= 0) {
    spec.rank_fd_base = fd_base;
    spec.rank_log_fd_base = fd_base + ranks;
  }
  return SandboxPrefix(spec);
}

Result<std::string> Cascade::ConfineCandidate(const fs::path& stage_dir, const std::string& executable,
                                              const std::vector<int>& gpus, std::vector<std::string>* argv) const {
  auto env = CandidateEnvironment(gpus);
  if (options_.unsafe_no_sandbox) {
    for (const auto& [k, v] : env) argv->insert(argv->end(), {"--candidate-env", k + "=" + v});
    return std::string(kUnsandboxed);
  }
  // The sandbox's network namespace has only the loopback device: NCCL's bootstrap must use it.
  env.emplace("NCCL_SOCKET_IFNAME", "lo");
  auto prefix = CandidateSandbox(stage_dir, executable, gpus, env, world_size_, protocol::kSpawnFdBase);
  if (!prefix.ok()) return prefix.status();
  std::string file;
  for (const auto& a : *prefix) file += a + '\0';
  const fs::path path = stage_dir / "sandbox.argv";
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(path, file));
  argv->insert(argv->end(), {"--sandbox-argv", path.string()});
  return SandboxName();
}

std::string Cascade::DescribeRun(const std::string& stage, bool timing_only) const {
  return fmt::format("{} ranks on {} GPU(s), the workload's supervisor with {}", world_size_, world_size_,
                     JoinArgs(HarnessArgs(stage, timing_only)));
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

Status Cascade::ScanPreprocessed(const std::string& code, const std::string& label, const fs::path& work_dir) {
  const fs::path dir = fs::absolute(work_dir) / "scan";
  CUCO_RETURN_IF_ERROR(MakeDirs(dir));
  const fs::path src = dir / (workload_.language == "cuda" ? "candidate.cu" : "candidate.cc");
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(src, code));
  auto argv = builder_->PreprocessCommand(src);
  if (!argv.ok()) return Status::Ok();  // no compiler or no sandbox: the compile stage says so
  return CheckDenyListPreprocessed(code, label, *argv, std::max(60.0, workload_.compile_s));
}

bool Cascade::Scan(const std::string& code, const std::string& label, const fs::path& work_dir, EvalRecord* rec) {
  auto t = Clock::now();
  StageRecord* st = rec->Stage("scan");
  Status s = Status::Ok();
  const bool harness = workload_.mode == "harness";
  if (code != seed_code_ || harness) {
    if (harness || code.find("EVOLVE-BLOCK-START") != std::string::npos)
      s = CheckFrozenCode(frozen_code_, frozen_path_, code, label);
    if (s.ok() && !options_.skip_deny_scan && harness) s = CheckDenyList(code, label);
    // The same scan again on what the compiler will see (splices, digraphs and macros resolved).
    if (s.ok() && !options_.skip_deny_scan && harness) s = ScanPreprocessed(code, label, work_dir);
  }
  st->seconds = Since(t);
  if (!s.ok()) {
    st->status = EvalStatus::kRejected;
    st->detail = s.message();
    rec->status = EvalStatus::kRejected;
    rec->reason = s.message();
    return false;
  }
  st->status = EvalStatus::kOk;
  st->detail = options_.skip_deny_scan ? "frozen code intact (deny-list scan DISABLED)" : "frozen code intact, no denied API";
  return true;
}

bool Cascade::Compile(const std::string& code, EvalRecord* rec, BuildResult* out) {
  StageRecord* st = rec->Stage("compile");
  {
    std::unique_lock<std::mutex> lock(compile_mu_);
    compile_cv_.wait(lock, [&] { return compiles_running_ < std::max(1, options_.max_parallel_compiles); });
    ++compiles_running_;
  }
  auto built = builder_->Build(code, workload_.compile_s);
  {
    std::lock_guard<std::mutex> lock(compile_mu_);
    --compiles_running_;
  }
  compile_cv_.notify_one();
  if (!built.ok()) {
    st->status = EvalStatus::kCompileError;
    st->detail = built.status().message();
    rec->status = built.status().code() == Status::Code::kUnavailable ? EvalStatus::kSkipped : EvalStatus::kCompileError;
    rec->reason = built.status().message();
    return false;
  }
  st->seconds = built->seconds;
  st->log_path = built->log_path;
  st->log_tail = Tail(built->log, 30);
  if (!built->ok) {
    st->status = EvalStatus::kCompileError;
    std::string first_error;
    std::smatch m;
    if (std::regex_search(built->log, m, std::regex(R"([^\n]*(error|Error|fatal)[^\n]*)"))) first_error = m.str();
    st->detail = first_error.empty() ? "compiler failed" : first_error;
    rec->status = EvalStatus::kCompileError;
    rec->reason = st->detail;
    return false;
  }
  st->status = EvalStatus::kOk;
  // Hygiene on what was compiled: no symbol of someone else's, no code run at load or exit.
  if (workload_.mode == "harness" && !options_.skip_deny_scan) {
    const Status obj = CheckCandidateObject(built->object, workload_.language, rec->candidate_path);
    if (!obj.ok()) {
      st->status = EvalStatus::kRejected;
      st->detail = obj.message();
      rec->status = EvalStatus::kRejected;
      rec->reason = obj.message();
      return false;
    }
  }
  st->detail = built->cached ? "cached build (identical code compiled before)" : "compiled";
  *out = *built;
  return true;
}

void Cascade::ProbeGpus(const std::vector<int>& gpus, EvalRecord* rec) {
  if (gpus.empty()) return;
  auto probe = builder_->BuildGpuProbe(300);
  StageRecord* st = rec->Stage("gpu_probe");
  auto t = Clock::now();
  if (!probe.ok() || !probe->ok) {
    st->status = EvalStatus::kRuntimeError;
    st->detail = "could not build the GPU probe; GPUs left in the pool unchecked";
    return;
  }
  std::string detail;
  for (int g : gpus) {
    ProcessSpec spec;
    spec.argv = {probe->executable};
    spec.env_set = {{"CUDA_VISIBLE_DEVICES", std::to_string(g)}};
    ProcessOutcome o = RunProcess(spec, options_.probe_timeout_s);
    if (o.ok()) {
      detail += fmt::format("GPU {} healthy; ", g);
    } else {
      detail += fmt::format("GPU {} FAILED ({}), quarantined; ", g, o.Describe());
      pool_->Quarantine(g, "failed the health probe after " + rec->reason);
    }
  }
  st->seconds = Since(t);
  st->status = EvalStatus::kOk;
  st->detail = detail;
}

void Cascade::SkipStage(StageRecord* st, EvalRecord* rec, const std::string& why) {
  rec->status = st->status = EvalStatus::kSkipped;
  rec->reason = st->detail = why;
}

bool Cascade::LeaseGpus(StageRecord* st, EvalRecord* rec, GpuLease* lease) {
  if (workload_.language != "cuda") return true;
  auto l = pool_->Acquire(world_size_);
  if (!l.ok()) {
    SkipStage(st, rec, l.status().message());
    return false;
  }
  *lease = std::move(*l);
  rec->gpus = lease->gpus();
  return true;
}

bool Cascade::RunHarnessStage(const std::string& stage, const BuildResult& built, const fs::path& work_dir,
                              EvalRecord* rec, bool timing_only) {
  StageRecord* st = rec->Stage(stage);
  const bool cuda = workload_.language == "cuda";
  if (cuda && !has_gpus()) {
    st->status = EvalStatus::kSkipped;
    st->detail = "no GPU found: would run " + DescribeRun(stage, timing_only);
    if (rec->status == EvalStatus::kPending) {
      rec->status = EvalStatus::kSkipped;
      rec->reason = "no GPU found on this machine; compiled only (L1)";
    }
    return false;
  }
  GpuLease lease;
  if (!LeaseGpus(st, rec, &lease)) return false;
  auto t = Clock::now();  // after the lease: a stage's seconds exclude the wait for GPUs
  fs::path dir = work_dir / stage;
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::path metrics = dir / "metrics";
  const fs::path logs = dir / "logs";
  MakeDirs(metrics);
  MakeDirs(logs);
  // One supervisor process for all ranks; it starts the candidate's ranks inside the sandbox.
  RankJob job;
  job.argv = {built.supervisor};
  auto args = HarnessArgs(stage, timing_only);
  job.argv.insert(job.argv.end(), args.begin(), args.end());
  job.argv.insert(job.argv.end(), {"--metrics-dir", metrics.string(), "--world", std::to_string(world_size_),
                                   "--candidate", built.executable, "--log-dir", logs.string(), "--workload",
                                   workload_.name, "--setup-limit", fmt::format("{}", SetupLimit(stage))});
  auto confinement = ConfineCandidate(dir, built.executable, lease.gpus(), &job.argv);
  if (!confinement.ok()) {
    SkipStage(st, rec, confinement.status().message());
    return false;
  }
  rec->sandbox = *confinement;
  job.world_size = 1;
  job.gpus = lease.gpus();
  job.log_dir = logs.string();
  job.timeout_s = stage == "verify" ? workload_.verify_s : workload_.bench_s;
  const std::string nonce = Nonce();
  job.env["CUCO_RUN_NONCE"] = nonce;
  st->log_path = job.log_dir;
  auto outcome = local_launcher_->Run(job);
  st->seconds = Since(t);
  if (!outcome.ok()) {
    st->status = EvalStatus::kRuntimeError;
    st->detail = outcome.status().message();
    rec->status = EvalStatus::kRuntimeError;
    rec->reason = st->detail;
    return false;
  }
  st->log_tail = RankLogsTail(*outcome, 20) + CandidateLogsTail(logs, world_size_, 20);
  StageVerdict v = JudgeSupervisor(*outcome, metrics.string());
  if (v.status == EvalStatus::kOk) {
    StageExpectations ex;
    ex.stage = stage;
    ex.world_size = world_size_;
    ex.nonce = nonce;
    ex.min_checks = timing_only ? 0 : stage == "verify" ? workload_.verify_runs + 1 : 2;
    ex.expect_timing = stage == "bench";
    ex.timing_only = timing_only;
    ex.seen_seeds = &rec->seen_seeds;
    v = JudgeMetrics(metrics.string(), ex, Tolerance{workload_.tol_rel_l2, workload_.tol_max_abs});
  }
  (stage == "verify" ? rec->verify_errors : rec->bench_errors) = v.errors;
  if (stage == "bench") rec->timing = v.timing;
  if (!v.device.empty()) rec->device = v.device;
  rec->rank_metrics = v.ranks;
  st->status = v.status;
  if (v.status == EvalStatus::kTimed) {
    st->detail = fmt::format("{:.4f} ms median (max over ranks); timing only: outputs NOT checked ({} alone, a bound part)",
                             v.timing.median_ms, rec->part == "comm" ? "communication" : "compute");
    return true;
  }
  if (v.status == EvalStatus::kOk) {
    st->detail = stage == "verify"
                     ? fmt::format("verified: rel L2 {:.3g}, max abs {:.3g} over {} checks", v.errors.rel_l2,
                                   v.errors.max_abs, v.errors.checks)
                     : fmt::format("{:.4f} ms median (max over ranks), {} sampled checks passed (rel L2 {:.3g})",
                                   v.timing.median_ms, v.errors.checks, v.errors.rel_l2);
    return true;
  }
  st->detail = v.reason;
  rec->status = v.status;
  rec->reason = fmt::format("{}: {}", stage, v.reason);
  // A killed or crashed run may leave a GPU wedged: check before anyone uses it again.
  if (cuda && (v.status == EvalStatus::kTimeout || v.status == EvalStatus::kCrashed ||
               v.status == EvalStatus::kRuntimeError || outcome->unkillable))
    ProbeGpus(lease.gpus(), rec);
  return false;
}

bool Cascade::RunProgram(const std::string& exe, const fs::path& work_dir, EvalRecord* rec) {
  StageRecord* st = rec->Stage("program");
  const bool cuda = workload_.language == "cuda";
  if (cuda && !has_gpus()) {
    st->status = EvalStatus::kSkipped;
    st->detail = fmt::format("no GPU found: would run {} ranks of {} {}", world_size_, exe, JoinArgs(workload_.program->args));
    rec->status = EvalStatus::kSkipped;
    rec->reason = "no GPU found on this machine; compiled only (L1)";
    return false;
  }
  if (workload_.program->launcher == "mpirun" && toolchain_.mpirun.empty()) {
    SkipStage(st, rec, "workload wants mpirun, which was not found (run `cuco doctor`)");
    return false;
  }
  GpuLease lease;
  if (!LeaseGpus(st, rec, &lease)) return false;
  auto t = Clock::now();  // after the lease: a stage's seconds exclude the wait for GPUs
  fs::path dir = work_dir / "program";
  std::error_code ec;
  fs::remove_all(dir, ec);
  RankJob job;
  job.argv = {exe};
  job.argv.insert(job.argv.end(), workload_.program->args.begin(), workload_.program->args.end());
  job.world_size = world_size_;
  Launcher* launcher = launcher_.get();
  rec->sandbox = kUnsandboxed;
  if (!options_.unsafe_no_sandbox) {
    // All ranks in one sandbox: mpirun inside it, or cuco-sandbox-exec starting the ranks (their
    // NCCL id goes through CUCO_RENDEZVOUS_DIR, the sandbox's private /tmp).
    const bool mpirun = ProgramUsesMpirun();
    auto env = CandidateEnvironment(lease.gpus());
    env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    env["CUCO_RENDEZVOUS_DIR"] = "/tmp";
    env.emplace("NCCL_SOCKET_IFNAME", "lo");  // the sandbox has no other network device
    auto prefix = CandidateSandbox(dir, exe, lease.gpus(), env, mpirun ? 0 : world_size_, -1);
    if (!prefix.ok()) {
      SkipStage(st, rec, prefix.status().message());
      return false;
    }
    std::vector<std::string> argv = *prefix;
    if (mpirun) argv.insert(argv.end(), {toolchain_.mpirun, "-np", std::to_string(world_size_)});
    argv.insert(argv.end(), job.argv.begin(), job.argv.end());
    job.argv = argv;
    job.world_size = 1;  // one sandbox; its output is rank 0's log
    launcher = local_launcher_.get();
    rec->sandbox = SandboxName();
  }
  job.gpus = lease.gpus();
  job.log_dir = (dir / "logs").string();
  job.rendezvous_dir = (dir / "rendezvous").string();
  job.timeout_s = workload_.bench_s;
  st->log_path = job.log_dir;
  auto outcome = launcher->Run(job);
  st->seconds = Since(t);
  if (!outcome.ok()) {
    rec->status = st->status = EvalStatus::kRuntimeError;
    rec->reason = st->detail = outcome.status().message();
    return false;
  }
  st->log_tail = RankLogsTail(*outcome, 20);
  StageVerdict v = JudgeJob(*outcome);
  if (v.status != EvalStatus::kOk) {
    rec->status = st->status = v.status;
    rec->reason = st->detail = v.reason;
    if (cuda) ProbeGpus(lease.gpus(), rec);
    return false;
  }
  // Untrusted: the program's own words. Every rank's log is read; the slowest time wins.
  const ProgramSpec& p = *workload_.program;
  bool passed = false, failed = false;
  double worst_ms = -1;
  std::vector<double> times;
  for (const auto& r : outcome->ranks) {
    auto text = ReadFile(r.log_path);
    if (!text.ok()) continue;
    if (std::regex_search(*text, std::regex(p.pass_regex))) passed = true;
    if (!p.fail_regex.empty() && std::regex_search(*text, std::regex(p.fail_regex))) failed = true;
    std::smatch m;
    std::string::const_iterator from = text->cbegin();
    std::regex time_re(p.time_regex);
    while (std::regex_search(from, text->cend(), m, time_re)) {
      try {
        double ms = std::stod(m[1].str());
        times.push_back(ms);
        worst_ms = std::max(worst_ms, ms);
      } catch (...) {
      }
      from = m.suffix().first;
    }
  }
  if (failed || !passed) {
    rec->status = st->status = EvalStatus::kWrongResult;
    rec->reason = st->detail = failed ? "the program printed its failure pattern" : "the program never printed its pass pattern";
    return false;
  }
  if (worst_ms < 0) {
    rec->status = st->status = EvalStatus::kRuntimeError;
    rec->reason = st->detail = "no time matched program.time_regex in the program's output";
    return false;
  }
  rec->timing.median_ms = worst_ms;
  rec->timing.p10_ms = rec->timing.p90_ms = worst_ms;
  rec->timing.rank_median_ms = times;
  rec->timing.iters = 1;
  st->status = EvalStatus::kOk;
  st->detail = fmt::format("program says PASS and {:.4f} ms (UNTRUSTED: parsed from its own output)", worst_ms);
  return true;
}

EvalRecord Cascade::Evaluate(const std::string& code, const std::string& label, const fs::path& work_dir,
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
    rec.reason = options_.compile_only ? "compile only (--stage compile)" : "compile only";
    return rec;
  }
  if (timing_only) {
    // A bound part computes a deliberately incomplete result: no L2, and L3 without checks.
    StageRecord* verify = rec.Stage("verify");
    verify->status = EvalStatus::kSkipped;
    verify->detail = fmt::format("not verified: a bound part ({} alone) computes a deliberately incomplete result",
                                 rec.part == "comm" ? "communication" : "compute");
    if (RunHarnessStage("bench", built, work_dir, &rec, /*timing_only=*/true)) rec.status = EvalStatus::kTimed;
    return rec;
  }
  if (workload_.mode == "program") {
    if (RunProgram(exe, work_dir, &rec)) rec.status = EvalStatus::kOk;
    return rec;
  }
  bool verified = RunHarnessStage("verify", built, work_dir, &rec);
  if (verified && RunHarnessStage("bench", built, work_dir, &rec)) rec.status = EvalStatus::kOk;
  if (!verified && rec.status == EvalStatus::kSkipped) {
    StageRecord* bench = rec.Stage("bench");
    bench->status = EvalStatus::kSkipped;
    bench->detail = "no GPU found: would run " + DescribeRun("bench");
  }
  return rec;
}

}  // namespace cuco
