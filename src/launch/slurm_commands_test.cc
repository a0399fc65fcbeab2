#include "launch/slurm_commands.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace cuco {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(SlurmCommands, SbatchPassesEveryOptionThroughWithExtraArgsLast) {
  SlurmOptions o;
  o.partition = "gpu";
  o.account = "proj1";
  o.qos = "high";
  o.constraint = "h100";
  o.reservation = "res1";
  o.sbatch_args = {"--mem=0", "--exclusive"};
  SlurmShape s;
  s.gpus_per_node = 2;
  s.time_limit_s = 61;
  s.output = "/runs/c1/logs/rank0.log";
  auto a = SbatchArgv(o, s, "/runs/c1/logs/slurm.sh");
  EXPECT_EQ(a.front(), "sbatch");
  EXPECT_TRUE(Has(a, "--parsable"));
  for (const char* x : {"--partition=gpu", "--account=proj1", "--qos=high", "--constraint=h100", "--reservation=res1",
                        "--gres=gpu:2", "--time=2", "--ntasks=1", "--nodes=1", "--output=/runs/c1/logs/rank0.log"})
    EXPECT_TRUE(Has(a, x)) << x;
  ASSERT_GE(a.size(), 3u);
  EXPECT_EQ(a[a.size() - 3], "--mem=0");
  EXPECT_EQ(a[a.size() - 2], "--exclusive");
  EXPECT_EQ(a.back(), "/runs/c1/logs/slurm.sh");
}

TEST(SlurmCommands, NoOptionsNoFlags) {
  auto a = SbatchArgv(SlurmOptions{}, SlurmShape{}, "x.sh");
  for (const auto& x : a) {
    EXPECT_EQ(x.find("--partition"), std::string::npos);
    EXPECT_EQ(x.find("--gres"), std::string::npos);
    EXPECT_EQ(x.find("--time"), std::string::npos);
  }
}

TEST(SlurmCommands, MultiNodeShapes) {
  // 16 ranks over 2 nodes of 8 GPUs: 8 tasks and 8 GPUs a node.
  SlurmShape s = ShapeForWorld(16, 2, true);
  EXPECT_EQ(s.nodes, 2);
  EXPECT_EQ(s.tasks_per_node, 8);
  EXPECT_EQ(s.gpus_per_node, 8);
  auto a = SrunArgv(SlurmOptions{}, s, {"/bin/true"});
  for (const char* x : {"--nodes=2", "--ntasks=16", "--ntasks-per-node=8", "--gres=gpu:8", "--exact"})
    EXPECT_TRUE(Has(a, x)) << x;
  EXPECT_EQ(a.back(), "/bin/true");
  // One node, CPU only: no --gres.
  SlurmShape c = ShapeForWorld(4, 1, false);
  EXPECT_EQ(c.tasks_per_node, 4);
  EXPECT_EQ(c.gpus_per_node, 0);
}

TEST(SlurmCommands, MinutesRoundUpAndNeverZero) {
  EXPECT_EQ(SlurmMinutes(0.5), "1");
  EXPECT_EQ(SlurmMinutes(60), "1");
  EXPECT_EQ(SlurmMinutes(60.1), "2");
  EXPECT_EQ(SlurmMinutes(3600), "60");
}

TEST(SlurmCommands, ScancelNamesExactlyTheIds) {
  auto a = ScancelArgv({"12", "13.4"});
  EXPECT_EQ(a, (std::vector<std::string>{"scancel", "12", "13.4"}));
}

TEST(SlurmCommands, ParsesScontrolOneLine) {
  auto j = ParseScontrolJob(
      "JobId=7 JobName=cuco UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 "
      "NodeList=cuco0 BatchHost=cuco0\n");
  EXPECT_TRUE(j.known);
  EXPECT_EQ(j.state, "FAILED");
  EXPECT_EQ(j.reason, "NonZeroExitCode");
  EXPECT_EQ(j.exit_code, 3);
  EXPECT_EQ(j.signal, 0);
  EXPECT_EQ(j.nodes, "cuco0");
  EXPECT_FALSE(ParseScontrolJob("slurm_load_jobs error: Invalid job id specified\n").known);
}

TEST(SlurmCommands, SchedulerEventsAreNotTheJobsOwnEnd) {
  for (const char* s : {"CANCELLED", "NODE_FAIL", "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
    EXPECT_EQ(ClassifyJobState(s), SlurmJobPhase::kInfrastructure) << s;
  for (const char* s : {"COMPLETED", "FAILED", "OUT_OF_MEMORY"}) EXPECT_EQ(ClassifyJobState(s), SlurmJobPhase::kEnded) << s;
  EXPECT_EQ(ClassifyJobState("TIMEOUT"), SlurmJobPhase::kTimeLimit);
  EXPECT_EQ(ClassifyJobState("PENDING"), SlurmJobPhase::kWaiting);
  EXPECT_EQ(ClassifyJobState("RUNNING"), SlurmJobPhase::kRunning);
  EXPECT_EQ(ClassifyJobState("COMPLETING"), SlurmJobPhase::kRunning);
}

TEST(SlurmCommands, ParsesSinfoPartitions) {
  auto ps = ParseSinfoPartitions("debug*|up|1|idle|gpu:4\nbig|up|2|mixed|gpu:h100:8(S:0-1)\nnoise\n");
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].name, "debug");
  EXPECT_TRUE(ps[0].is_default);
  EXPECT_EQ(ps[0].gres, "gpu:4");
  EXPECT_EQ(ps[1].nodes, 2);
  EXPECT_FALSE(ps[1].is_default);
  EXPECT_EQ(ps[1].state, "mixed");
}

}  // namespace
}  // namespace cuco
