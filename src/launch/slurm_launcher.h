// The Slurm launcher: a RankJob (cuco runs one: the supervisor, which starts the candidate's ranks
// in the sandbox itself) as Slurm work, with the GPUs it needs as --gres=gpu:N. Two modes
// (SlurmOptions::mode): inside an allocation (SLURM_JOB_ID set) each job is an `srun --exact`
// step packed onto the allocation; from a login node it is a batch job (`sbatch`), tracked by id
// with `scontrol show job` (no accounting database is needed).
//
// Contract:
//  - Files: the batch script (log_dir/slurm.sh), the job's exit status as the script saw it
//    (log_dir/slurm.exit, written before the job ends, so the outcome survives Slurm forgetting
//    the job after MinJobAge) and rank 0's log (log_dir/rank0.log). log_dir must be on a file
//    system the compute nodes see (CheckSharedDir).
//  - Crash safety: job.on_submitted gets the job id before Run waits for it; a later Run with
//    job.adopt_job set to that id collects that job (running or ended) instead of submitting.
//  - Verdicts: the job's exit status and timed_out as the local launcher gives them; job.timeout_s
//    counts from the job's start (not its wait in the queue) and is enforced by cuco (scancel),
//    Slurm's --time being timeout_s plus a margin as a backstop (both give timed_out).
//  - Scheduler events (cancelled by someone else, NODE_FAIL, PREEMPTED, node DOWN, pending past
//    pending_limit_s, a job that vanished without an exit status) are retried up to
//    options.retries times, each listed in JobOutcome::events; past that Run returns kUnavailable
//    naming them. slurmctld being unreachable is waited out (a restart is survived).
//  - StopSlurmJobs() (the CLI's abort) scancels, by id, every job this process submitted and has
//    not collected; only those.
#pragma once

#include <memory>
#include <string>

#include "launch/launcher.h"
#include "launch/slurm_commands.h"

namespace cuco {

std::unique_ptr<Launcher> MakeSlurmLauncher(const SlurmOptions& options);

// "steps" or "jobs": what options.mode means here (auto: steps when SLURM_JOB_ID is set).
std::string SlurmMode(const SlurmOptions& options);

// Ok when sbatch, srun, scontrol and scancel are on PATH; kUnavailable naming the missing ones.
Status FindSlurmTools();

// Runs one tiny Slurm task that reads a file cuco wrote under `dir` and writes one back: Ok when
// both sides see the same `dir`, else an error saying the run directory must be on a shared file
// system (or that the probe could not run, and why).
Status CheckSharedDir(const SlurmOptions& options, const std::string& dir);

// What `cuco doctor` says of the cluster: the partitions sinfo lists (with their GPU gres), or why
// sinfo failed.
struct SlurmClusterView {
  bool reachable = false;
  std::string error;
  std::vector<SlurmPartition> partitions;
};
SlurmClusterView QuerySlurmCluster();

// Asks every Slurm job of this process that is in flight to be cancelled (scancel by id); Run
// calls in flight, and every later one, then return kUnavailable("stopped"). Thread-safe; not
// async-signal-safe.
void StopSlurmJobs();
// Cancels (scancel by id) every job of this process still in flight, as after a search that ended
// by itself; later Run calls submit jobs as before (the gain check's evaluations come after it).
void CancelSlurmJobsLeft();

}  // namespace cuco
