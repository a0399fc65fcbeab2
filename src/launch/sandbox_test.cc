// Runs tests/sandbox/sandbox_probe.cc through the real sandbox and checks what it sees from inside.
#include "launch/sandbox.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "launch/test_util.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using launch_test::Slurp;

// The build directory this test runs from (build/src/launch/sandbox_test), which may have moved
// since it was built (the GPU machines get a copy).
fs::path BuildDir() { return fs::canonical("/proc/self/exe").parent_path().parent_path().parent_path(); }

const std::string kProbe = fs::exists(CUCO_SANDBOX_PROBE) ? std::string(CUCO_SANDBOX_PROBE)
                                                          : (BuildDir() / "tests/sandbox/cuco-sandbox-probe").string();

struct Ran {
  int code = -1;                                 // exit status, or 128 + signal
  std::multimap<std::string, std::string> kv;    // the probe's key=value lines
  std::string output;                            // stdout and stderr
  std::string Get(const std::string& k) const {
    auto it = kv.find(k);
    return it == kv.end() ? "(missing)" : it->second;
  }
  std::vector<std::string> All(const std::string& k) const {  // every value of `k`, in order
    std::vector<std::string> v;
    for (auto [it, end] = kv.equal_range(k); it != end; ++it) v.push_back(it->second);
    return v;
  }
};

// Runs argv with stdout+stderr captured; the fds in `keep` are inherited as they are.
Ran RunArgv(const std::vector<std::string>& argv, const std::vector<int>& keep = {}) {
  int out[2];
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(out[1], 2);
    for (int fd : keep) fcntl(fd, F_SETFD, 0);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execv(args[0], args.data());
    _exit(127);
  }
  close(out[1]);
  Ran r;
  char buf[4096];
  ssize_t n;
  while ((n = read(out[0], buf, sizeof(buf))) > 0) r.output.append(buf, static_cast<size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::istringstream in(r.output);
  std::string line;
  while (std::getline(in, line)) {
    if (size_t eq = line.find('='); eq != std::string::npos) r.kv.emplace(line.substr(0, eq), line.substr(eq + 1));
  }
  return r;
}

// A scratch directory outside /tmp (the sandbox's /tmp is private, so paths there prove nothing).
class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!DetectSandbox().available) GTEST_SKIP() << "sandbox not available: " << DetectSandbox().why_not;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = BuildDir() / "sandbox_test_scratch" / (std::to_string(getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  SandboxSpec Spec() const {
    SandboxSpec spec;
    spec.env = {{"PATH", "/usr/bin:/bin"}, {"CUCO_TEST_VAR", "visible"}};
    return spec;
  }
  // The probe run through the sandbox of `spec`.
  Ran Probe(SandboxSpec spec, const std::vector<std::string>& checks, const std::vector<int>& keep = {}) {
    // The build folder may lie under /tmp, which is private inside: show the probe's folder.
    spec.readonly_dirs.push_back(fs::canonical(fs::path(kProbe).parent_path()).string());
    auto prefix = SandboxPrefix(spec);
    EXPECT_TRUE(prefix.ok()) << prefix.status().ToString();
    if (!prefix.ok()) return Ran{};
    std::vector<std::string> argv = *prefix;
    argv.push_back(kProbe);
    argv.insert(argv.end(), checks.begin(), checks.end());
    return RunArgv(argv, keep);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(SandboxTest, SupportIsReported) {
  const SandboxSupport& s = DetectSandbox();
  EXPECT_TRUE(s.seccomp);
  EXPECT_NE(s.bwrap_version.find("bubblewrap"), std::string::npos) << s.bwrap_version;
  EXPECT_NE(FormatSandboxReport(s).find("available"), std::string::npos);
  EXPECT_EQ(SandboxSupportToJson(s)["available"], true);
}

TEST_F(SandboxTest, NewPidNamespaceNoCapabilitiesSeccompOn) {
  Ran r = Probe(Spec(), {"pid", "caps"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_LE(std::stoi(r.Get("pid")), 3) << r.output;
  EXPECT_LE(std::stoi(r.Get("procs")), 3) << r.output;  // bwrap's init and the probe
  EXPECT_EQ(r.Get("capeff"), "0000000000000000");
  EXPECT_EQ(r.Get("nnp"), "1");
  EXPECT_EQ(r.Get("seccomp"), "2");  // filter mode
}

TEST_F(SandboxTest, OnlyLoopbackNetwork) {
  Ran r = Probe(Spec(), {"net", "works"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("ifaces"), "lo");
  EXPECT_EQ(r.Get("inet"), "ENETUNREACH");
  EXPECT_EQ(r.Get("works"), "ok");  // threads, memfd over SCM_RIGHTS, mmap, loopback TCP
}

TEST_F(SandboxTest, EnvironmentIsOnlyTheExplicitOne) {
  ::setenv("ANTHROPIC_API_KEY", "sk-ant-secret", 1);
  ::setenv("OPENAI_API_KEY", "sk-secret", 1);
  Ran r = Probe(Spec(), {"env"});
  ::unsetenv("ANTHROPIC_API_KEY");
  ::unsetenv("OPENAI_API_KEY");
  ASSERT_EQ(r.code, 0) << r.output;
  std::vector<std::string> env;
  for (auto [it, end] = r.kv.equal_range("env"); it != end; ++it) env.push_back(it->second);
  std::sort(env.begin(), env.end());
  // bwrap itself adds PWD (the cwd).
  EXPECT_EQ(env, (std::vector<std::string>{"CUCO_TEST_VAR=visible", "PATH=/usr/bin:/bin", "PWD=/tmp"})) << r.output;
}

TEST_F(SandboxTest, WritesOnlyToWritableDirsAndPrivateTmp) {
  fs::create_directories(path("out"));
  SandboxSpec spec = Spec();
  spec.writable_dirs = {path("out")};
  Ran r = Probe(spec, {"write", path("out/ok.txt"), "write", path("outside.txt"), "write", "/tmp/private.txt",
                       "write", "/dev/shm/private"});
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<std::string> w = r.All("write");
  ASSERT_EQ(w.size(), 4u) << r.output;
  EXPECT_EQ(w[0], "ok");
  // Outside the writable dirs a write fails, or (for a test folder under /tmp, which is private
  // inside) lands in the sandbox's own /tmp: either way nothing reaches the host (checked below).
  if (path("outside.txt").rfind("/tmp/", 0) != 0) {
    EXPECT_EQ(w[1], "Read-only file system");
  }
  EXPECT_EQ(w[2], "ok");
  EXPECT_EQ(w[3], "ok");
  EXPECT_EQ(Slurp(path("out/ok.txt")), "x\n");
  EXPECT_FALSE(fs::exists(path("outside.txt")));
  EXPECT_FALSE(fs::exists("/tmp/private.txt"));
}

// A program writing into a folder relative to where it runs (`Output/Field-0.tec`, stop 90's
// Cahn-Hilliard solver): the folder is there, empty, in the private /tmp, and takes writes.
TEST_F(SandboxTest, TmpFoldersAreMadeInThePrivateTmp) {
  SandboxSpec spec = Spec();
  spec.tmp_folders = {"Output", "runs/a"};
  Ran r = Probe(spec, {"write", "/tmp/Output/Field-0.tec", "write", "/tmp/runs/a/x", "write", "/tmp/Missing/x"});
  ASSERT_EQ(r.code, 0) << r.output;
  const std::vector<std::string> w = r.All("write");
  ASSERT_EQ(w.size(), 3u) << r.output;
  EXPECT_EQ(w[0], "ok");
  EXPECT_EQ(w[1], "ok");
  EXPECT_NE(w[2], "ok") << "a folder not asked for is not made";
  for (const char* bad : {"/abs", "../up", "a/../b", "./a", ""}) {
    spec.tmp_folders = {bad};
    EXPECT_EQ(SandboxPrefix(spec).status().code(), Status::Code::kInvalidArgument) << bad;
  }
}

TEST_F(SandboxTest, HiddenDirsAndHomeSecretsAreEmpty) {
  fs::create_directories(path("home/.ssh"));
  ASSERT_TRUE(WriteFileAtomic(path("home/.ssh/id_ed25519"), "PRIVATE KEY").ok());
  ASSERT_TRUE(WriteFileAtomic(path("home/.netrc"), "machine x password y").ok());
  fs::create_directories(path("run/scratch"));
  ASSERT_TRUE(WriteFileAtomic(path("run/reference.bin"), "answers").ok());
  std::string old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
  ::setenv("HOME", path("home").c_str(), 1);
  SandboxSpec spec = Spec();
  spec.hidden_dirs = {path("run")};
  spec.writable_dirs = {path("run/scratch")};
  Ran r = Probe(spec, {"list", path("home/.ssh"), "list", path("run"), "write", path("run/scratch/out"), "list",
                       "/root/.ssh"});
  ::setenv("HOME", old_home.c_str(), 1);
  ASSERT_EQ(r.code, 0) << r.output;
  auto [it, end] = r.kv.equal_range("list");
  std::vector<std::string> l;
  for (; it != end; ++it) l.push_back(it->second);
  ASSERT_EQ(l.size(), 3u) << r.output;
  EXPECT_EQ(l[0], "0");  // ~/.ssh empty
  EXPECT_EQ(l[1], "1");  // only the writable scratch dir's mount point, not reference.bin
  EXPECT_TRUE(l[2] == "0" || l[2] == "No such file or directory") << l[2];
  EXPECT_EQ(r.Get("write"), "ok");
  EXPECT_TRUE(fs::exists(path("run/scratch/out")));

  // The .netrc file (a /dev/null on a nodev mount) cannot be read.
  spec.hidden_dirs.clear();
  spec.writable_dirs.clear();
  ::setenv("HOME", path("home").c_str(), 1);
  auto prefix = SandboxPrefix(spec);
  ::setenv("HOME", old_home.c_str(), 1);
  ASSERT_TRUE(prefix.ok());
  std::vector<std::string> argv = *prefix;
  argv.insert(argv.end(), {"/bin/cat", path("home/.netrc")});
  Ran cat = RunArgv(argv);
  EXPECT_NE(cat.code, 0) << cat.output;
  EXPECT_EQ(cat.output.find("password"), std::string::npos) << cat.output;
}

TEST_F(SandboxTest, RlimitsApplied) {
  SandboxSpec spec = Spec();
  spec.data_bytes = 1ull << 30;
  spec.address_space_bytes = 2ull << 30;
  spec.file_size_bytes = 1 << 20;
  spec.cpu_seconds = 30;
  spec.open_files = 64;
  spec.processes = 100;
  Ran r = Probe(spec, {"rlimits"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("rlimit_data"), std::to_string(1ull << 30));
  EXPECT_EQ(r.Get("rlimit_as"), std::to_string(2ull << 30));
  EXPECT_EQ(r.Get("rlimit_fsize"), std::to_string(1 << 20));
  EXPECT_EQ(r.Get("rlimit_cpu"), "30");
  EXPECT_EQ(r.Get("rlimit_nofile"), "64");
  EXPECT_EQ(r.Get("rlimit_nproc"), "100");
}

TEST_F(SandboxTest, CpuLimitKillsASpinner) {
  SandboxSpec spec = Spec();
  spec.cpu_seconds = 1;
  Ran r = Probe(spec, {"spin"});
  EXPECT_EQ(r.code, 128 + SIGXCPU) << r.output;
}

TEST_F(SandboxTest, SeccompDeniesPtraceVmReadvAndUserNamespaces) {
  Ran r = Probe(Spec(), {"ptrace", "vm_readv", "unshare_user"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("ptrace"), "EPERM");
  EXPECT_EQ(r.Get("vm_readv"), "EPERM");
  EXPECT_EQ(r.Get("unshare_user"), "EPERM");
}

TEST_F(SandboxTest, WithoutSeccompTheSameCallsWork) {  // shows the test above can fail
  SandboxSpec spec = Spec();
  spec.seccomp = false;
  Ran r = Probe(spec, {"vm_readv", "caps"});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("vm_readv"), "ok");
  EXPECT_EQ(r.Get("seccomp"), "0");
}

// Processes whose command line contains `token`.
int CountProcessesWith(const std::string& token) {
  int n = 0;
  for (const auto& e : fs::directory_iterator("/proc")) {
    std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = Slurp((e.path() / "cmdline").string());
    if (cmdline.find(token) != std::string::npos && launch_test::Alive(std::stoi(name))) ++n;
  }
  return n;
}

TEST_F(SandboxTest, DaemonisedGrandchildDiesWithTheSandbox) {
  fs::create_directories(path("w"));
  std::string token = "cuco-daemon-" + std::to_string(getpid());
  SandboxSpec spec = Spec();
  spec.writable_dirs = {path("w")};
  Ran r = Probe(spec, {"daemon", path("w"), token});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("daemon"), "started");
  // The namespace's processes die asynchronously after its init exits: wait, up to 10 s on a loaded host.
  for (int i = 0; i < 1000 && CountProcessesWith(token) > 0; ++i) usleep(10000);
  EXPECT_EQ(CountProcessesWith(token), 0);

  // Control: without the sandbox the daemon outlives the run (so the check above can fail).
  fs::remove(path("w/daemon.started"));
  std::vector<std::string> argv = UnsandboxedPrefix(spec);
  argv.insert(argv.end(), {kProbe, "daemon", path("w"), token});
  Ran bare = RunArgv(argv);
  EXPECT_EQ(bare.Get("daemon"), "started");
  EXPECT_EQ(CountProcessesWith(token), 1);
  pid_t daemon_pid = std::atoi(Slurp(path("w/daemon.started")).c_str());
  if (daemon_pid > 1) ::kill(daemon_pid, SIGKILL);
}

TEST_F(SandboxTest, CannotSignalProcessesOutside) {
  Ran r = Probe(Spec(), {"kill", std::to_string(getpid())});
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("kill"), "ESRCH");
}

TEST_F(SandboxTest, RanksGetTheirOwnFd3AndLogs) {
  // Rank r reads "hello r" from a pipe passed as fd 3 and writes its output to its own log file.
  constexpr int kRanks = 2;
  constexpr int kFdBase = 20, kLogBase = 30;
  std::vector<int> keep;
  for (int r = 0; r < kRanks; ++r) {
    int p[2];
    ASSERT_EQ(pipe2(p, O_CLOEXEC), 0);
    std::string msg = "hello " + std::to_string(r) + "\n";
    ASSERT_EQ(write(p[1], msg.data(), msg.size()), static_cast<ssize_t>(msg.size()));
    close(p[1]);
    ASSERT_EQ(dup3(p[0], kFdBase + r, O_CLOEXEC), kFdBase + r);
    close(p[0]);
    int log = open(path("rank" + std::to_string(r) + ".log").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ASSERT_GE(log, 0);
    ASSERT_EQ(dup3(log, kLogBase + r, O_CLOEXEC), kLogBase + r);
    close(log);
    keep.insert(keep.end(), {kFdBase + r, kLogBase + r});
  }
  SandboxSpec spec = Spec();
  spec.ranks = kRanks;
  spec.rank_fd_base = kFdBase;
  spec.rank_log_fd_base = kLogBase;
  Ran r = Probe(spec, {"fd3", "env"}, keep);
  for (int fd : keep) close(fd);
  ASSERT_EQ(r.code, 0) << r.output;
  for (int rank = 0; rank < kRanks; ++rank) {
    std::string log = Slurp(path("rank" + std::to_string(rank) + ".log"));
    EXPECT_NE(log.find("rank=" + std::to_string(rank) + "\n"), std::string::npos) << log;
    EXPECT_NE(log.find("fd3=hello " + std::to_string(rank) + "\n"), std::string::npos) << log;
    EXPECT_NE(log.find("fds=0,1,2,3\n"), std::string::npos) << log;
    EXPECT_NE(log.find("env=CUCO_WORLD_SIZE=2\n"), std::string::npos) << log;
    EXPECT_NE(log.find("env=CUCO_SUPERVISOR_FD=3\n"), std::string::npos) << log;
  }
}

TEST_F(SandboxTest, FailingRankDecidesTheExitCodeAndOthersAreKilled) {
  SandboxSpec spec = Spec();
  spec.ranks = 2;
  spec.rank_fd_base = 40;  // fds 40 and 41: /dev/null
  int a = open("/dev/null", O_RDONLY | O_CLOEXEC), b = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_EQ(dup3(a, 40, O_CLOEXEC), 40);
  ASSERT_EQ(dup3(b, 41, O_CLOEXEC), 41);
  close(a);
  close(b);
  auto prefix = SandboxPrefix(spec);
  ASSERT_TRUE(prefix.ok());
  // Rank 0 exits 7 at once; rank 1 sleeps and must be killed about 3 s later.
  std::vector<std::string> argv = *prefix;
  argv.insert(argv.end(), {"/bin/sh", "-c", "[ \"$CUCO_RANK\" = 0 ] && exit 7; exec sleep 60"});
  auto t0 = std::chrono::steady_clock::now();
  Ran r = RunArgv(argv, {40, 41});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(40);
  close(41);
  EXPECT_EQ(r.code, 7) << r.output;
  EXPECT_GT(s, 2.5);
  EXPECT_LT(s, 20);
}

TEST_F(SandboxTest, OnlyTheAssignedGpuNodes) {
  if (!fs::exists("/dev/nvidiactl") || !fs::exists("/dev/nvidia0")) GTEST_SKIP() << "no NVIDIA GPU here";
  SandboxSpec spec = Spec();
  spec.gpus = {0};
  auto prefix = SandboxPrefix(spec);
  ASSERT_TRUE(prefix.ok());
  std::vector<std::string> argv = *prefix;
  argv.insert(argv.end(), {"/bin/ls", "/dev"});
  Ran r = RunArgv(argv);
  ASSERT_EQ(r.code, 0) << r.output;
  std::vector<std::string> nvidia;
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("nvidia", 0) == 0) nvidia.push_back(line);
  }
  std::sort(nvidia.begin(), nvidia.end());
  std::vector<std::string> want = {"nvidia-uvm", "nvidia0", "nvidiactl"};
  if (!fs::exists("/dev/nvidia-uvm")) want.erase(want.begin());
  EXPECT_EQ(nvidia, want) << r.output;
}

// tests/sandbox/gpu_probe.cu, compiled by tests/sandbox/gpu-check.sh, which names it in this variable.
TEST_F(SandboxTest, CudaWorksInsideWithSeccomp) {
  const char* program = std::getenv("CUCO_SANDBOX_GPU_PROBE");
  if (program == nullptr || !fs::exists("/dev/nvidia0")) GTEST_SKIP() << "no GPU or CUCO_SANDBOX_GPU_PROBE unset";
  SandboxSpec spec = Spec();
  spec.gpus = {0};
  spec.data_bytes = 32ull << 30;  // RLIMIT_DATA must not break CUDA (RLIMIT_AS would)
  spec.readonly_dirs = {fs::canonical(fs::path(program).parent_path()).string()};
  auto prefix = SandboxPrefix(spec);
  ASSERT_TRUE(prefix.ok());
  std::vector<std::string> argv = *prefix;
  argv.push_back(fs::canonical(program).string());
  Ran r = RunArgv(argv);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("gpu_probe"), "ok") << r.output;
}

// Start-up cost of one sandbox (bwrap, namespaces, mounts, seccomp) around /bin/true; the median
// is printed for bench/results. The bound is loose: CI machines are slow and shared.
// The same under CUDA MPS: the client must reach the server through the bound pipe dir (its log
// gains a connected client), with the private /dev/shm, ipc and pid namespaces and seccomp.
TEST_F(SandboxTest, CudaWorksUnderMpsInside) {
  const char* program = std::getenv("CUCO_SANDBOX_GPU_PROBE");
  const char* pipe_dir = std::getenv("CUCO_SANDBOX_MPS_PIPE_DIR");
  const char* log_dir = std::getenv("CUCO_SANDBOX_MPS_LOG_DIR");
  if (program == nullptr || pipe_dir == nullptr || log_dir == nullptr) {
    GTEST_SKIP() << "CUCO_SANDBOX_GPU_PROBE, CUCO_SANDBOX_MPS_PIPE_DIR or CUCO_SANDBOX_MPS_LOG_DIR unset";
  }
  auto connected = [&] {
    std::istringstream in(Slurp(std::string(log_dir) + "/server.log"));
    int n = 0;
    for (std::string line; std::getline(in, line);) n += line.find("connected") != std::string::npos;
    return n;
  };
  int before = connected();
  SandboxSpec spec = Spec();
  spec.gpus = {0};
  spec.mps_pipe_dir = pipe_dir;
  spec.env["CUDA_MPS_PIPE_DIRECTORY"] = pipe_dir;
  spec.readonly_dirs = {fs::canonical(fs::path(program).parent_path()).string()};
  auto prefix = SandboxPrefix(spec);
  ASSERT_TRUE(prefix.ok());
  std::vector<std::string> argv = *prefix;
  argv.push_back(fs::canonical(program).string());
  Ran r = RunArgv(argv);
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.Get("gpu_probe"), "ok") << r.output;
  EXPECT_GT(connected(), before) << "the MPS server saw no client";
}

TEST_F(SandboxTest, StartUpOverhead) {
  auto prefix = SandboxPrefix(Spec());
  ASSERT_TRUE(prefix.ok());
  std::vector<std::string> argv = *prefix;
  argv.push_back("/bin/true");
  auto median_s = [](const std::vector<std::string>& cmd) {
    std::vector<double> t;
    for (int i = 0; i < 21; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      EXPECT_EQ(RunArgv(cmd).code, 0);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  double bare = median_s({"/bin/true"}), boxed = median_s(argv);
  std::printf("sandbox start-up: median %.1f ms (/bin/true alone %.1f ms) over 21 runs\n", boxed * 1e3, bare * 1e3);
  EXPECT_LT(boxed, 0.5);
}

TEST_F(SandboxTest, BadSpecsAreRejected) {
  SandboxSpec spec = Spec();
  spec.writable_dirs = {"relative/dir"};
  EXPECT_EQ(SandboxPrefix(spec).status().code(), Status::Code::kInvalidArgument);
  spec = Spec();
  spec.readonly_dirs = {path("does-not-exist")};
  EXPECT_EQ(SandboxPrefix(spec).status().code(), Status::Code::kInvalidArgument);
  spec = Spec();
  spec.ranks = 2;
  spec.rank_fd_base = 1;
  EXPECT_EQ(SandboxPrefix(spec).status().code(), Status::Code::kInvalidArgument);
  spec = Spec();
  spec.env["A=B"] = "x";
  EXPECT_EQ(SandboxPrefix(spec).status().code(), Status::Code::kInvalidArgument);
}

TEST_F(SandboxTest, ExecRejectsBadOptions) {
  const std::string exec = DetectSandbox().exec_path;
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{exec, "--rlimit-as", "12x", "--", "/bin/true"},
        std::vector<std::string>{exec, "--bogus", "--", "/bin/true"},
        std::vector<std::string>{exec, "--ranks", "2", "--rank-fd-base", "1", "--", "/bin/true"},
        std::vector<std::string>{exec, "--ranks", "2", "--rank-log-fd-base", "5", "--", "/bin/true"},
        std::vector<std::string>{exec, "--rlimit-cpu", "1", "--rlimit-cpu", "2", "--", "/bin/true"},
        std::vector<std::string>{exec, "--no-seccomp"}}) {
    Ran r = RunArgv(bad);
    EXPECT_EQ(r.code, 2) << bad[1] << ": " << r.output;
    EXPECT_NE(r.output.find("cuco-sandbox-exec:"), std::string::npos);
  }
  Ran ok = RunArgv({exec, "--no-seccomp", "--", "/bin/true"});
  EXPECT_EQ(ok.code, 0) << ok.output;
  // Ranks without per-rank fds (a program started once per rank): each gets its rank, under
  // cuco's and torchrun's names, and no supervisor fd.
  Ran ranks = RunArgv({exec, "--no-seccomp", "--ranks", "2", "--", "/bin/sh", "-c",
                       "echo rank=$RANK/$WORLD_SIZE cuco=$CUCO_RANK fd=${CUCO_SUPERVISOR_FD:-none}"});
  EXPECT_EQ(ranks.code, 0) << ranks.output;
  EXPECT_NE(ranks.output.find("rank=0/2 cuco=0 fd=none"), std::string::npos) << ranks.output;
  EXPECT_NE(ranks.output.find("rank=1/2 cuco=1 fd=none"), std::string::npos) << ranks.output;
}

}  // namespace
}  // namespace cuco
