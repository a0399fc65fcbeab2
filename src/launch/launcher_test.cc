#include "launch/launcher.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <sstream>

#include "launch/test_util.h"

namespace cuco {
namespace {

using launch_test::Alive;
using launch_test::OurChildren;
using launch_test::PidsIn;
using launch_test::Slurp;
using launch_test::TempDir;

RankJob ShJob(const TempDir& tmp, const std::string& script, int world) {
  RankJob job;
  job.argv = {"sh", "-c", script};
  job.world_size = world;
  job.log_dir = tmp.path("logs");
  job.rendezvous_dir = tmp.path("rdv");
  job.timeout_s = 30;
  return job;
}

LauncherOptions FastKills() {
  LauncherOptions o;
  o.peer_failure_grace_s = 0.3;
  o.term_grace_s = 0.5;
  return o;
}

std::vector<pid_t> AllPids(const JobOutcome& out) {
  std::vector<pid_t> pids;
  for (const RankOutcome& r : out.ranks) {
    for (pid_t p : PidsIn(Slurp(r.log_path))) pids.push_back(p);
  }
  return pids;
}

TEST(LocalLauncher, GivesEachRankItsEnvironment) {
  TempDir tmp;
  RankJob job = ShJob(tmp,
                      "echo \"rank=$CUCO_RANK world=$CUCO_WORLD_SIZE local=$CUCO_LOCAL_RANK "
                      "lws=$CUCO_LOCAL_WORLD_SIZE rdv=$CUCO_RENDEZVOUS_DIR cvd=$CUDA_VISIBLE_DEVICES "
                      "nvls=$NCCL_NVLS_ENABLE/$NVSHMEM_DISABLE_NVLS/$TORCH_SYMM_MEM_DISABLE_MULTICAST foo=$FOO\"; "
                      "echo err >&2; cat",
                      3);
  job.gpus = {4, 5, 6};
  job.env = {{"FOO", "bar"}, {"NCCL_NVLS_ENABLE", "1"}};  // multicast stays off regardless
  job.stdin_data = "input\n";
  auto launcher = MakeLocalLauncher(FastKills());
  EXPECT_EQ(launcher->Name(), "local");
  Result<JobOutcome> out = launcher->Run(job);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->ok());
  EXPECT_EQ(out->first_failed_rank, -1);
  ASSERT_EQ(out->ranks.size(), 3u);
  EXPECT_TRUE(std::filesystem::is_directory(job.rendezvous_dir));
  std::string rdv = std::filesystem::path(job.rendezvous_dir).lexically_normal().string();
  for (int r = 0; r < 3; ++r) {
    const RankOutcome& ro = out->ranks[r];
    EXPECT_EQ(ro.rank, r);
    EXPECT_EQ(ro.outcome.exit_code, 0);
    EXPECT_EQ(ro.log_path, tmp.path("logs/rank" + std::to_string(r) + ".log"));
    std::string want = "rank=" + std::to_string(r) + " world=3 local=" + std::to_string(r) +
                       " lws=3 rdv=" + rdv + " cvd=4,5,6 nvls=0/1/1 foo=bar\nerr\ninput\n";
    EXPECT_EQ(Slurp(ro.log_path), want);
  }
}

TEST(LocalLauncher, LeavesCudaVisibleDevicesAloneWithoutGpus) {
  TempDir tmp;
  ::setenv("CUDA_VISIBLE_DEVICES", "7", 1);
  RankJob job = ShJob(tmp, "echo \"cvd=${CUDA_VISIBLE_DEVICES-unset}\"", 1);
  Result<JobOutcome> out = MakeLocalLauncher()->Run(job);
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Slurp(out->ranks[0].log_path), "cvd=7\n");
}

TEST(LocalLauncher, RefusesToAdoptAJob) {
  // Only a launcher whose jobs outlive cuco (Slurm) adopts one; locally nothing runs twice either.
  RankJob job;
  job.argv = {"/bin/true"};
  job.adopt_job = "42";
  Result<JobOutcome> out = MakeLocalLauncher()->Run(job);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("only a Slurm launcher adopts jobs"), std::string::npos);
}

TEST(LocalLauncher, RanksShareOneProcessGroup) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "echo pid=$$; cut -d' ' -f5 /proc/$$/stat", 3);
  Result<JobOutcome> out = MakeLocalLauncher()->Run(job);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(out->ok());
  std::vector<pid_t> pids = AllPids(*out);
  ASSERT_EQ(pids.size(), 3u);
  for (const RankOutcome& r : out->ranks) {
    std::string log = Slurp(r.log_path);
    EXPECT_EQ(log.substr(log.find('\n') + 1), std::to_string(pids[0]) + "\n") << "rank " << r.rank;
  }
}

// One rank dies at once; its peers would hang forever (as in NCCL) and must be killed quickly.
TEST(LocalLauncher, FailedRankTakesDownItsPeers) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "echo pid=$$; if [ \"$CUCO_RANK\" = 1 ]; then exit 1; fi; sleep 1000 & echo pid=$!; wait", 3);
  Result<JobOutcome> out = MakeLocalLauncher(FastKills())->Run(job);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE(out->timed_out);
  EXPECT_EQ(out->first_failed_rank, 1);
  EXPECT_FALSE(out->ok());
  EXPECT_LT(out->wall_s, 3.0);
  EXPECT_EQ(out->ranks[1].outcome.exit_code, 1);
  EXPECT_EQ(out->ranks[0].outcome.signal, SIGTERM);
  EXPECT_EQ(out->ranks[2].outcome.signal, SIGTERM);
  EXPECT_FALSE(out->ranks[0].outcome.timed_out);
  std::vector<pid_t> pids = AllPids(*out);
  EXPECT_EQ(pids.size(), 5u);
  for (pid_t pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
  EXPECT_TRUE(OurChildren().empty());  // all reaped
}

// A rank killed by a signal (a crash) counts as failed too; peers that finish in the grace are
// left alone.
TEST(LocalLauncher, CrashedRankIsFirstFailed) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "if [ \"$CUCO_RANK\" = 2 ]; then kill -KILL $$; fi; sleep 0.2; exit 0", 3);
  LauncherOptions options = FastKills();
  options.peer_failure_grace_s = 5;
  Result<JobOutcome> out = MakeLocalLauncher(options)->Run(job);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->first_failed_rank, 2);
  EXPECT_EQ(out->ranks[2].outcome.signal, SIGKILL);
  EXPECT_EQ(out->ranks[0].outcome.exit_code, 0);
  EXPECT_EQ(out->ranks[1].outcome.exit_code, 0);
  EXPECT_LT(out->wall_s, 3.0);
}

TEST(LocalLauncher, TimeoutKillsAllRanks) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "trap '' TERM; echo pid=$$; sleep 1000 & echo pid=$!; wait", 3);
  job.timeout_s = 0.5;
  Result<JobOutcome> out = MakeLocalLauncher(FastKills())->Run(job);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(out->timed_out);
  EXPECT_EQ(out->first_failed_rank, -1);
  EXPECT_FALSE(out->unkillable);
  EXPECT_GE(out->wall_s, 0.5);
  EXPECT_LT(out->wall_s, 0.5 + 0.5 + 1.5);
  for (const RankOutcome& r : out->ranks) {
    EXPECT_TRUE(r.outcome.timed_out);
    EXPECT_EQ(r.outcome.signal, SIGKILL);  // they ignore SIGTERM
  }
  std::vector<pid_t> pids = AllPids(*out);
  EXPECT_EQ(pids.size(), 6u);
  for (pid_t pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
  EXPECT_TRUE(OurChildren().empty());
}

TEST(LocalLauncher, RejectsBadJobs) {
  TempDir tmp;
  auto launcher = MakeLocalLauncher();
  RankJob job = ShJob(tmp, "true", 0);
  EXPECT_EQ(launcher->Run(job).status().code(), Status::Code::kInvalidArgument);
  job.world_size = 3;
  job.gpus = {0, 1};
  EXPECT_EQ(launcher->Run(job).status().code(), Status::Code::kInvalidArgument);
  job.gpus = {0, 1, 1};
  EXPECT_EQ(launcher->Run(job).status().code(), Status::Code::kInvalidArgument);
  job.gpus = {};
  job.argv = {"cuco-no-such-program"};
  EXPECT_EQ(launcher->Run(job).status().code(), Status::Code::kNotFound);
}

TEST(LocalLauncher, RankThatCannotStartFailsTheJob) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "true", 2);
  job.cwd = tmp.path("missing");
  Result<JobOutcome> out = MakeLocalLauncher(FastKills())->Run(job);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->first_failed_rank, 0);
  EXPECT_FALSE(out->ranks[0].outcome.started);
  EXPECT_FALSE(out->ranks[1].outcome.started);
  EXPECT_NE(out->ranks[0].outcome.start_error.find("chdir"), std::string::npos);
}

std::string FindMpirun() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = dir + "/mpirun";
    if (!dir.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

TEST(MpirunLauncher, RunsRanksWithTheirEnvironment) {
  std::string mpirun = FindMpirun();
  if (mpirun.empty()) GTEST_SKIP() << "no mpirun on this machine";
  TempDir tmp;
  RankJob job = ShJob(tmp, "echo \"rank=$CUCO_RANK world=$CUCO_WORLD_SIZE nvls=$NCCL_NVLS_ENABLE foo=$FOO\"", 2);
  job.env = {{"FOO", "bar"}};
  auto launcher = MakeMpirunLauncher(mpirun, {}, FastKills());
  EXPECT_EQ(launcher->Name(), "mpirun");
  Result<JobOutcome> out = launcher->Run(job);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->ranks.size(), 1u);
  std::string log = Slurp(out->ranks[0].log_path);
  EXPECT_TRUE(out->ok()) << out->ranks[0].outcome.Describe() << "\n" << log;
  EXPECT_NE(log.find("rank=0 world=2 nvls=0 foo=bar"), std::string::npos) << log;
  EXPECT_NE(log.find("rank=1 world=2 nvls=0 foo=bar"), std::string::npos) << log;
}

TEST(MpirunLauncher, TimeoutKillsAllRanks) {
  std::string mpirun = FindMpirun();
  if (mpirun.empty()) GTEST_SKIP() << "no mpirun on this machine";
  TempDir tmp;
  RankJob job = ShJob(tmp, "echo pid=$$; exec sleep 1000", 2);
  job.timeout_s = 2;
  Result<JobOutcome> out = MakeMpirunLauncher(mpirun, {}, FastKills())->Run(job);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(out->timed_out);
  EXPECT_EQ(out->first_failed_rank, -1);
  std::vector<pid_t> pids = PidsIn(Slurp(out->ranks[0].log_path));
  for (pid_t pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
}

TEST(MpirunLauncher, MissingMpirunIsNotFound) {
  TempDir tmp;
  RankJob job = ShJob(tmp, "true", 2);
  EXPECT_EQ(MakeMpirunLauncher("/nonexistent/mpirun")->Run(job).status().code(), Status::Code::kNotFound);
}

}  // namespace
}  // namespace cuco
