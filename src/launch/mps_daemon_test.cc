// The life of cuco's MPS daemon without a GPU, against a fake nvidia-cuda-mps-control
// (mps_test_util.h): private folders, the daemon's environment, the limits snapshot, and that the
// daemon, its server and its folders are gone on every way out.
#include "launch/mps_daemon.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "launch/mps_test_util.h"
#include "util/files.h"
#include "util/testutil.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using testutil::Has;
using testutil::ProcessAlive;

class MpsDaemonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path("/tmp") / ("cuco-mpst-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "parent");
    record_ = root_ / "record.txt";
  }
  void TearDown() override { fs::remove_all(root_); }

  MpsOptions Options(const std::string& mode) {
    MpsOptions o;
    o.control = testutil::WriteFakeMpsControl(root_ / "bin", record_, mode).string();
    o.devices = {"GPU-aaaa", "GPU-bbbb"};
    o.parent_dir = (root_ / "parent").string();
    o.start_timeout_s = 5;
    o.quit_timeout_s = 2;
    return o;
  }
  std::string Record() {
    auto t = ReadFile(record_);
    return t.ok() ? *t : "";
  }
  long Pid(const std::string& what) {  // "daemon" or "server", from the fake's record
    std::smatch m;
    const std::string r = Record();
    return std::regex_search(r, m, std::regex(what + " pid=([0-9]+)")) ? std::stol(m[1].str()) : -1;
  }
  bool ParentEmpty() { return fs::is_empty(root_ / "parent"); }
  static int Mode(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 0777) : -1;
  }

  fs::path root_, record_;
};

TEST_F(MpsDaemonTest, RunsInPrivateFoldersWithOnlyTheEvaluationsGpus) {
  ::setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "5", 1);  // inherited, it would cap every client
  auto d = MpsDaemon::Start(Options(""));
  ::unsetenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  MpsDaemon& m = **d;
  EXPECT_EQ(Mode(m.root()), 0700);
  EXPECT_EQ(Mode(m.pipe_dir()), 0700);
  EXPECT_EQ(Mode(m.log_dir()), 0700);
  EXPECT_EQ(fs::path(m.root()).parent_path(), root_ / "parent");
  EXPECT_FALSE(Has(m.log_dir(), m.pipe_dir())) << "the log folder must not lie in what clients get";
  EXPECT_EQ(m.ClientEnv(), (std::map<std::string, std::string>{{"CUDA_MPS_PIPE_DIRECTORY", m.pipe_dir()}}));
  const std::string r = Record();
  EXPECT_TRUE(Has(r, "visible=GPU-aaaa,GPU-bbbb")) << r;
  EXPECT_TRUE(Has(r, "atp=unset")) << r;
  EXPECT_TRUE(Has(r, "modes root=700 pipe=700 log=700")) << r;
  EXPECT_TRUE(Has(r, "pipe=" + m.pipe_dir() + " log=" + m.log_dir())) << r;
  EXPECT_TRUE(Has(r, "command start_server -uid " + std::to_string(::getuid()))) << r;
  auto servers = m.Servers();
  ASSERT_TRUE(servers.ok());
  ASSERT_EQ(servers->size(), 1u);
  EXPECT_TRUE(m.Alive());

  const long daemon = m.pid(), server = (*servers)[0];
  const MpsStopReport stop = m.Stop();
  EXPECT_TRUE(stop.stopped);
  EXPECT_TRUE(stop.quit_answered) << stop.Describe();
  EXPECT_FALSE(stop.daemon_killed) << stop.Describe();
  EXPECT_TRUE(stop.folder_removed);
  EXPECT_TRUE(Has(Record(), "command quit"));
  EXPECT_FALSE(ProcessAlive(daemon));
  EXPECT_FALSE(ProcessAlive(server));
  EXPECT_TRUE(ParentEmpty());
  EXPECT_FALSE(m.Alive());
  EXPECT_FALSE(m.Stop().stopped) << "a second Stop has nothing to do";
}

TEST_F(MpsDaemonTest, LimitsShowWhatAClientChanged) {
  auto d = MpsDaemon::Start(Options(""));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  auto before = (*d)->Limits();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_TRUE(Has(*before, "get_default_active_thread_percentage: 100.0")) << *before;
  EXPECT_TRUE(Has(*before, "get_default_device_pinned_mem_limit 1: ")) << "one line per device: " << *before;
  EXPECT_EQ(LimitsDiffer(*before, *before), "");
  const int server = (*(*d)->Servers())[0];
  ASSERT_TRUE((*d)->Command("set_active_thread_percentage " + std::to_string(server) + " 5").ok());
  auto after = (*d)->Limits();
  ASSERT_TRUE(after.ok());
  const std::string diff = LimitsDiffer(*before, *after);
  EXPECT_TRUE(Has(diff, "get_active_thread_percentage " + std::to_string(server) + ": 5")) << diff;
  ASSERT_TRUE((*d)->Command("set_default_active_thread_percentage 2").ok());
  EXPECT_TRUE(Has(LimitsDiffer(*before, *(*d)->Limits()), "get_default_active_thread_percentage: 2"));
}

TEST_F(MpsDaemonTest, ACommandTheDriverDoesNotKnowIsNoChange) {
  auto d = MpsDaemon::Start(Options("old-driver"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  auto before = (*d)->Limits();
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_TRUE(Has(*before, "get_default_device_pinned_mem_limit 0: (failed)")) << *before;
  EXPECT_EQ(LimitsDiffer(*before, *(*d)->Limits()), "");
}

TEST(MpsLimits, AServerThatCameOrWentWithTheSameLimitsIsNoChange) {
  const std::string a = "get_default_active_thread_percentage: 100.0\nget_active_thread_percentage 41: 100.0\n";
  const std::string b = "get_default_active_thread_percentage: 100.0\nget_active_thread_percentage 97: 100.0\n";
  const std::string none = "get_default_active_thread_percentage: 100.0\n";
  EXPECT_EQ(LimitsDiffer(a, b), "");
  EXPECT_EQ(LimitsDiffer(a, none), "");
  EXPECT_NE(LimitsDiffer(a, "get_default_active_thread_percentage: 100.0\nget_active_thread_percentage 97: 5.0\n"), "");
  EXPECT_NE(LimitsDiffer(a, "get_active_thread_percentage 41: 100.0\n"), "") << "a default no longer answered";
}

// A command that answered at the start and fails now (the daemon busy) is told apart from a limit
// that changed, and from a default no longer listed.
TEST(MpsLimits, OnlyUnansweredCommandsAreToldApart) {
  const std::string before = "get_default_active_thread_percentage: 100.0\nget_default_device_pinned_mem_limit 0: 0M\n";
  const std::string busy = "get_default_active_thread_percentage: 100.0\nget_default_device_pinned_mem_limit 0: (failed)\n";
  EXPECT_TRUE(OnlyUnanswered(LimitsDiffer(before, busy)));
  EXPECT_FALSE(OnlyUnanswered(LimitsDiffer(before, "get_default_active_thread_percentage: 5\n"
                                                   "get_default_device_pinned_mem_limit 0: (failed)\n")));
  EXPECT_FALSE(OnlyUnanswered(LimitsDiffer(before, "get_default_device_pinned_mem_limit 0: 0M\n")));  // "no longer: ..."
  EXPECT_FALSE(OnlyUnanswered(""));
}

TEST_F(MpsDaemonTest, ADaemonThatIgnoresQuitIsKilled) {
  auto d = MpsDaemon::Start(Options("ignore-quit"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const long daemon = (*d)->pid(), server = Pid("server");
  ASSERT_GT(server, 0);
  const MpsStopReport stop = (*d)->Stop();
  EXPECT_TRUE(stop.daemon_killed) << stop.Describe();
  EXPECT_FALSE(ProcessAlive(daemon));
  EXPECT_FALSE(ProcessAlive(server));
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, AServerLeftBehindIsKilledByPid) {
  auto d = MpsDaemon::Start(Options("leave-server"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const long server = Pid("server");
  ASSERT_GT(server, 0);
  const MpsStopReport stop = (*d)->Stop();
  ASSERT_EQ(stop.servers_killed.size(), 1u) << stop.Describe();
  EXPECT_EQ(stop.servers_killed[0], server);
  for (int i = 0; i < 1000 && ProcessAlive(server); ++i) ::usleep(10000);  // up to 10 s on a loaded host
  EXPECT_FALSE(ProcessAlive(server));
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, DestroyingItStopsEverything) {
  auto d = MpsDaemon::Start(Options("leave-server"));
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const long daemon = (*d)->pid(), server = Pid("server");
  d->reset();  // no Stop(): an early return, an exception
  for (int i = 0; i < 1000 && ProcessAlive(server); ++i) ::usleep(10000);  // up to 10 s on a loaded host
  EXPECT_FALSE(ProcessAlive(daemon));
  EXPECT_FALSE(ProcessAlive(server));
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, NoControlSocketFailsAndLeavesNothing) {
  MpsOptions o = Options("no-socket");
  o.start_timeout_s = 1;
  auto d = MpsDaemon::Start(o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(Has(d.status().message(), "control socket")) << d.status().message();
  EXPECT_FALSE(ProcessAlive(Pid("daemon")));
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, NoServerFailsAndLeavesNothing) {
  MpsOptions o = Options("no-server");
  o.start_timeout_s = 1;
  auto d = MpsDaemon::Start(o);
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(Has(d.status().message(), "server did not start")) << d.status().message();
  EXPECT_FALSE(ProcessAlive(Pid("daemon")));
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, AMissingControlProgramIsUnavailable) {
  MpsOptions o = Options("");
  o.control = (root_ / "nowhere" / "nvidia-cuda-mps-control").string();
  auto d = MpsDaemon::Start(o);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), Status::Code::kUnavailable);
  EXPECT_TRUE(ParentEmpty());
}

TEST_F(MpsDaemonTest, TheControlProgramIsFoundThroughPath) {
  const fs::path fake = testutil::WriteFakeMpsControl(root_ / "bin", record_);
  EXPECT_EQ(FindMpsControl(("/nonexistent:" + (root_ / "bin").string()).c_str()), fake.string());
}

}  // namespace
}  // namespace cuco
