#include "launch/launcher.h"

#include <atomic>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "launch/gpu_visibility.h"
#include "launch/process_group.h"
#include "util/files.h"

namespace cuco {

using namespace launch_internal;  // NOLINT: internal to src/launch

namespace {

Status Validate(const RankJob& job) {
  if (job.argv.empty() || job.argv[0].empty()) return Status::InvalidArgument("rank job: empty argv");
  if (!job.adopt_job.empty()) return Status::InvalidArgument("rank job: only a Slurm launcher adopts jobs");
  if (job.world_size < 1) {
    return Status::InvalidArgument("rank job: world_size " + std::to_string(job.world_size) + " < 1");
  }
  if (!job.gpus.empty() && static_cast<int>(job.gpus.size()) < job.world_size) {
    return Status::InvalidArgument("rank job: " + std::to_string(job.gpus.size()) + " GPUs for " +
                                   std::to_string(job.world_size) + " ranks");
  }
  std::set<int> seen;
  for (int g : job.gpus) {
    if (g < 0 || !seen.insert(g).second) return Status::InvalidArgument("rank job: bad or repeated GPU " + std::to_string(g));
  }
  return Status::Ok();
}

// The program `name` would run as for `spec`, if it exists and is executable; "" otherwise.
std::string FindRunnable(const std::string& name, const ProcessSpec& spec) {
  std::string exe = ResolveProgram(name, ChildPath(spec));
  if (exe.empty() || exe.find('/') == std::string::npos) return exe;
  std::filesystem::path p(exe);
  if (p.is_relative() && !spec.cwd.empty()) p = std::filesystem::path(spec.cwd) / p;
  return ::access(p.c_str(), X_OK) == 0 ? exe : "";
}

std::string LogPath(const RankJob& job, int rank) {
  if (job.log_dir.empty()) return "";
  return (std::filesystem::path(job.log_dir) / ("rank" + std::to_string(rank) + ".log")).string();
}

}  // namespace

// The environment every rank shares; RankSpec adds the per-rank part.
Result<std::map<std::string, std::string>> CommonRankEnv(const RankJob& job) {
  if (!job.log_dir.empty()) CUCO_RETURN_IF_ERROR(MakeDirs(job.log_dir));
  std::map<std::string, std::string> env = job.env;
  env["CUCO_WORLD_SIZE"] = env["WORLD_SIZE"] = std::to_string(job.world_size);
  env["CUCO_LOCAL_WORLD_SIZE"] = env["LOCAL_WORLD_SIZE"] = std::to_string(job.world_size);
  // torchrun's rendezvous names, for programs written for it; a port per job of this process.
  static std::atomic<int> jobs{0};
  env.emplace("MASTER_ADDR", "127.0.0.1");
  env.emplace("MASTER_PORT", std::to_string(20000 + (static_cast<int>(::getpid()) * 31 + jobs++) % 20000));
  if (!job.rendezvous_dir.empty()) {
    CUCO_RETURN_IF_ERROR(MakeDirs(job.rendezvous_dir));
    std::error_code ec;
    std::filesystem::path abs = std::filesystem::absolute(job.rendezvous_dir, ec);  // ranks may run elsewhere
    env["CUCO_RENDEZVOUS_DIR"] = ec ? job.rendezvous_dir : abs.lexically_normal().string();
  }
  if (!job.gpus.empty()) env["CUDA_VISIBLE_DEVICES"] = VisibleDevicesFor(job.gpus, std::getenv("CUDA_VISIBLE_DEVICES"));
  for (const auto& [k, v] : NoMulticastEnv()) env[k] = v;
  return env;
}

namespace {

// One job's ranks under the local launcher, from their start to their reaping: the ranks' pids,
// which still run, their process group (rank 0 leads it) and the outcome being filled.
class LocalJobRun {
 public:
  explicit LocalJobRun(const RankJob& job) : job_(job), n_(job.world_size), pids_(n_, -1), running_(n_, false) {}

  // Starts every rank from `base`, in one process group; after a rank fails to start, the later
  // ones are recorded as not started.
  void StartRanks(const ProcessSpec& base) {
    for (int r = 0; r < n_; ++r) {
      RankOutcome& ro = out_.ranks.emplace_back();
      ro.rank = r;
      ro.log_path = LogPath(job_, r);
      if (out_.first_failed_rank >= 0) {  // an earlier rank could not start: the job cannot work
        ro.outcome.start_error = "not started: rank " + std::to_string(out_.first_failed_rank) + " failed to start";
        continue;
      }
      ProcessSpec spec = base;
      spec.env_set["CUCO_RANK"] = spec.env_set["RANK"] = std::to_string(r);
      spec.env_set["CUCO_LOCAL_RANK"] = spec.env_set["LOCAL_RANK"] = std::to_string(r);
      spec.stdout_path = spec.stderr_path = ro.log_path;
      Started started = Spawn(spec, pgid_);
      if (!started.error.empty()) {
        ro.outcome.start_error = started.error;
        NoteFailure(r);
        continue;
      }
      pids_[r] = started.pid;
      running_[r] = true;
      ro.outcome.started = true;
      if (r == 0) pgid_ = started.pid;
    }
  }

  // Waits until every rank has exited, the job's timeout passes (out.timed_out), or a rank failed
  // (to start, or by its exit) and the peers' grace after it has passed.
  void WaitForRanks(double peer_failure_grace_s) {
    Backoff backoff;
    bool kill_now = out_.first_failed_rank >= 0;  // a rank failed to start
    while (!kill_now && RecordExits(false)) {
      double left = job_.timeout_s > 0 ? job_.timeout_s - SecondsSince(t0_) : 1.0;
      if (left <= 0) {
        out_.timed_out = true;
        break;
      }
      if (out_.first_failed_rank >= 0) {
        double grace_left = peer_failure_grace_s - SecondsSince(failed_at_);
        if (grace_left <= 0) break;
        left = std::min(left, grace_left);
      }
      backoff.Wait(left);
    }
  }

  // Ends the process group (what still runs is terminated, term_grace_s before SIGKILL), records the
  // last exits, reaps every rank (the leader last) and returns the job's outcome.
  JobOutcome Finish(double term_grace_s) {
    if (pgid_ > 0) {
      // Rank 0 is unreaped until the end, so pgid still names our group.
      bool any_running = std::find(running_.begin(), running_.end(), true) != running_.end();
      bool gone = true;
      if (any_running || GroupHasLiveMembers(pgid_)) {
        std::vector<pid_t> roots;
        for (pid_t p : pids_) {
          if (p > 0) roots.push_back(p);
        }
        gone = TerminateGroup(pgid_, roots, term_grace_s);
      }
      RecordExits(true);
      UnregisterGroup(pgid_);
      for (int r = n_ - 1; r >= 0; --r) {  // the leader, rank 0, last
        if (pids_[r] <= 0) continue;
        if (running_[r]) {
          ProcessOutcome& o = out_.ranks[r].outcome;
          o.signal = SIGKILL;
          o.timed_out = out_.timed_out;
          o.unkillable = true;
          o.wall_s = SecondsSince(t0_);
        }
        Reap(pids_[r], !running_[r]);
      }
      out_.unkillable = !gone;
    }
    out_.wall_s = SecondsSince(t0_);
    return std::move(out_);
  }

 private:
  void NoteFailure(int rank) {
    if (out_.first_failed_rank < 0) {
      out_.first_failed_rank = rank;
      failed_at_ = Clock::now();
    }
  }

  // Records the exit of every rank that has exited since (unreaped); true while one still runs.
  // `after_kill`: the exits cuco caused, no failure of the rank's own.
  bool RecordExits(bool after_kill) {
    bool any_running = false;
    for (int r = 0; r < n_; ++r) {
      if (!running_[r]) continue;
      std::optional<ProcessOutcome> e = PeekExit(pids_[r]);
      if (!e) {
        any_running = true;
        continue;
      }
      ProcessOutcome& o = out_.ranks[r].outcome;
      o.exit_code = e->exit_code;
      o.signal = e->signal;
      o.timed_out = after_kill && out_.timed_out;
      o.wall_s = SecondsSince(t0_);
      running_[r] = false;
      if (!after_kill && (o.signal != 0 || o.exit_code != 0)) NoteFailure(r);
    }
    return any_running;
  }

  const RankJob& job_;
  const int n_;
  Clock::time_point t0_ = Clock::now();
  JobOutcome out_;
  std::vector<pid_t> pids_;
  std::vector<bool> running_;
  pid_t pgid_ = 0;
  Clock::time_point failed_at_;
};

class LocalLauncher : public Launcher {
 public:
  explicit LocalLauncher(const LauncherOptions& options) : options_(options) {}
  std::string Name() const override { return "local"; }

  Result<JobOutcome> Run(const RankJob& job) override {
    CUCO_RETURN_IF_ERROR(Validate(job));
    Result<std::map<std::string, std::string>> env = CommonRankEnv(job);
    if (!env.ok()) return env.status();
    ProcessSpec base;
    base.argv = job.argv;
    base.env_set = std::move(*env);
    base.cwd = job.cwd;
    base.stdin_data = job.stdin_data;
    if (FindRunnable(job.argv[0], base).empty()) {
      return Status::NotFound(job.argv[0] + ": not found in PATH");
    }
    LocalJobRun run(job);  // the job's wall clock starts here, before its first rank
    run.StartRanks(base);
    run.WaitForRanks(options_.peer_failure_grace_s);
    return run.Finish(options_.term_grace_s);
  }

 private:
  LauncherOptions options_;
};

// Sets the per-rank variables from what the MPI launcher gives each rank, then runs the command.
constexpr const char* kMpiRankShim =
    "CUCO_RANK=\"${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-0}}}\"; "
    "CUCO_LOCAL_RANK=\"${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-$CUCO_RANK}}\"; "
    "export CUCO_RANK CUCO_LOCAL_RANK; exec \"$@\"";

class MpirunLauncher : public Launcher {
 public:
  MpirunLauncher(std::string mpirun, std::vector<std::string> extra_args, const LauncherOptions& options)
      : mpirun_(std::move(mpirun)), extra_args_(std::move(extra_args)), options_(options) {}
  std::string Name() const override { return "mpirun"; }

  Result<JobOutcome> Run(const RankJob& job) override {
    CUCO_RETURN_IF_ERROR(Validate(job));
    Result<std::map<std::string, std::string>> env = CommonRankEnv(job);
    if (!env.ok()) return env.status();
    ProcessSpec spec;
    spec.env_set = std::move(*env);
    spec.cwd = job.cwd;
    std::string mpirun = FindRunnable(mpirun_, spec);
    if (mpirun.empty()) return Status::NotFound(mpirun_ + ": not found in PATH");
    std::string program = FindRunnable(job.argv[0], spec);
    if (program.empty()) return Status::NotFound(job.argv[0] + ": not found in PATH");

    spec.argv = {mpirun, "-np", std::to_string(job.world_size)};
    spec.argv.insert(spec.argv.end(), extra_args_.begin(), extra_args_.end());
    if (!job.stdin_data.empty()) spec.argv.insert(spec.argv.end(), {"--stdin", "all"});
    for (const auto& [k, v] : spec.env_set) spec.argv.insert(spec.argv.end(), {"-x", k});
    spec.argv.insert(spec.argv.end(), {"/bin/sh", "-c", kMpiRankShim, "cuco-rank", program});
    spec.argv.insert(spec.argv.end(), job.argv.begin() + 1, job.argv.end());
    spec.env_set["OMPI_ALLOW_RUN_AS_ROOT"] = "1";
    spec.env_set["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1";
    spec.stdin_data = job.stdin_data;
    spec.stdout_path = spec.stderr_path = LogPath(job, 0);
    spec.term_grace_s = options_.term_grace_s;

    ProcessOutcome o = RunProcess(spec, job.timeout_s);
    JobOutcome out;
    out.timed_out = o.timed_out;
    out.unkillable = o.unkillable;
    out.wall_s = o.wall_s;
    if (!o.timed_out && (!o.started || o.signal != 0 || o.exit_code != 0)) out.first_failed_rank = 0;
    out.ranks.push_back({0, o, spec.stdout_path});
    return out;
  }

 private:
  std::string mpirun_;
  std::vector<std::string> extra_args_;
  LauncherOptions options_;
};

}  // namespace

const std::map<std::string, std::string>& NoMulticastEnv() {
  static const std::map<std::string, std::string> env = {
      {"NCCL_NVLS_ENABLE", "0"},
      {"NVSHMEM_DISABLE_NVLS", "1"},
      {"TORCH_SYMM_MEM_DISABLE_MULTICAST", "1"},
  };
  return env;
}

std::unique_ptr<Launcher> MakeLocalLauncher(const LauncherOptions& options) {
  return std::make_unique<LocalLauncher>(options);
}

std::unique_ptr<Launcher> MakeMpirunLauncher(const std::string& mpirun_path, std::vector<std::string> extra_args,
                                             const LauncherOptions& options) {
  return std::make_unique<MpirunLauncher>(mpirun_path, std::move(extra_args), options);
}

}  // namespace cuco
