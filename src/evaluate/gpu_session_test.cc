// An evaluation's GPU session without a GPU, against a fake nvidia-cuda-mps-control
// (launch/mps_test_util.h): which timing method a run gets and why, what the supervisor and the
// candidate are given, that the sandbox binds cuco's pipe folder and nothing else of MPS, what a
// candidate's control command looks like afterwards, and the doctor's section.
#include "evaluate/gpu_session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "launch/mps_test_util.h"
#include "util/files.h"
#include "util/testutil.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using testutil::Has;

class GpuSessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path("/tmp") / ("cuco-gpus-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "parent");
    record_ = root_ / "record.txt";
    for (int i = 0; i < 2; ++i) {
      GpuInfo g;
      g.index = i;
      g.name = "NVIDIA H100 80GB HBM3";
      g.sm_count = 132;
      g.compute_mode = 0;
      g.uuid = i == 0 ? "GPU-0000aaaa" : "GPU-0000bbbb";
      tc_.gpus.push_back(g);
    }
  }
  void TearDown() override { fs::remove_all(root_); }
  TimingPlan FakePlan(const std::string& mode = "") {
    TimingPlan p;
    p.mps = true;
    p.control = testutil::WriteFakeMpsControl(root_ / "bin", record_, mode).string();
    p.why = "test";
    return p;
  }
  MpsOptions Base() {
    MpsOptions o;
    o.parent_dir = (root_ / "parent").string();
    o.start_timeout_s = 2;
    o.quit_timeout_s = 2;
    return o;
  }
  std::string Record() {
    auto t = ReadFile(record_);
    return t.ok() ? *t : "";
  }
  fs::path root_, record_;
  Toolchain tc_;
};

TEST_F(GpuSessionTest, MpsGivesTheSupervisorAndTheCandidateCucosPipeFolderOnly) {
  GpuPool pool({0, 1});
  auto lease = pool.Acquire(2);
  ASSERT_TRUE(lease.ok());
  GpuSession s;
  s.Open(std::move(*lease), tc_.gpus, FakePlan(), Base());
  ASSERT_TRUE(s.mps()) << s.why();
  EXPECT_EQ(s.method(), kMpsTimingMethod);
  EXPECT_TRUE(ComparableWithPeers(s.method()));
  const MpsDaemon* d = s.daemon();
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(Has(Record(), "visible=GPU-0000aaaa,GPU-0000bbbb")) << "the daemon sees the lease's GPUs: " << Record();

  const auto sup = s.SupervisorEnv();
  EXPECT_EQ(sup.at("CUDA_MPS_PIPE_DIRECTORY"), d->pipe_dir());
  EXPECT_EQ(sup.at("CUDA_VISIBLE_DEVICES"), "0,1") << "the server's own devices, numbered from 0";
  std::map<std::string, std::string> env = {{"CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps"},
                                            {"CUDA_MPS_LOG_DIRECTORY", "/var/log/nvidia-mps"},
                                            {"CUDA_VISIBLE_DEVICES", "1,0"},
                                            {"PATH", "/usr/bin"}};
  s.SetCandidateEnv(&env);
  EXPECT_EQ(env.at("CUDA_MPS_PIPE_DIRECTORY"), d->pipe_dir());
  EXPECT_EQ(env.count("CUDA_MPS_LOG_DIRECTORY"), 0u);
  EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), sup.at("CUDA_VISIBLE_DEVICES"));
  EXPECT_EQ(env.at("CUDA_DEVICE_ORDER"), sup.at("CUDA_DEVICE_ORDER"));
  EXPECT_EQ(env.at("PATH"), "/usr/bin");

  SandboxSpec spec;
  spec.mps_pipe_dir = "/tmp/nvidia-mps";  // whatever was there before: replaced
  s.ConfineSandbox(&spec);
  EXPECT_EQ(spec.mps_pipe_dir, d->pipe_dir());
  if (DetectSandbox().available) {
    ::setenv("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps", 1);  // the user's own daemon: never bound
    spec.env = {{"PATH", "/usr/bin"}};
    auto argv = SandboxPrefix(spec);
    ::unsetenv("CUDA_MPS_PIPE_DIRECTORY");
    ASSERT_TRUE(argv.ok()) << argv.status().ToString();
    int binds = 0;
    for (size_t i = 0; i + 2 < argv->size(); ++i)
      if ((*argv)[i] == "--bind") {
        ++binds;
        EXPECT_EQ((*argv)[i + 1], fs::canonical(d->pipe_dir()).string());
        EXPECT_EQ((*argv)[i + 2], fs::canonical(d->pipe_dir()).string());
      }
    EXPECT_EQ(binds, 1) << "one read-write bind: the pipe folder";
    for (const std::string& a : *argv) {
      EXPECT_FALSE(Has(a, "nvidia-mps")) << a;
      EXPECT_FALSE(Has(a, d->log_dir())) << a;
      EXPECT_NE(a, d->root());
    }
  }

  EXPECT_EQ(s.DaemonChanged(), "");
  ASSERT_TRUE(d->Command("set_default_active_thread_percentage 5").ok());  // what a candidate can send
  EXPECT_TRUE(Has(s.DaemonChanged(), "get_default_active_thread_percentage: 5")) << s.DaemonChanged();

  const std::string root = d->root();
  s.StopDaemon();
  EXPECT_FALSE(fs::exists(root)) << "nothing written into the pipe folder outlives the evaluation";
  EXPECT_TRUE(s.mps()) << "the record still says how it was timed";
  const nlohmann::json j = s.ToJson();
  EXPECT_EQ(j["method"], kMpsTimingMethod);
  EXPECT_TRUE(Has(j["mps"]["stop"].get<std::string>(), "quit")) << j.dump();
  EXPECT_EQ(pool.Free(), 0) << "the GPUs stay held until Close (to be probed without the daemon)";
  s.Close();
  EXPECT_EQ(pool.Free(), 2);
}

TEST_F(GpuSessionTest, WithoutMpsNothingOfMpsReachesAnyone) {
  GpuPool pool({0, 1});
  auto lease = pool.Acquire(2);
  ASSERT_TRUE(lease.ok());
  TimingPlan plan;
  plan.why = "nvidia-cuda-mps-control not found";
  GpuSession s;
  s.Open(std::move(*lease), tc_.gpus, plan, Base());
  EXPECT_FALSE(s.mps());
  EXPECT_EQ(s.method(), kTimeSlicedMethod);
  EXPECT_EQ(std::string(kTimeSlicedMethod), "time-sliced (no MPS): not comparable with peers");
  EXPECT_FALSE(ComparableWithPeers(s.method()));
  EXPECT_EQ(s.why(), "nvidia-cuda-mps-control not found");
  const auto sup = s.SupervisorEnv();
  EXPECT_FALSE(fs::exists(sup.at("CUDA_MPS_PIPE_DIRECTORY"))) << "a folder that can never hold a daemon";
  EXPECT_EQ(sup.count("CUDA_VISIBLE_DEVICES"), 0u) << "the launcher numbers the lease's GPUs";
  SandboxSpec spec;
  spec.mps_pipe_dir = "/tmp/nvidia-mps";
  s.ConfineSandbox(&spec);
  EXPECT_EQ(spec.mps_pipe_dir, "");
  EXPECT_EQ(s.DaemonChanged(), "");
}

TEST_F(GpuSessionTest, ADaemonThatDoesNotStartLeavesTheEvaluationTimeSlicedSayingWhy) {
  GpuPool pool({0, 1});
  auto lease = pool.Acquire(2);
  ASSERT_TRUE(lease.ok());
  GpuSession s;
  MpsOptions base = Base();
  base.start_timeout_s = 0.5;
  s.Open(std::move(*lease), tc_.gpus, FakePlan("no-socket"), base);
  EXPECT_FALSE(s.mps());
  EXPECT_EQ(s.method(), kTimeSlicedMethod);
  EXPECT_TRUE(Has(s.why(), "cuco's MPS daemon did not start")) << s.why();
  EXPECT_TRUE(fs::is_empty(root_ / "parent"));
}

TEST_F(GpuSessionTest, ADaemonTheCandidateEndedIsItsDoing) {
  GpuPool pool({0, 1});
  auto lease = pool.Acquire(2);
  ASSERT_TRUE(lease.ok());
  GpuSession s;
  s.Open(std::move(*lease), tc_.gpus, FakePlan(), Base());
  ASSERT_TRUE(s.mps()) << s.why();
  ASSERT_TRUE(s.daemon()->Command("quit").ok());
  for (int i = 0; i < 1000 && s.daemon()->Alive(); ++i) ::usleep(10000);  // up to 10 s on a loaded host
  EXPECT_TRUE(Has(s.DaemonChanged(), "is gone")) << s.DaemonChanged();
}

TEST_F(GpuSessionTest, ThePlanSaysWhyItIsNotMps) {
  Toolchain none;
  EXPECT_FALSE(PlanTiming(none, true, false).mps);
  EXPECT_EQ(PlanTiming(none, true, false).why, "no GPU found");
  EXPECT_TRUE(Has(PlanTiming(tc_, true, true).why, "Slurm"));
  Toolchain prohibited = tc_;
  prohibited.gpus[1].compute_mode = 2;
  EXPECT_TRUE(Has(PlanTiming(prohibited, true, false).why, "GPU 1 is in prohibited compute mode"));
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  testutil::WriteFakeMpsControl(root_ / "bin", record_);
  ::setenv("PATH", ((root_ / "bin").string() + ":" + old_path).c_str(), 1);
  const TimingPlan p = PlanTiming(tc_, true, false);
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_TRUE(p.mps);
  EXPECT_EQ(p.control, (root_ / "bin" / "nvidia-cuda-mps-control").string());
  EXPECT_EQ(p.Method(), kMpsTimingMethod);
  EXPECT_TRUE(Has(p.Line(), "timing: MPS (cuco's own daemon")) << p.Line();
}

TEST_F(GpuSessionTest, DoctorsSectionNamesTheMethodAndWhy) {
  const std::string old_path = std::getenv("PATH") ? std::getenv("PATH") : "";
  testutil::WriteFakeMpsControl(root_ / "bin", record_);
  ::setenv("PATH", ((root_ / "bin").string() + ":" + old_path).c_str(), 1);
  const TimingPlan ok = CheckTimingPlan(tc_, Base());
  ::setenv("PATH", old_path.c_str(), 1);
  EXPECT_TRUE(ok.mps) << ok.why;
  const std::string text = FormatTimingSection(ok);
  EXPECT_TRUE(Has(text, "  method      MPS (cuco's own daemon: supervisor and candidate run concurrently)\n")) << text;
  EXPECT_TRUE(Has(text, "a test start for all 2 GPU(s) took")) << text;
  EXPECT_TRUE(fs::is_empty(root_ / "parent")) << "the doctor's test daemon leaves nothing";
  EXPECT_EQ(TimingPlanJson(ok)["comparable_with_peers"], true);

  TimingPlan none;
  none.why = "nvidia-cuda-mps-control not found (looked in PATH, /usr/local/nvidia/bin, /usr/bin)";
  const std::string no = FormatTimingSection(none);
  EXPECT_TRUE(Has(no, "  method      time-sliced (no MPS): not comparable with peers\n")) << no;
  EXPECT_TRUE(Has(no, "  why         nvidia-cuda-mps-control not found")) << no;
  EXPECT_EQ(TimingPlanJson(none)["comparable_with_peers"], false);
}

}  // namespace
}  // namespace cuco
