#include "supervisor/candidate_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

namespace cuco::supervisor {
namespace {

namespace fs = std::filesystem;

// A supervisor ended by SIGTERM (a scheduler's cancel) takes its candidate's whole process group
// with it: here a grandchild that ignores SIGTERM and is not the supervisor's child, so that only
// the supervisor's handler can end it (the rank's parent-death signal ends the rank, not it).
TEST(CandidateProcessTest, SigtermToTheSupervisorKillsTheCandidatesProcessGroup) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("cuco_cp_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string pid_file = (dir / "grandchild.pid").string();
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);  // orphans come to us, to be reaped and seen
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t supervisor = ::fork();
  ASSERT_GE(supervisor, 0);
  if (supervisor == 0) {
    ::close(ready[0]);
    CandidateProcess cp;
    const std::string script = "trap '' TERM; sleep 60 & echo $! > " + pid_file + ".tmp && mv " + pid_file + ".tmp " +
                               pid_file + "; wait";
    const std::string err =
        cp.Start({}, {"/bin/sh", "-c", script}, 1, {(dir / "rank0.log").string()}, {"PATH=/usr/bin:/bin"});
    if (!err.empty()) ::_exit(3);
    while (!fs::exists(pid_file)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    [[maybe_unused]] ssize_t w = ::write(ready[1], "r", 1);
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1) << "the supervisor did not start its candidate";
  ::close(ready[0]);
  pid_t grandchild = 0;
  std::ifstream(pid_file) >> grandchild;
  ASSERT_GT(grandchild, 0);

  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(supervisor, &status, 0), supervisor);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "status " << status;

  // The grandchild, reparented to us, ends by SIGKILL within moments (it would sleep 60 s).
  bool gone = false;
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!gone && std::chrono::steady_clock::now() < end) {
    int gs = 0;
    const pid_t r = ::waitpid(grandchild, &gs, WNOHANG);
    if (r == grandchild) {
      gone = true;
      EXPECT_TRUE(WIFSIGNALED(gs) && WTERMSIG(gs) == SIGKILL) << "status " << gs;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (!gone) ::kill(grandchild, SIGKILL);
  EXPECT_TRUE(gone) << "the candidate's grandchild outlived the supervisor's SIGTERM";
  // Reap the rank itself (also reparented here), whatever ended it.
  while (::waitpid(-1, &status, WNOHANG) > 0) {
  }
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco::supervisor
