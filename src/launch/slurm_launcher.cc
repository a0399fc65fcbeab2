// The Slurm launcher (slurm_launcher.h): batch jobs tracked with scontrol, or srun steps.
#include "launch/slurm_launcher.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "launch/spawn.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The jobs this process submitted and has not collected, and the stop flag.
std::mutex g_mu;
std::set<std::string> g_live;
bool g_stop = false;

void Forget(const std::string& id) {
  std::lock_guard<std::mutex> l(g_mu);
  g_live.erase(id);
}

void Cancel(const std::string& id) { RunCapture(ScancelArgv({id}), 30); }

// The batch script: the job's environment, its directory, the command, and its exit status written
// to `exit_file` (through a rename) before the job ends.
std::string Script(const RankJob& job, const std::map<std::string, std::string>& env, const std::string& exit_file,
                   const std::string& stdin_file) {
  std::string s = "#!/bin/sh\n# cuco's Slurm job (src/launch/slurm_launcher.h)\n";
  for (const auto& [k, v] : env) s += "export " + k + "=" + Quote(v) + "\n";
  if (!job.cwd.empty()) s += "cd " + Quote(job.cwd) + " || exit 97\n";
  for (const auto& a : job.argv) s += Quote(a) + " ";
  s += "<" + Quote(stdin_file.empty() ? "/dev/null" : stdin_file) + "\nrc=$?\n";
  s += "echo $rc >" + Quote(exit_file + ".tmp") + " && mv " + Quote(exit_file + ".tmp") + " " + Quote(exit_file) + "\n";
  s += "exit $rc\n";
  return s;
}

// The exit status the script wrote: exit code, or a signal when > 128 (the shell's convention).
bool ReadExit(const std::string& exit_file, ProcessOutcome* o) {
  auto text = ReadFile(exit_file);
  if (!text.ok() || text->empty()) return false;
  int rc = std::atoi(text->c_str());
  o->started = true;
  if (rc > 128) o->signal = rc - 128;
  else o->exit_code = rc;
  return true;
}

class SlurmLauncher : public Launcher {
 public:
  explicit SlurmLauncher(const SlurmOptions& o) : o_(o), steps_(SlurmMode(o) == "steps") {}
  std::string Name() const override { return "slurm"; }

  Result<JobOutcome> Run(const RankJob& job) override {
    if (job.argv.empty() || job.world_size < 1) return Status::InvalidArgument("slurm job: empty argv or world size");
    auto env = CommonRankEnv(job);
    if (!env.ok()) return env.status();
    env->erase("CUDA_VISIBLE_DEVICES");  // Slurm sets it to the GPUs it gives the job
    env->erase("MASTER_ADDR");
    (*env)["CUCO_RANK"] = (*env)["RANK"] = (*env)["CUCO_LOCAL_RANK"] = (*env)["LOCAL_RANK"] = "0";
    const fs::path dir = job.log_dir.empty() ? fs::temp_directory_path() : fs::path(job.log_dir);
    CUCO_RETURN_IF_ERROR(MakeDirs(dir));
    Paths p{(dir / "slurm.sh").string(), (dir / "slurm.exit").string(), (dir / "rank0.log").string(), ""};
    if (!job.stdin_data.empty()) {
      p.stdin_file = (dir / "slurm.stdin").string();
      CUCO_RETURN_IF_ERROR(WriteFileAtomic(p.stdin_file, job.stdin_data));
    }
    if (job.adopt_job.empty()) CUCO_RETURN_IF_ERROR(WriteFileAtomic(p.script, Script(job, *env, p.exit, p.stdin_file)));
    SlurmShape shape = ShapeForWorld(1, 1, false);
    shape.gpus_per_node = static_cast<int>(job.gpus.size());
    shape.time_limit_s = job.timeout_s > 0 ? job.timeout_s + o_.time_margin_s : 0;
    shape.output = p.log;
    shape.job_name = "cuco";
    JobOutcome out;
    auto t0 = Clock::now();
    Slot slot(this);
    for (int attempt = 0;; ++attempt) {
      std::error_code ec;
      if (attempt > 0 || job.adopt_job.empty()) fs::remove(p.exit, ec);
      std::string event;
      Status s = steps_ ? RunStep(job, shape, p, &out, &event)
                        : RunJob(job, attempt == 0 ? job.adopt_job : "", shape, p, &out, &event);
      if (!s.ok()) return s;
      if (event.empty()) break;
      out.events.push_back(event);
      if (attempt >= o_.retries)
        return Status::Unavailable(fmt::format("infrastructure: {} (gave up after {} retries)",
                                               fmt::join(out.events, "; "), o_.retries));
    }
    out.wall_s = Since(t0);
    if (!out.ranks.empty()) out.ranks[0].outcome.wall_s = out.wall_s;
    return out;
  }

 private:
  struct Paths {
    std::string script, exit, log, stdin_file;
  };

  // Jobs or steps in flight at once: options.max_jobs.
  struct Slot {
    explicit Slot(SlurmLauncher* l) : l(l) {
      std::unique_lock<std::mutex> lk(l->mu_);
      l->cv_.wait(lk, [&] { return l->running_ < std::max(1, l->o_.max_jobs); });
      ++l->running_;
    }
    ~Slot() {
      std::lock_guard<std::mutex> lk(l->mu_);
      --l->running_;
      l->cv_.notify_one();
    }
    SlurmLauncher* l;
  };

  static void Finish(const Paths& p, const ProcessOutcome& o, bool timed_out, JobOutcome* out) {
    out->ranks = {RankOutcome{0, o, p.log}};
    out->timed_out = timed_out;
    out->first_failed_rank = !timed_out && !o.ok() ? 0 : -1;
  }

  // One batch job, to its end; `event` set when the scheduler ended it (retry).
  Status RunJob(const RankJob& job, std::string id, const SlurmShape& shape, const Paths& p, JobOutcome* out,
                std::string* event) {
    if (id.empty()) {
      auto r = RunCapture(SbatchArgv(o_, shape, p.script), 60);
      if (!r.outcome.started) return Status::Unavailable("sbatch did not start: " + r.outcome.start_error);
      if (!r.outcome.ok()) return Status::Unavailable("sbatch failed (" + r.outcome.Describe() + "): " + r.output);
      id = r.output.substr(0, r.output.find_first_of(";\n"));
      if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
        return Status::Internal("slurm: sbatch printed no job id: " + r.output);
    }
    {
      std::lock_guard<std::mutex> l(g_mu);
      g_live.insert(id);
    }
    out->job_id = id;
    if (job.on_submitted) job.on_submitted(id);
    Status s = WaitJob(job, id, p, out, event);
    Forget(id);
    return s;
  }

  Status WaitJob(const RankJob& job, const std::string& id, const Paths& p, JobOutcome* out, std::string* event) {
    auto submitted = Clock::now();
    std::optional<Clock::time_point> started;
    bool we_cancelled = false, timed_out = false;
    Clock::time_point unreachable{};
    bool down = false;  // scontrol failing since `unreachable`
    for (;; std::this_thread::sleep_for(std::chrono::duration<double>(o_.poll_s))) {
      bool stop;
      {
        std::lock_guard<std::mutex> l(g_mu);
        stop = g_stop;
      }
      if (stop) {
        Cancel(id);
        return Status::Unavailable("stopped: job " + id + " cancelled");
      }
      auto r = RunCapture(ScontrolShowJobArgv(id), 30);
      SlurmJobInfo info = ParseScontrolJob(r.output);
      ProcessOutcome o;
      if (!r.outcome.ok() && !info.known) {
        if (r.output.find("Invalid job id") == std::string::npos) {  // slurmctld down or restarting: wait
          if (!down) unreachable = Clock::now();
          down = true;
          if (Since(unreachable) > o_.pending_limit_s)
            return Status::Unavailable("scontrol failing for " + fmt::format("{:.0f}", Since(unreachable)) +
                                       " s: " + r.output);
          continue;
        }
        if (ReadExit(p.exit, &o)) return Finish(p, o, timed_out, out), Status::Ok();
        *event = "job " + id + " vanished from Slurm without an exit status";
        return Status::Ok();
      }
      down = false;
      SlurmJobPhase phase = ClassifyJobState(info.state);
      if (phase == SlurmJobPhase::kWaiting) {
        if (Since(submitted) > o_.pending_limit_s) {
          Cancel(id);
          *event = fmt::format("job {} still pending after {:.0f} s ({})", id, o_.pending_limit_s, info.reason);
          return Status::Ok();
        }
        continue;
      }
      if (phase == SlurmJobPhase::kRunning) {
        if (!started) started = Clock::now();
        if (info.fields["NodeList"] != "" && !we_cancelled && NodeDown(info.nodes)) {
          Cancel(id);
          *event = fmt::format("job {}: node {} went DOWN", id, info.nodes);
          return Status::Ok();
        }
        if (job.timeout_s > 0 && Since(*started) > job.timeout_s && !we_cancelled) {
          Cancel(id);
          we_cancelled = timed_out = true;
        }
        continue;
      }
      // Ended. The exit status the script wrote wins (unless the scheduler ended the job and the
      // status is a failure: the supervisor may have seen the kill); our own cancel is a timeout.
      if (!timed_out && ReadExit(p.exit, &o) && (phase != SlurmJobPhase::kInfrastructure || o.ok()))
        return Finish(p, o, false, out), Status::Ok();
      o = ProcessOutcome{};
      if (timed_out || phase == SlurmJobPhase::kTimeLimit) {
        o.started = true;
        o.timed_out = true;
        o.signal = 15;
        return Finish(p, o, true, out), Status::Ok();
      }
      if (phase == SlurmJobPhase::kEnded) {
        o.started = true;
        o.exit_code = info.exit_code;
        o.signal = info.signal;
        return Finish(p, o, false, out), Status::Ok();
      }
      *event = fmt::format("job {} ended {} ({}){}", id, info.state, info.reason,
                           info.state == "CANCELLED" ? " by someone else" : "");
      return Status::Ok();
    }
  }

  static bool NodeDown(const std::string& nodes) {
    if (nodes.empty() || nodes == "(null)") return false;
    auto r = RunCapture({"sinfo", "-h", "-N", "-n", nodes, "-o", "%T"}, 30);
    if (!r.outcome.ok()) return false;
    return r.output.find("down") != std::string::npos || r.output.find("fail") != std::string::npos;
  }

  // One srun step inside the allocation, to its end.
  Status RunStep(const RankJob& job, const SlurmShape& shape, const Paths& p, JobOutcome* out, std::string* event) {
    ProcessSpec spec;
    spec.argv = SrunArgv(o_, shape, {"/bin/sh", p.script});
    spec.stdout_path = spec.stderr_path = p.log + ".srun";
    double limit = job.timeout_s > 0 ? job.timeout_s + o_.pending_limit_s : 0;
    ProcessOutcome srun = RunProcess(spec, limit);
    if (!srun.started) return Status::Unavailable("srun did not start: " + srun.start_error);
    ProcessOutcome o;
    if (!srun.timed_out && ReadExit(p.exit, &o)) return Finish(p, o, false, out), Status::Ok();
    if (srun.timed_out) {
      o.started = o.timed_out = true;
      o.signal = 15;
      return Finish(p, o, true, out), Status::Ok();
    }
    auto log = ReadFile(spec.stdout_path);
    std::string text = log.ok() ? *log : "";
    if (text.find("DUE TO TIME LIMIT") != std::string::npos) {
      o.started = o.timed_out = true;
      o.signal = 15;
      return Finish(p, o, true, out), Status::Ok();
    }
    *event = "srun step ended without an exit status (" + srun.Describe() + "): " +
             text.substr(text.size() > 300 ? text.size() - 300 : 0);
    while (!event->empty() && event->back() == '\n') event->pop_back();
    return Status::Ok();
  }

  SlurmOptions o_;
  bool steps_;
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
};

}  // namespace

std::unique_ptr<Launcher> MakeSlurmLauncher(const SlurmOptions& options) { return std::make_unique<SlurmLauncher>(options); }

std::string SlurmMode(const SlurmOptions& options) {
  if (options.mode == "steps" || options.mode == "jobs") return options.mode;
  const char* id = std::getenv("SLURM_JOB_ID");
  return id && *id ? "steps" : "jobs";
}

Status FindSlurmTools() {
  std::string missing;
  const char* path = std::getenv("PATH");
  for (const char* t : {"sbatch", "srun", "scontrol", "scancel", "sinfo"})
    if (launch_internal::ResolveProgram(t, path ? path : "").empty()) missing += std::string(missing.empty() ? "" : ", ") + t;
  if (missing.empty()) return Status::Ok();
  return Status::Unavailable("the Slurm launcher needs " + missing +
                             " on PATH (Slurm's client commands: apt-get install slurm-client, or load your site's module)");
}

Status CheckSharedDir(const SlurmOptions& options, const std::string& dir) {
  std::random_device rd;
  const std::string token = fmt::format("{:08x}{:08x}", rd(), rd());
  const fs::path probe = fs::absolute(dir) / (".slurm-probe-" + token), seen = probe.string() + ".seen";
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(probe, token));
  SlurmShape shape;
  shape.time_limit_s = 60;
  shape.job_name = "cuco-probe";
  SlurmOptions o = options;
  o.srun_args.clear();
  auto r = RunCapture(SrunArgv(o, shape, {"/bin/sh", "-c", "cat " + Quote(probe.string()) + " > " + Quote(seen.string()) +
                                                               "; hostname"}),
                      options.pending_limit_s + 60);
  auto back = ReadFile(seen);
  std::error_code ec;
  fs::remove(probe, ec);
  fs::remove(seen, ec);
  if (!r.outcome.ok())
    return Status::Unavailable("slurm: the probe of the run directory (srun) failed (" + r.outcome.Describe() + "): " +
                               r.output);
  if (!back.ok() || *back != token)
    return Status::InvalidArgument(fmt::format(
        "the run directory {} is not visible from the compute node {}: a Slurm job could not read what cuco wrote there "
        "(put the run directory on a file system both sides mount, e.g. --run-dir on a shared home or scratch)",
        fs::absolute(dir).string(), r.output));
  return Status::Ok();
}

SlurmClusterView QuerySlurmCluster() {
  SlurmClusterView v;
  auto r = RunCapture(SinfoPartitionsArgv(), 20);
  v.reachable = r.outcome.ok();
  if (!v.reachable) v.error = r.outcome.started ? r.output : r.outcome.start_error;
  while (!v.error.empty() && v.error.back() == '\n') v.error.pop_back();
  if (v.reachable) v.partitions = ParseSinfoPartitions(r.output);
  return v;
}

namespace {
void CancelLive(bool and_stop) {
  std::vector<std::string> ids;
  {
    std::lock_guard<std::mutex> l(g_mu);
    if (and_stop) g_stop = true;
    ids.assign(g_live.begin(), g_live.end());
  }
  if (!ids.empty()) RunCapture(ScancelArgv(ids), 30);
}
}  // namespace

void StopSlurmJobs() { CancelLive(/*and_stop=*/true); }
void CancelSlurmJobsLeft() { CancelLive(/*and_stop=*/false); }

}  // namespace cuco
