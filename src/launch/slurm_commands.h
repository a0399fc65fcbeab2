// The Slurm command lines cuco runs (sbatch, srun, scontrol, scancel, sinfo) built as argv, and
// what scontrol prints parsed back: pure functions, so that every line cuco would send to a
// cluster -- multi-node shapes included, which no test here can run -- is unit-tested.
//
// Contract: SbatchArgv/SrunArgv pass every user option through verbatim (partition, account,
// qos, constraint, reservation, extra arguments last so they win); the time limit is whole
// minutes, rounded up, never below one. ClassifyJobState separates the scheduler's events
// (cancelled by someone else, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE...) from the job's own end.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cuco {

// The [launcher] table's Slurm settings (docs/search.md).
struct SlurmOptions {
  std::string mode = "auto";  // auto (steps when SLURM_JOB_ID is set, else jobs) | steps | jobs
  std::string partition, account, qos, constraint, reservation;
  std::vector<std::string> sbatch_args;  // appended to every sbatch line (jobs mode)
  std::vector<std::string> srun_args;    // appended to every srun line (steps mode)
  int max_jobs = 2;                     // jobs mode: submitted jobs in flight at once
  double time_margin_s = 60;            // added to the stage's limit for --time
  double pending_limit_s = 600;         // a job still pending after this long is an infrastructure event
  int retries = 2;                      // infrastructure events retried per stage
  double poll_s = 1;                    // scontrol polling period
};

// The shape of one Slurm job or step: `nodes` x `tasks_per_node` tasks, `gpus_per_node` GPUs
// on each node (as --gres=gpu:N).
struct SlurmShape {
  int nodes = 1;
  int tasks_per_node = 1;
  int gpus_per_node = 0;
  double time_limit_s = 0;  // <= 0: no --time
  std::string job_name = "cuco";
  std::string output;        // --output file (stdout and stderr)
  std::string chdir;         // --chdir
};

// A world of `world` ranks over `nodes` nodes (ranks split evenly; nodes must divide world), each
// rank with one GPU when `gpus`.
SlurmShape ShapeForWorld(int world, int nodes, bool gpus);

// "--time" text: whole minutes, rounded up, at least 1.
std::string SlurmMinutes(double seconds);

// sbatch --parsable ... <script>
std::vector<std::string> SbatchArgv(const SlurmOptions& o, const SlurmShape& s, const std::string& script);
// srun ... <command...> (a job step inside the current allocation when SLURM_JOB_ID is set).
std::vector<std::string> SrunArgv(const SlurmOptions& o, const SlurmShape& s, const std::vector<std::string>& command);
std::vector<std::string> ScontrolShowJobArgv(const std::string& job_id);
// scancel of exactly these ids (jobs, or job.step); never by name or user.
std::vector<std::string> ScancelArgv(const std::vector<std::string>& ids);

// One job as `scontrol show job -o` prints it.
struct SlurmJobInfo {
  bool known = false;        // false: scontrol does not know the id (never existed, or older than MinJobAge)
  std::string state;         // JobState: PENDING RUNNING COMPLETED FAILED CANCELLED TIMEOUT NODE_FAIL ...
  std::string reason;        // Reason=
  int exit_code = 0, signal = 0;  // ExitCode=E:S
  std::string nodes;         // NodeList=
  std::map<std::string, std::string> fields;
};
SlurmJobInfo ParseScontrolJob(const std::string& text);

// One partition as `sinfo -h -o %P|%a|%D|%T|%G` prints it (SinfoPartitionsArgv).
struct SlurmPartition {
  std::string name;   // "*" suffix (the default partition) removed; is_default says so
  bool is_default = false;
  std::string avail, state, gres;  // gres: e.g. "gpu:4", "(null)" when none
  int nodes = 0;
};
std::vector<std::string> SinfoPartitionsArgv();
std::vector<SlurmPartition> ParseSinfoPartitions(const std::string& text);

enum class SlurmJobPhase {
  kWaiting,         // PENDING, CONFIGURING, REQUEUED...: not started
  kRunning,         // RUNNING, COMPLETING, SUSPENDED...
  kEnded,           // COMPLETED, FAILED, OUT_OF_MEMORY: the job's own end (its exit status says how)
  kTimeLimit,       // TIMEOUT: Slurm's --time passed
  kInfrastructure,  // CANCELLED (not by us), NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE, REVOKED
};
SlurmJobPhase ClassifyJobState(const std::string& state);

}  // namespace cuco
