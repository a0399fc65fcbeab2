#include "launch/subprocess.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "launch/test_util.h"

namespace cuco {
namespace {

using launch_test::Alive;
using launch_test::OurChildren;
using launch_test::PidsIn;
using launch_test::Slurp;
using launch_test::TempDir;

ProcessSpec Sh(const std::string& script) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", script};
  return spec;
}

ProcessSpec Argv(std::vector<std::string> argv, std::string cwd = "") {
  ProcessSpec spec;
  spec.argv = std::move(argv);
  spec.cwd = std::move(cwd);
  return spec;
}

TEST(RunProcess, ReportsExitCode) {
  ProcessOutcome o = RunProcess(Sh("exit 7"), 10);
  EXPECT_TRUE(o.started);
  EXPECT_EQ(o.exit_code, 7);
  EXPECT_EQ(o.signal, 0);
  EXPECT_FALSE(o.timed_out);
  EXPECT_FALSE(o.ok());
  EXPECT_EQ(o.Describe(), "exit 7");
  EXPECT_TRUE(RunProcess(Sh("true"), 10).ok());
}

TEST(RunProcess, ReportsSignal) {
  ProcessOutcome o = RunProcess(Sh("kill -SEGV $$"), 10);
  EXPECT_TRUE(o.started);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.Describe(), "signal 11 (SIGSEGV)");
}

TEST(RunProcess, NoCoreDumpByDefault) {
  CapturedRun r = RunCapture({"sh", "-c", "ulimit -c"}, 10);
  EXPECT_EQ(r.output, "0\n");
}

TEST(RunProcess, ReportsStartErrors) {
  ProcessOutcome o = RunProcess(Argv({"cuco-no-such-program"}), 10);
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("not found"), std::string::npos) << o.start_error;

  o = RunProcess(Argv({"/nonexistent/prog"}), 10);
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("exec /nonexistent/prog"), std::string::npos) << o.start_error;

  o = RunProcess(Argv({"true"}, "/nonexistent/dir"), 10);
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("chdir /nonexistent/dir"), std::string::npos) << o.start_error;

  o = RunProcess(Argv({}), 10);
  EXPECT_FALSE(o.started);
}

// A shell that starts background children and waits: the timeout must take the whole group.
TEST(RunProcess, TimeoutKillsWholeGroup) {
  TempDir tmp;
  ProcessSpec spec = Sh("sleep 1000 & echo pid=$!; sleep 1000 & echo pid=$!; echo pid=$$; wait");
  spec.stdout_path = tmp.path("out.log");
  spec.term_grace_s = 1.0;
  ProcessOutcome o = RunProcess(spec, 0.5);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_FALSE(o.unkillable);
  EXPECT_GE(o.wall_s, 0.5);
  EXPECT_LT(o.wall_s, 0.5 + 1.0 + 1.0);
  std::vector<pid_t> pids = PidsIn(Slurp(spec.stdout_path));
  ASSERT_EQ(pids.size(), 3u);
  for (pid_t pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
  EXPECT_TRUE(OurChildren().empty());
}

// Processes that ignore SIGTERM get SIGKILL after the grace.
TEST(RunProcess, EscalatesToSigkill) {
  TempDir tmp;
  ProcessSpec spec = Sh("trap '' TERM; sleep 1000 & echo pid=$!; echo pid=$$; wait");
  spec.stdout_path = tmp.path("out.log");
  spec.term_grace_s = 0.3;
  ProcessOutcome o = RunProcess(spec, 0.3);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_LT(o.wall_s, 0.3 + 0.3 + 1.0);
  std::vector<pid_t> pids = PidsIn(Slurp(spec.stdout_path));
  ASSERT_EQ(pids.size(), 2u);
  for (pid_t pid : pids) EXPECT_FALSE(Alive(pid)) << pid;
}

// Children left behind by a process that exited on its own are killed too.
TEST(RunProcess, KillsLeftoverChildrenAfterExit) {
  TempDir tmp;
  ProcessSpec spec = Sh("sleep 1000 & echo pid=$!; exit 3");
  spec.stdout_path = tmp.path("out.log");
  spec.term_grace_s = 1.0;
  ProcessOutcome o = RunProcess(spec, 30);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_FALSE(o.timed_out);
  EXPECT_LT(o.wall_s, 2.0);
  std::vector<pid_t> pids = PidsIn(Slurp(spec.stdout_path));
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_FALSE(Alive(pids[0]));
}

// A child that left the group with setsid is still found through /proc while its parent lives.
TEST(RunProcess, KillsDescendantThatCalledSetsid) {
  TempDir tmp;
  ProcessSpec spec = Sh("setsid sleep 1000 & echo pid=$!; wait");
  spec.stdout_path = tmp.path("out.log");
  spec.term_grace_s = 0.5;
  ProcessOutcome o = RunProcess(spec, 0.5);
  EXPECT_TRUE(o.timed_out);
  std::vector<pid_t> pids = PidsIn(Slurp(spec.stdout_path));
  ASSERT_EQ(pids.size(), 1u);
  EXPECT_FALSE(Alive(pids[0]));
}

// Ignored signals survive exec; the child must get default dispositions anyway.
TEST(RunProcess, ChildGetsDefaultSignals) {
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  sigaction(SIGTERM, &ign, &old);
  ProcessSpec spec = Sh("exec sleep 1000");
  spec.term_grace_s = 5;
  ProcessOutcome o = RunProcess(spec, 0.2);
  sigaction(SIGTERM, &old, nullptr);
  EXPECT_TRUE(o.timed_out);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_LT(o.wall_s, 2.0);
}

TEST(RunProcess, WritesStdoutAndStderrFiles) {
  TempDir tmp;
  ProcessSpec spec = Sh("echo out; echo err >&2; echo out2");
  spec.stdout_path = tmp.path("out.log");
  spec.stderr_path = tmp.path("err.log");
  ASSERT_TRUE(RunProcess(spec, 10).ok());
  EXPECT_EQ(Slurp(spec.stdout_path), "out\nout2\n");
  EXPECT_EQ(Slurp(spec.stderr_path), "err\n");

  spec.stderr_path = spec.stdout_path;  // merged, in order, truncating the old contents
  ASSERT_TRUE(RunProcess(spec, 10).ok());
  EXPECT_EQ(Slurp(spec.stdout_path), "out\nerr\nout2\n");

  spec.stdout_path = tmp.path("no/such/dir/out.log");
  ProcessOutcome o = RunProcess(spec, 10);
  EXPECT_FALSE(o.started);
  EXPECT_NE(o.start_error.find("no/such/dir"), std::string::npos) << o.start_error;
}

TEST(RunProcess, DeliversStdin) {
  TempDir tmp;
  ProcessSpec spec;
  spec.argv = {"cat"};
  spec.stdin_data = "hello\nworld";
  spec.stdout_path = tmp.path("out.log");
  ASSERT_TRUE(RunProcess(spec, 10).ok());
  EXPECT_EQ(Slurp(spec.stdout_path), "hello\nworld");

  spec.argv = {"wc", "-c"};  // more than a pipe buffer
  spec.stdin_data = std::string(3 << 20, 'x');
  ASSERT_TRUE(RunProcess(spec, 10).ok());
  EXPECT_EQ(std::stoul(Slurp(spec.stdout_path)), 3u << 20);

  spec.argv = {"true"};  // a child that never reads its stdin
  EXPECT_TRUE(RunProcess(spec, 10).ok());
}

TEST(RunProcess, AppliesEnvAndCwd) {
  TempDir tmp;
  ::setenv("CUCO_TEST_PARENT_VAR", "parent", 1);
  ::setenv("CUCO_TEST_KEPT_VAR", "kept", 1);
  ProcessSpec spec = Sh("echo \"$FOO|${CUCO_TEST_PARENT_VAR-unset}|$CUCO_TEST_KEPT_VAR|$(pwd)\"");
  spec.env_set = {{"FOO", "bar baz"}, {"CUCO_TEST_KEPT_VAR", "overridden"}};
  spec.env_unset = {"CUCO_TEST_PARENT_VAR"};
  spec.cwd = tmp.dir();
  spec.stdout_path = tmp.path("out.log");
  ASSERT_TRUE(RunProcess(spec, 10).ok());
  ::unsetenv("CUCO_TEST_PARENT_VAR");
  ::unsetenv("CUCO_TEST_KEPT_VAR");
  std::string real = std::filesystem::canonical(tmp.dir()).string();
  EXPECT_EQ(Slurp(spec.stdout_path), "bar baz|unset|overridden|" + real + "\n");
}

TEST(RunCapture, CapturesInterleavedOutput) {
  CapturedRun r = RunCapture({"sh", "-c", "echo a; echo b >&2; echo \"$X\"; exit 2"}, 10, {{"X", "c"}});
  EXPECT_EQ(r.outcome.exit_code, 2);
  EXPECT_EQ(r.output, "a\nb\nc\n");
}

TEST(RunCapture, KeepsOnlyTheTail) {
  CapturedRun r = RunCapture({"sh", "-c", "head -c 3000000 /dev/zero | tr '\\0' a; echo END"}, 10);
  ASSERT_TRUE(r.outcome.ok()) << r.outcome.Describe();
  std::string marker = "[cuco: " + std::to_string(3000004 - kCaptureLimitBytes) + " bytes dropped]\n";
  EXPECT_EQ(r.output.substr(0, marker.size()), marker);
  EXPECT_EQ(r.output.size(), marker.size() + kCaptureLimitBytes);
  EXPECT_EQ(r.output.substr(r.output.size() - 5), "aEND\n");
}

// Output from a process that hangs is still captured up to the kill.
TEST(RunCapture, TimeoutKeepsOutput) {
  CapturedRun r = RunCapture({"sh", "-c", "echo started; sleep 1000 & wait"}, 0.3);
  EXPECT_TRUE(r.outcome.timed_out);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_LT(r.outcome.wall_s, 3.0);
}

// A child that closes its output early must not make us spin on the dead pipe.
TEST(RunCapture, ClosedOutputDoesNotSpin) {
  rusage before {}, after {};
  getrusage(RUSAGE_SELF, &before);
  CapturedRun r = RunCapture({"sh", "-c", "echo hi; exec >&- 2>&-; sleep 0.5"}, 10);
  getrusage(RUSAGE_SELF, &after);
  EXPECT_TRUE(r.outcome.ok());
  EXPECT_EQ(r.output, "hi\n");
  auto cpu = [](const rusage& u) { return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec); };
  EXPECT_LT(cpu(after) - cpu(before), 0.2);
}

TEST(SignalAllRunningGroups, StopsRunningProcesses) {
  ProcessOutcome o;
  std::thread t([&] { o = RunProcess(Sh("sleep 1000 & wait"), 30); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  SignalAllRunningGroups(SIGKILL);
  t.join();
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_FALSE(o.timed_out);
  EXPECT_LT(o.wall_s, 3.0);
}

TEST(RunProcess, ConcurrentRunsStayApart) {
  std::vector<std::thread> threads;
  std::vector<ProcessOutcome> outcomes(6);
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      outcomes[i] = RunProcess(Sh(i % 2 == 0 ? "exit " + std::to_string(i) : "sleep 1000"), 0.3 + 0.05 * i);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_TRUE(OurChildren().empty());
  for (int i = 0; i < 6; ++i) {
    if (i % 2 == 0) {
      EXPECT_EQ(outcomes[i].exit_code, i);
      EXPECT_FALSE(outcomes[i].timed_out);
    } else {
      EXPECT_TRUE(outcomes[i].timed_out);
    }
  }
}

// Ctrl-C reaches the terminal's whole process group, which is cuco's: a child between fork() and
// its own setpgid() is still in it (signals blocked), and must not die of that signal once it has
// moved out. Run in a child process of its own group, so that the SIGINTs stay there; it spawns
// short children while a thread sends SIGINT to the group as fast as it can.
TEST(RunProcess, SignalsToTheParentsGroupNeverReachAChild) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    struct sigaction count {};
    count.sa_handler = [](int) {};
    count.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &count, nullptr);
    std::atomic<bool> done{false};
    std::thread storm([&] {
      while (!done.load()) {
        ::kill(0, SIGINT);
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
    int killed = 0;
    for (int i = 0; i < 300; ++i) {
      CapturedRun r = RunCapture({"true"}, 30);
      killed += r.outcome.signal == SIGINT;
    }
    done = true;
    storm.join();
    ::_exit(killed == 0 ? 0 : 10 + std::min(killed, 100));
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "the test's child died: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << (WEXITSTATUS(status) - 10) << " of 300 children died of the group's SIGINT";
}

}  // namespace
}  // namespace cuco
