// Cascade, L2 and L3: leasing GPUs, running the supervisor (harness mode) or the program, and
// probing GPUs after a stage that hung (cascade.h).
#include "evaluate/cascade.h"

#include <chrono>
#include <random>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "evaluate/judge.h"
#include "evaluate/stage_logs.h"
#include "launch/gpu_visibility.h"
#include "launch/sandbox.h"
#include "util/clock.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string Nonce() {
  std::random_device rd;
  return fmt::format("{:08x}{:08x}{:08x}{:08x}", rd(), rd(), rd(), rd());
}

std::string JoinArgs(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : " ") + x;
  return s;
}

}  // namespace

std::string Cascade::DescribeRun(const std::string& stage, bool timing_only) const {
  return fmt::format("{} ranks on {} GPU(s), the workload's supervisor with {}", world_size_, world_size_,
                     JoinArgs(HarnessArgs(stage, timing_only)));
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
    spec.env_set = {{"CUDA_VISIBLE_DEVICES", VisibleDevicesFor({g}, std::getenv("CUDA_VISIBLE_DEVICES"))}};
    ProcessOutcome o = RunProcess(spec, options_.probe_timeout_s);
    if (o.ok()) {
      detail += fmt::format("GPU {} healthy; ", g);
    } else {
      detail += fmt::format("GPU {} FAILED ({}), quarantined; ", g, o.Describe());
      pool_->Quarantine(g, "failed the health probe after " + rec->reason);
    }
  }
  st->seconds = SecondsSince(t);
  st->status = EvalStatus::kOk;
  st->detail = detail;
}

void Cascade::SkipStage(StageRecord* st, EvalRecord* rec, const std::string& why) {
  rec->status = st->status = EvalStatus::kSkipped;
  rec->reason = st->detail = why;
}

bool Cascade::LeaseGpus(StageRecord* st, EvalRecord* rec, GpuLease* lease) {
  if (workload_.language != "cuda") return true;
  if (slurm()) return true;  // Slurm gives the job its GPUs (--gres)
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
                              EvalRecord* rec, GpuSession* gpu, bool timing_only, int iters) {
  StageRecord* st = rec->Stage(stage);
  const bool cuda = workload_.language == "cuda";
  if (cuda && !has_gpus() && !slurm()) {
    st->status = EvalStatus::kSkipped;
    st->detail = "no GPU found: would run " + DescribeRun(stage, timing_only);
    if (rec->status == EvalStatus::kPending) {
      rec->status = EvalStatus::kSkipped;
      rec->reason = "no GPU found on this machine; compiled only (L1)";
    }
    return false;
  }
  if (cuda && !gpu->is_open()) {
    // The evaluation's GPUs, held to its end, with cuco's MPS daemon for them.
    GpuLease lease;
    if (!LeaseGpus(st, rec, &lease)) return false;
    gpu->Open(std::move(lease), toolchain_.gpus, timing_plan_);
  }
  if (cuda) rec->timing_method = gpu->method();
  auto t = Clock::now();  // after the lease: a stage's seconds exclude the wait for GPUs
  // Absolute: the supervisor runs in a working directory of its own (below).
  fs::path dir = fs::absolute(work_dir / stage);
  // Slurm: a job submitted for this stage by an earlier cuco (killed since) is adopted, with its
  // nonce, rather than run again; its files stay.
  const fs::path job_file = work_dir / ("slurm-" + stage + ".job");
  std::string adopt_job, nonce;
  if (slurm()) {
    auto text = ReadFile(job_file);
    std::istringstream in(text.ok() ? *text : "");
    in >> adopt_job >> nonce;
    if (nonce.empty()) adopt_job.clear();
  }
  std::error_code ec;
  if (adopt_job.empty()) fs::remove_all(dir, ec);
  fs::path metrics = dir / "metrics";
  const fs::path logs = dir / "logs";
  // The supervisor's working directory, empty at every stage: a user's program run as the reference
  // writes its files there (an id file for its bootstrap, say, which it removes only at the end of
  // a main the harness never lets it reach), never where cuco was started.
  const fs::path cwd = dir / "workdir";
  MakeDirs(metrics);
  MakeDirs(logs);
  MakeDirs(cwd);
  for (const std::string& folder : workload_.run_folders) MakeDirs(cwd / folder);
  // One supervisor process for all ranks; it starts the candidate's ranks inside the sandbox.
  RankJob job;
  job.argv = {fs::absolute(built.supervisor).string()};
  job.cwd = cwd.string();
  auto args = HarnessArgs(stage, timing_only, iters);
  job.argv.insert(job.argv.end(), args.begin(), args.end());
  job.argv.insert(job.argv.end(), {"--metrics-dir", metrics.string(), "--world", std::to_string(world_size_),
                                   "--candidate", fs::absolute(built.executable).string(), "--log-dir", logs.string(), "--workload",
                                   workload_.name, "--setup-limit", fmt::format("{}", SetupLimit(stage))});
  std::vector<int> gpus = cuda ? gpu->gpus() : std::vector<int>{};
  if (slurm() && cuda)
    for (int g = 0; g < world_size_; ++g) gpus.push_back(g);  // the job's own GPUs, numbered from 0
  auto confinement = ConfineCandidate(dir, built.executable, gpus, cuda ? gpu : nullptr, &job.argv);
  if (!confinement.ok()) {
    SkipStage(st, rec, confinement.status().message());
    return false;
  }
  rec->sandbox = *confinement;
  job.world_size = 1;
  job.gpus = gpus;
  if (cuda) {
    for (const auto& [k, v] : gpu->SupervisorEnv()) job.env[k] = v;
    if (gpu->mps()) job.gpus.clear();  // the server's devices, numbered from 0 (SupervisorEnv)
  }
  job.log_dir = logs.string();
  job.timeout_s = stage == "verify" ? workload_.verify_s : workload_.bench_s;
  if (nonce.empty()) nonce = Nonce();
  job.env["CUCO_RUN_NONCE"] = nonce;
  job.adopt_job = adopt_job;
  if (slurm())  // stored before the launcher waits for the job (outside what the candidate sees)
    job.on_submitted = [&](const std::string& id) { (void)WriteFileAtomic(job_file, id + " " + nonce + "\n"); };
  st->log_path = job.log_dir;
  auto outcome = (slurm() ? slurm_launcher_ : local_launcher_)->Run(job);
  st->seconds = SecondsSince(t);
  if (!outcome.ok()) {
    // Slurm's events past their retries (or a stop) are no verdict on the candidate: skipped.
    const bool infra = slurm() && outcome.status().code() == Status::Code::kUnavailable;
    st->status = infra ? EvalStatus::kSkipped : EvalStatus::kRuntimeError;
    st->detail = outcome.status().message();
    rec->status = st->status;
    rec->reason = (infra ? "slurm: " : "") + st->detail;
    return false;
  }
  return JudgeHarnessStage(stage, *outcome, dir, nonce, timing_only, st, rec, gpu);
}

// The stage's verdict from what its supervisor left: the launcher's outcome, the metrics and the GPU's
// evidence; fills st and rec. True when the stage passed (or was timed, for a bound part).
bool Cascade::JudgeHarnessStage(const std::string& stage, const JobOutcome& outcome, const fs::path& dir,
                                const std::string& nonce, bool timing_only, StageRecord* st, EvalRecord* rec,
                                GpuSession* gpu) {
  const bool cuda = workload_.language == "cuda";
  const fs::path metrics = dir / "metrics";
  const fs::path logs = dir / "logs";
  const std::string slurm_note =
      outcome.job_id.empty() ? ""
                              : fmt::format(" [Slurm job {}{}{}]", outcome.job_id, outcome.events.empty() ? "" : "; retried after: ",
                                            fmt::format("{}", fmt::join(outcome.events, "; ")));
  st->log_tail = RankLogsTail(outcome, 20) + CandidateLogsTail(logs, world_size_, 20);
  StageVerdict v = JudgeSupervisor(outcome, metrics.string());
  if (v.status == EvalStatus::kTimeout)  // where a program's reference waited, when it said
    if (const std::string where = ReferenceLastWords(outcome); !where.empty()) v.reason += "; " + where;
  if (v.interrupted) {
    MarkUnjudged(st, rec, fmt::format("{}: {}", stage, v.reason));
    return false;
  }
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
  if (cuda) JudgeGpuEvidence(stage, gpu, &v, rec);
  (stage == "verify" ? rec->verify_errors : rec->bench_errors) = v.errors;
  if (stage == "bench") rec->timing = v.timing;
  if (!cuda && rec->timing_method.empty())
    for (const auto& r : v.ranks)
      if (r.is_object() && r.contains("timing") && r["timing"].is_object() && r["timing"].contains("method") &&
          r["timing"]["method"].is_string())
        rec->timing_method = r["timing"]["method"].get<std::string>();
  rec->timing.method = rec->timing_method;
  if (!v.device.empty()) rec->device = v.device;
  rec->rank_metrics = v.ranks;
  st->status = v.status;
  if (rec->infrastructure_failure) {
    st->status = rec->status = EvalStatus::kSkipped;
    st->detail = v.reason + slurm_note;
    rec->reason = fmt::format("infrastructure: {}: {}", stage, v.reason);
    return false;
  }
  if (v.status == EvalStatus::kTimed) {
    st->detail = fmt::format("{:.4f} ms median (max over ranks); timing only: outputs NOT checked ({} alone, a bound part)",
                             v.timing.median_ms, rec->part == "comm" ? "communication" : "compute") +
                 slurm_note;
    return true;
  }
  if (v.status == EvalStatus::kOk) {
    st->detail = stage == "verify"
                     ? fmt::format("verified: rel L2 {:.3g}, max abs {:.3g} over {} checks", v.errors.rel_l2,
                                   v.errors.max_abs, v.errors.checks)
                     : fmt::format("{:.4f} ms median (max over ranks), {} sampled checks passed (rel L2 {:.3g})",
                                   v.timing.median_ms, v.errors.checks, v.errors.rel_l2);
    st->detail += slurm_note;
    return true;
  }
  st->detail = v.reason + slurm_note;
  rec->status = v.status;
  rec->reason = fmt::format("{}: {}", stage, v.reason);
  // A killed or crashed run may leave a GPU wedged: check before anyone uses it again (once cuco's
  // MPS daemon is gone, CloseGpuSession).
  if (cuda && (v.status == EvalStatus::kTimeout || v.status == EvalStatus::kCrashed ||
               v.status == EvalStatus::kRuntimeError || outcome.unkillable))
    gpu->probe_after = true;
  return false;
}

// Whether program mode can run here: false, with the stage and the record skipped and why, under
// Slurm, with no GPU for a CUDA workload, or when the workload wants an mpirun that is absent.
bool Cascade::ProgramStageRunnable(const std::string& exe, StageRecord* st, EvalRecord* rec) {
  if (slurm()) {  // its ranks would run here, with no GPUs of Slurm's: said, never run that way
    SkipStage(st, rec,
              "a program-mode workload does not run through Slurm yet (docs/cluster.md): evaluate it with "
              "--launcher local on a machine with its GPUs, or send its harness workload (`cuco init` wrote it "
              "beside, in harness/) through Slurm");
    return false;
  }
  if (workload_.language == "cuda" && !has_gpus()) {
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
  return true;
}

// Wraps the program's job (its argv, job->world_size processes) in one sandbox holding every rank:
// mpirun inside it, or cuco-sandbox-exec starting the ranks (their NCCL id goes through
// CUCO_RENDEZVOUS_DIR, the sandbox's private /tmp). The job becomes one process, whose output is
// rank 0's log. An error when there is no sandbox.
Status Cascade::SandboxProgramJob(const fs::path& dir, const std::string& exe, const std::vector<int>& gpus,
                                  RankJob* job) const {
  const bool mpirun = ProgramUsesMpirun();
  const bool single = workload_.program->launcher == "single";
  auto env = CandidateEnvironment(gpus, true);
  env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
  // Open MPI looks for ssh/rsh at start even when every rank is local; the sandbox has neither.
  env["OMPI_MCA_plm_rsh_agent"] = env["PRTE_MCA_plm_rsh_agent"] = "false";
  env["CUCO_RENDEZVOUS_DIR"] = "/tmp";
  env.emplace("NCCL_SOCKET_IFNAME", "lo");  // the sandbox has no other network device
  env.emplace("MASTER_ADDR", "127.0.0.1");  // torchrun-style programs meet there (the sandbox's own lo)
  env.emplace("MASTER_PORT", "29500");
  auto prefix = CandidateSandbox(dir, exe, gpus, env, mpirun || single ? 0 : job->world_size, -1, nullptr);
  if (!prefix.ok()) return prefix.status();
  std::vector<std::string> argv = *prefix;
  if (mpirun) argv.insert(argv.end(), {toolchain_.mpirun, "-np", std::to_string(world_size_)});
  argv.insert(argv.end(), job->argv.begin(), job->argv.end());
  job->argv = argv;
  job->world_size = 1;  // one sandbox; its output is rank 0's log
  return Status::Ok();
}

namespace {

// What a program's ranks said of themselves (untrusted): every rank's log is read.
struct ProgramClaims {
  bool passed = false, failed = false;
  double worst_ms = -1;        // the slowest time printed; -1 when none matched
  std::vector<double> times;   // every time printed, in the order of the ranks' logs
};

ProgramClaims ReadProgramClaims(const JobOutcome& outcome, const ProgramSpec& p) {
  ProgramClaims c;
  for (const auto& r : outcome.ranks) {
    auto text = ReadFile(r.log_path);
    if (!text.ok()) continue;
    if (std::regex_search(*text, std::regex(p.pass_regex))) c.passed = true;
    if (!p.fail_regex.empty() && std::regex_search(*text, std::regex(p.fail_regex))) c.failed = true;
    std::smatch m;
    std::string::const_iterator from = text->cbegin();
    std::regex time_re(p.time_regex);
    while (std::regex_search(from, text->cend(), m, time_re)) {
      try {
        double ms = std::stod(m[1].str());
        c.times.push_back(ms);
        c.worst_ms = std::max(c.worst_ms, ms);
      } catch (...) {
      }
      from = m.suffix().first;
    }
  }
  return c;
}

}  // namespace

// The program stage's verdict from its ranks' own words (JudgeJob has passed it): its pass and
// fail patterns, and the slowest time printed as the record's timing. Fills st and rec.
bool Cascade::JudgeProgramOutput(const JobOutcome& outcome, StageRecord* st, EvalRecord* rec) {
  const ProgramClaims c = ReadProgramClaims(outcome, *workload_.program);
  if (c.failed || !c.passed) {
    rec->status = st->status = EvalStatus::kWrongResult;
    rec->reason = st->detail = c.failed ? "the program printed its failure pattern" : "the program never printed its pass pattern";
    return false;
  }
  if (c.worst_ms < 0) {
    rec->status = st->status = EvalStatus::kRuntimeError;
    rec->reason = st->detail = "no time matched program.time_regex in the program's output";
    return false;
  }
  rec->timing.median_ms = c.worst_ms;
  rec->timing.p10_ms = rec->timing.p90_ms = c.worst_ms;
  rec->timing.rank_median_ms = c.times;
  rec->timing.iters = 1;
  rec->timing_method = rec->timing.method = "the program's own output (program mode: untrusted, not cuco's timer)";
  st->status = EvalStatus::kOk;
  st->detail = fmt::format("program says PASS and {:.4f} ms (UNTRUSTED: parsed from its own output)", c.worst_ms);
  return true;
}

bool Cascade::RunProgram(const std::string& exe, const fs::path& work_dir, EvalRecord* rec) {
  StageRecord* st = rec->Stage("program");
  if (!ProgramStageRunnable(exe, st, rec)) return false;
  GpuLease lease;
  if (!LeaseGpus(st, rec, &lease)) return false;
  auto t = Clock::now();  // after the lease: a stage's seconds exclude the wait for GPUs
  fs::path dir = work_dir / "program";
  std::error_code ec;
  fs::remove_all(dir, ec);
  RankJob job;
  job.argv = {exe};
  job.argv.insert(job.argv.end(), workload_.program->args.begin(), workload_.program->args.end());
  // One process drives every GPU of the lease itself, or one process per rank.
  job.world_size = workload_.program->launcher == "single" ? 1 : world_size_;
  Launcher* launcher = launcher_.get();
  rec->sandbox = kUnsandboxed;
  if (!options_.unsafe_no_sandbox) {
    Status sandboxed = SandboxProgramJob(dir, exe, lease.gpus(), &job);
    if (!sandboxed.ok()) {
      SkipStage(st, rec, sandboxed.message());
      return false;
    }
    launcher = local_launcher_.get();
    rec->sandbox = SandboxName();
  }
  job.gpus = lease.gpus();
  job.log_dir = (dir / "logs").string();
  job.rendezvous_dir = (dir / "rendezvous").string();
  job.timeout_s = workload_.bench_s;
  st->log_path = job.log_dir;
  auto outcome = launcher->Run(job);
  st->seconds = SecondsSince(t);
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
    if (workload_.language == "cuda") ProbeGpus(lease.gpus(), rec);
    return false;
  }
  return JudgeProgramOutput(*outcome, st, rec);
}

}  // namespace cuco
