// Launchers start one process per rank of a multi-GPU job and make sure that, whatever the ranks
// do (exit, crash, hang in NCCL), every one of them is gone when Run returns.
//
// The seam for clusters: MakeSlurmLauncher (slurm_launcher.h) runs a job as Slurm work. Nothing
// outside these headers depends on which launcher runs a job.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "launch/subprocess.h"
#include "util/status.h"

namespace cuco {

// What to start: the same command for every rank.
struct RankJob {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;  // common env, on top of ours
  std::string cwd;                         // empty: ours
  std::string log_dir;                     // created if missing; rank R writes log_dir/rank<R>.log
                                           // (stdout+stderr merged); empty: logs are discarded
  int world_size = 1;
  std::vector<int> gpus;                   // physical GPU ids for this job (empty for CPU jobs);
                                           // at least world_size of them when not empty
  double timeout_s = 60;                   // for the whole job; <= 0: none
  std::string rendezvous_dir;              // created if missing; passed as CUCO_RENDEZVOUS_DIR
  std::string stdin_data;                  // given to every rank
  // Launchers whose jobs outlive cuco (Slurm): on_submitted gets the job's id once it exists, before
  // Run waits for it (to store it); adopt_job: collect that job, submitted by an earlier cuco for
  // this same RankJob, instead of starting one. Other launchers never call on_submitted and refuse
  // adopt_job.
  std::function<void(const std::string& job_id)> on_submitted;
  std::string adopt_job;
};

struct RankOutcome {
  int rank = 0;
  ProcessOutcome outcome;  // timed_out: the rank was still running when the job timed out
  std::string log_path;
};

struct JobOutcome {
  std::vector<RankOutcome> ranks;
  bool timed_out = false;       // the job hit timeout_s; all ranks were killed
  int first_failed_rank = -1;   // first rank seen to exit non-zero, die by a signal or fail to
                                // start (ranks we killed do not count)
  bool unkillable = false;      // some process survived SIGKILL (its GPUs are suspect)
  double wall_s = 0;
  std::string job_id;               // the scheduler's id of the job that ran (Slurm), else ""
  std::vector<std::string> events;  // scheduler events survived (retried), for the record

  // Every rank exited 0 in time.
  bool ok() const { return !timed_out && first_failed_rank < 0 && !unkillable; }
};

class Launcher {
 public:
  virtual ~Launcher() = default;
  virtual std::string Name() const = 0;
  // Runs the job to the end. An error Status means the job could not be set up (bad job, missing
  // program, directory not writable); what the ranks did is always in the JobOutcome.
  virtual Result<JobOutcome> Run(const RankJob& job) = 0;
};

struct LauncherOptions {
  // After a rank fails, how long its peers may go on before the job is killed (a rank that died
  // leaves its peers hung in NCCL forever).
  double peer_failure_grace_s = 3.0;
  // On a kill: SIGTERM, then SIGKILL after this long.
  double term_grace_s = 2.0;
};

// One host, one process per rank, all ranks in one process group (led by rank 0) so that one
// kill stops them all. Each rank's environment: ours, then job.env, then
//   CUCO_RANK, CUCO_WORLD_SIZE, CUCO_LOCAL_RANK, CUCO_LOCAL_WORLD_SIZE,
//   CUCO_RENDEZVOUS_DIR (if set), CUDA_VISIBLE_DEVICES = job.gpus joined by ',' (if not empty;
//   every rank sees all of them and uses device CUCO_LOCAL_RANK), and always
//   NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
//   (NVLink multicast must stay off on our machines).
// When a rank fails the others get options.peer_failure_grace_s, then the group is killed; on
// timeout the group is killed and timed_out set. Everything is reaped before Run returns.
std::unique_ptr<Launcher> MakeLocalLauncher(const LauncherOptions& options = {});

// `mpirun -np N [extra_args] -x VAR... /bin/sh -c <shim> argv...` (Open MPI) as one process,
// with the same environment (set in mpirun's and forwarded with -x) and the same timeout. The
// shim sets CUCO_RANK/CUCO_LOCAL_RANK from OMPI_COMM_WORLD_RANK/_LOCAL_RANK (or PMIX_RANK /
// PMI_RANK). Open MPI allows running as root through OMPI_ALLOW_RUN_AS_ROOT(_CONFIRM)=1.
// Output: mpirun's combined output goes to log_dir/rank0.log, and JobOutcome::ranks holds one
// entry, rank 0, carrying mpirun's own outcome (mpirun aborts the job when a rank fails; which
// rank failed is in the log). On a kill mpirun gets SIGTERM first so it can stop its ranks
// (Open MPI puts each in its own process group); survivors are then killed through /proc.
std::unique_ptr<Launcher> MakeMpirunLauncher(const std::string& mpirun_path, std::vector<std::string> extra_args = {},
                                             const LauncherOptions& options = {});

// The environment every rank of `job` shares (job.env, world size, rendezvous dir, GPUs, no
// multicast); creates log_dir and rendezvous_dir.
Result<std::map<std::string, std::string>> CommonRankEnv(const RankJob& job);

// The variables every rank gets to keep NVLink multicast off.
const std::map<std::string, std::string>& NoMulticastEnv();

}  // namespace cuco
