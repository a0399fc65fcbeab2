// The cascade evaluator: one candidate through L0 scan (frozen code, deny-list)
// -> L1 compile -> L2 run and verify on the small problem -> L3 benchmark on the
// real sizes (verified again), each stage stopping the cascade on failure.
//
// Thread-safe: several threads may call Evaluate() at once; compiles overlap
// GPU runs, and concurrent GPU runs get disjoint GPU sets from the pool. A
// stage that hangs is killed with its whole process group, and its GPUs are
// probed before anyone uses them again (a GPU that fails is quarantined).
//
// One class, five files: cascade.cc (set-up, Evaluate's order of stages, bound parts),
// cascade_scan_compile.cc (L0, L1), cascade_runs.cc (L2, L3: GPU leases, the supervisor or the
// program, GPU probes), cascade_gpu.cc (the evaluation's GPU session: cuco's MPS daemon, the GPU
// state as evidence) and cascade_confinement.cc (sandbox and environment of the candidate).
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <optional>
#include <string>

#include "evaluate/builder.h"
#include "evaluate/gpu_session.h"
#include "evaluate/judge.h"
#include "evaluate/object_check.h"
#include "evaluate/outcome.h"
#include "launch/gpu_pool.h"
#include "launch/launcher.h"
#include "launch/slurm_commands.h"
#include "toolchain/toolchain.h"
#include "workload/workload_config.h"

namespace cuco {

struct CascadeOptions {
  std::filesystem::path cache_dir;   // compile cache
  std::vector<int> gpus;             // GPU ids to use; empty = every detected GPU
  int world_size = 0;                // 0 = the workload's default
  bool skip_deny_scan = false;       // for cuco's own tests of the runtime checks only
  bool compile_only = false;         // stop after L1
  // With compile_only, or where no GPU is here (nothing can run): candidates' device code is
  // compiled without optimisation (Builder::set_unoptimized), to check that they build, faster.
  // Their objects are cached apart from optimised ones and never run.
  bool unoptimized = false;
  int max_parallel_compiles = 2;
  double probe_timeout_s = 60;
  // Run candidates without the sandbox (bwrap + seccomp): only for machines that cannot have one,
  // and every record then says "UNSANDBOXED". Without it, a machine with no working sandbox
  // refuses to run candidates (status skipped, with the reason).
  bool unsafe_no_sandbox = false;
  // Where the supervisor (and so the candidate's ranks) runs: "local", or "slurm" (a Slurm job or
  // step per stage, slurm_launcher.h; CUDA stages then take their GPUs from Slurm, not the pool,
  // and work_dir/slurm-<stage>.job holds the job id so that a resumed search adopts the job).
  std::string launcher = "local";
  SlurmOptions slurm;
};

// Per-call settings of Cascade::Evaluate. The default is the full cascade; nothing a candidate
// writes can change them.
struct EvaluateOptions {
  bool compile_only = false;  // stop after L1 (e.g. to compile every entry up front, in parallel)
  // Timing only, for the overlap bound: the name of one of the workload's [[variants]] entries
  // with `part` set (compute alone / communication alone). L2 is skipped and L3 runs with the
  // harness's --timing-only (fresh inputs, poison, join, events, tails; no reference checks); the
  // record's status is kTimed, "unverified (bound part)", never kOk. Evaluate rejects the call
  // unless `code` is exactly MaterializeVariant() of that part: a candidate never runs unchecked.
  std::string bound_part;
  // A search's best so far (the upper end of its median's 95% interval, ms; 0: none). A candidate
  // whose bench is imprecise or noisy is timed again unless its own interval lies wholly above this:
  // it is slower than the best either way, and a longer bench would not change what the search does.
  double retime_unless_above_ms = 0;
};

// A [[variants]] entry as a candidate file: its file (relative to the workload folder) with its
// knob values set (ApplyKnobs).
Result<std::string> MaterializeVariant(const WorkloadConfig& workload, const Variant& variant);

// Marks the stage (when given) and the record not judged (EvalRecord::interrupted): status kPending,
// the reason `why` and that it is evaluated again.
void MarkUnjudged(StageRecord* st, EvalRecord* rec, const std::string& why);

class Cascade {
 public:
  Cascade(WorkloadConfig workload, Toolchain toolchain, CascadeOptions options);

  // Evaluates `code` (the whole candidate file; `label` names it in messages).
  // Logs, metrics files and rendezvous folders go under `work_dir`. Interrupts never judge: an
  // evaluation during which cuco received one (launch/interrupts.h) and that did not pass, or one
  // whose compile, object check or supervisor a signal stopped, comes back not judged
  // (EvalRecord::interrupted, status kPending).
  EvalRecord Evaluate(const std::string& code, const std::string& label, const std::filesystem::path& work_dir,
                      const EvaluateOptions& call = {});

  const WorkloadConfig& workload() const { return workload_; }
  // How CUDA stages will be timed (cuco's own MPS daemon per evaluation, or time-sliced and why),
  // decided when the cascade is made: commands print its Line() before they evaluate anything.
  const TimingPlan& timing_plan() const { return timing_plan_; }
  const Toolchain& toolchain() const { return toolchain_; }
  int world_size() const { return world_size_; }
  bool has_gpus() const { return gpu_count_ > 0; }
  GpuPool& pool() { return *pool_; }
  // What a stage would run, as a shell-like line (for "no GPU here" messages).
  std::string DescribeRun(const std::string& stage, bool timing_only = false) const;

 private:
  EvalRecord EvaluateStages(const std::string& code, const std::string& label, const std::filesystem::path& work_dir,
                            const EvaluateOptions& call);
  bool Scan(const std::string& code, const std::string& label, const std::filesystem::path& work_dir, EvalRecord* rec);
  Status ScanPreprocessed(const std::string& code, const std::string& label, const std::filesystem::path& work_dir);
  bool Compile(const std::string& code, EvalRecord* rec, BuildResult* built);
  // L2 and L3 of harness mode on the evaluation's GPU session (opened by the first stage, closed by
  // the caller): verify then bench, or a bound part's bench alone.
  void RunHarnessStages(const BuildResult& built, const std::filesystem::path& work_dir, EvalRecord* rec,
                        bool timing_only, GpuSession* gpu, double retime_unless_above_ms);
  // `iters` as HarnessArgs. `gpu`: the evaluation's session, opened here when it is not yet.
  bool RunHarnessStage(const std::string& stage, const BuildResult& built, const std::filesystem::path& work_dir,
                       EvalRecord* rec, GpuSession* gpu, bool timing_only = false, int iters = 0);
  bool JudgeHarnessStage(const std::string& stage, const JobOutcome& outcome, const std::filesystem::path& dir,
                         const std::string& nonce, bool timing_only, StageRecord* st, EvalRecord* rec, GpuSession* gpu);
  // After a bench whose median is imprecise (TimingFigures::Imprecise: its 95% interval wider than
  // +-kMedianPrecision) or whose iterations spread widely (TimingFigures::Noisy): the bench again
  // over more iterations (RetimeIterations; kNoisyRetimeFactor times them for a spread alone); its
  // figures replace the first's, which the stage's detail keeps. A candidate cannot win on a noisy
  // short measurement alone, and a median still imprecise after it says so in the record.
  void RetimeNoisy(const BuildResult& built, const std::filesystem::path& work_dir, EvalRecord* rec, GpuSession* gpu);
  // A stage's GPU-state evidence (gpu_state_check.h, and what changed in cuco's MPS daemon) turned
  // into the verdict: the candidate's doing rejects it; the machine's makes the stage an
  // infrastructure failure (rec->infrastructure_failure; the evaluation runs again).
  void JudgeGpuEvidence(const std::string& stage, GpuSession* gpu, StageVerdict* v, EvalRecord* rec);
  // Ends the session: stops the daemon, probes the GPUs when a stage asked for it, records the
  // session, gives the GPUs back.
  void CloseGpuSession(GpuSession* gpu, EvalRecord* rec);
  bool RunProgram(const std::string& exe, const std::filesystem::path& work_dir, EvalRecord* rec);
  // RunProgram's steps: whether it can run here (else the stage skipped, saying why), its job
  // wrapped in one sandbox, and the verdict from the program's own output.
  bool ProgramStageRunnable(const std::string& exe, StageRecord* st, EvalRecord* rec);
  Status SandboxProgramJob(const std::filesystem::path& dir, const std::string& exe, const std::vector<int>& gpus,
                           RankJob* job) const;
  bool JudgeProgramOutput(const JobOutcome& outcome, StageRecord* st, EvalRecord* rec);
  // `iters`: timed iterations (0: the workload's [timing] iters).
  std::vector<std::string> HarnessArgs(const std::string& stage, bool timing_only = false, int iters = 0) const;
  // Adds to the supervisor's argv how to confine the candidate's ranks (the sandbox prefix, written
  // to <stage_dir>/sandbox.argv, or the explicit environment when unsandboxed) and returns what
  // confines them, for the record. Unavailable when there is no sandbox and no --unsafe-no-sandbox.
  Result<std::string> ConfineCandidate(const std::filesystem::path& stage_dir, const std::string& executable,
                                       const std::vector<int>& gpus, const GpuSession* gpu,
                                       std::vector<std::string>* argv) const;
  // The explicit environment of a candidate's processes, and the sandbox prefix that confines them
  // (ranks > 0: cuco-sandbox-exec starts that many; fd_base >= 0: their sockets and logs, as the
  // supervisor passes them).
  // `sandboxed`: inside a sandbox holding only these GPUs' device nodes, numbered from 0 there in
  // bus order.
  std::map<std::string, std::string> CandidateEnvironment(const std::vector<int>& gpus, bool sandboxed) const;
  // The /dev/nvidiaN minors of `gpus` (this process's CUDA ordinals), through their PCI bus ids.
  std::vector<int> DeviceMinors(const std::vector<int>& gpus) const;
  std::vector<std::string> BusIds(const std::vector<int>& gpus) const;  // "" where unknown
  Result<std::vector<std::string>> CandidateSandbox(const std::filesystem::path& stage_dir, const std::string& executable,
                                                    const std::vector<int>& gpus,
                                                    std::map<std::string, std::string> env, int ranks,
                                                    int fd_base, const GpuSession* gpu) const;
  std::string SandboxName() const;
  bool ProgramUsesMpirun() const;
  static constexpr const char* kUnsandboxed = "none (--unsafe-no-sandbox)";
  // The supervisor's limit for the candidate's start-up, setup and teardown.
  double SetupLimit(const std::string& stage) const;
  bool CheckBoundPart(const std::string& code, const std::string& part_name, EvalRecord* rec);
  // ProgramOwnOf a frozen reference object, read once per object (not once per candidate).
  Result<ProgramOwn> ProgramOwnOfReference(const std::string& reference_object);
  void ProbeGpus(const std::vector<int>& gpus, EvalRecord* rec);
  // Marks the stage and the record skipped, both saying `why`.
  void SkipStage(StageRecord* st, EvalRecord* rec, const std::string& why);
  // CUDA workloads: a lease of world_size GPUs (recorded in rec->gpus); false, with the stage
  // skipped, when the pool cannot give one. CPU workloads: true, no lease.
  bool LeaseGpus(StageRecord* st, EvalRecord* rec, GpuLease* lease);
  // The GPUs' readings from earlier evaluations, for the ranks of `ranks` (by the bus id each
  // reports); a reading absent where there is none yet. Remember: the first clean baseline of
  // each GPU becomes its reference.
  std::vector<GpuReading> GpuReferences(const nlohmann::json& ranks, bool mps);
  void RememberGpuReferences(const nlohmann::json& ranks, bool mps, const std::vector<GpuReading>& baseline);
  bool slurm() const { return slurm_launcher_ != nullptr; }

  WorkloadConfig workload_;
  Toolchain toolchain_;
  CascadeOptions options_;
  TimingPlan timing_plan_;
  std::mutex gpu_state_mu_;
  std::map<std::string, GpuReading> gpu_references_;  // "<bus id> mps|no-mps" -> its first clean baseline
  std::map<int, int> gpu_strikes_;  // GPU -> evaluations in a row that found it changed before the candidate ran
  std::string seed_code_;
  std::string frozen_code_, frozen_path_;  // what candidates' frozen text must match (the seed, or an annotated generation 0)
  
  int world_size_ = 1;
  int gpu_count_ = 0;
  std::unique_ptr<Builder> builder_;
  std::unique_ptr<GpuPool> pool_;
  std::unique_ptr<Launcher> launcher_;        // program mode, unsandboxed: the workload's launcher
  std::unique_ptr<Launcher> local_launcher_;  // the supervisor, and sandboxed programs
  std::unique_ptr<Launcher> slurm_launcher_;  // the supervisor under launcher = "slurm"
  std::mutex program_own_mu_;
  std::map<std::string, ProgramOwn> program_own_;  // reference object -> ProgramOwnOf
  std::mutex compile_mu_;
  std::condition_variable compile_cv_;
  int compiles_running_ = 0;
};

}  // namespace cuco
