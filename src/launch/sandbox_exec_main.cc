// cuco-sandbox-exec: cuco's own small trusted program that runs a candidate after bwrap has built
// the sandbox (or alone, for --unsafe-no-sandbox). It sets PR_SET_NO_NEW_PRIVS, applies rlimits
// and a seccomp filter, and either execs the command (one process) or, with --ranks W, forks W
// rank processes and waits for them.
//
// Usage: cuco-sandbox-exec [options] -- <command> [args...]
//        cuco-sandbox-exec [--seccomp] --check      (loads the filter, checks it denies, prints "ok")
// Options (each at most once; numbers are decimal):
//   --rlimit-as N --rlimit-data N --rlimit-fsize N   bytes (soft = hard = N)
//   --rlimit-cpu S                                   seconds of CPU time (SIGXCPU, then SIGKILL)
//   --rlimit-nofile N --rlimit-nproc N
//   --seccomp | --no-seccomp                         the filter below (default: on)
//   --ranks W [--rank-fd-base B [--rank-log-fd-base L]]
//       rank r gets inherited fd B+r as fd 3 and, with L, fd L+r as its stdout and stderr; every
//       other fd above 2 is closed in it. It runs with CUCO_RANK=r CUCO_WORLD_SIZE=W
//       CUCO_LOCAL_RANK=r CUCO_LOCAL_WORLD_SIZE=W CUCO_SUPERVISOR_FD=3 added to its environment,
//       and torchrun's names for the same: RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE.
//       When a rank fails, the others get SIGKILL 3 s later. Exit status: the first failing
//       rank's (128+signal for a signal), 0 when all succeed. SIGTERM/SIGINT/SIGHUP are passed on
//       to the ranks. Descendants the ranks leave behind are killed before exiting.
// Exit status of its own: 2 for bad options, 126 when setting up failed, 127 when exec failed.
#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

constexpr int kExitUsage = 2;
constexpr int kExitSetup = 126;
// Every rank exited 0 but left processes running (they were killed): cuco/protocol.h's
// kSandboxLeftovers, which the supervisor reports as a broken rule.
constexpr int kExitLeftovers = 125;
constexpr int kExitExec = 127;
constexpr double kKillOthersAfterS = 3.0;

[[noreturn]] void Usage(const std::string& msg) {
  std::fprintf(stderr, "cuco-sandbox-exec: %s\n"
               "usage: cuco-sandbox-exec [--rlimit-{as,data,fsize,cpu,nofile,nproc} N] [--seccomp|--no-seccomp]\n"
               "                         [--ranks W --rank-fd-base B [--rank-log-fd-base L]] -- command [args...]\n"
               "       cuco-sandbox-exec [--seccomp|--no-seccomp] --check\n", msg.c_str());
  std::exit(kExitUsage);
}

struct Options {
  std::map<int, uint64_t> rlimits;  // RLIMIT_* -> value
  bool seccomp = true;
  bool check = false;
  int ranks = 0;
  int rank_fd_base = -1;
  int rank_log_fd_base = -1;
  std::vector<char*> command;  // null-terminated
};

uint64_t ParseNumber(const std::string& opt, const char* text, uint64_t max) {
  if (text == nullptr) Usage(opt + " needs a value");
  std::string s(text);
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 20) {
    Usage(opt + ": '" + s + "' is not a non-negative decimal number");
  }
  errno = 0;
  unsigned long long v = std::strtoull(text, nullptr, 10);
  if (errno != 0 || v > max) Usage(opt + ": " + s + " is out of range");
  return v;
}

Options Parse(int argc, char** argv) {
  static const std::map<std::string, int> kRlimits = {
      {"--rlimit-as", RLIMIT_AS},         {"--rlimit-data", RLIMIT_DATA},     {"--rlimit-fsize", RLIMIT_FSIZE},
      {"--rlimit-cpu", RLIMIT_CPU},       {"--rlimit-nofile", RLIMIT_NOFILE}, {"--rlimit-nproc", RLIMIT_NPROC}};
  Options o;
  std::map<std::string, bool> seen;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--") {
      ++i;
      break;
    }
    if (seen[a] && a.rfind("--", 0) == 0) Usage(a + " given twice");
    seen[a] = true;
    const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
    if (auto it = kRlimits.find(a); it != kRlimits.end()) {
      o.rlimits[it->second] = ParseNumber(a, value, UINT64_MAX - 1);
      ++i;
    } else if (a == "--seccomp" || a == "--no-seccomp") {
      if (seen["--seccomp"] && seen["--no-seccomp"]) Usage("--seccomp and --no-seccomp together");
      o.seccomp = a == "--seccomp";
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--ranks") {
      o.ranks = static_cast<int>(ParseNumber(a, value, 4096));
      ++i;
    } else if (a == "--rank-fd-base") {
      o.rank_fd_base = static_cast<int>(ParseNumber(a, value, 1 << 20));
      ++i;
    } else if (a == "--rank-log-fd-base") {
      o.rank_log_fd_base = static_cast<int>(ParseNumber(a, value, 1 << 20));
      ++i;
    } else {
      Usage("unknown option '" + a + "' (the command goes after --)");
    }
  }
  for (; i < argc; ++i) o.command.push_back(argv[i]);
  o.command.push_back(nullptr);
  if (o.check) {
    if (o.command.size() > 1 || o.ranks != 0 || !o.rlimits.empty()) Usage("--check takes no command, ranks or limits");
    return o;
  }
  if (o.command.size() < 2) Usage("no command after --");
  if (seen["--ranks"] && o.ranks < 1) Usage("--ranks must be at least 1");
  if (o.ranks > 0 && seen["--rank-fd-base"] && o.rank_fd_base < 3) Usage("--rank-fd-base must be at least 3");
  if (o.ranks > 0 && o.rank_fd_base < 0 && o.rank_log_fd_base >= 0) Usage("--rank-log-fd-base needs --rank-fd-base");
  if (o.ranks == 0 && (o.rank_fd_base >= 0 || o.rank_log_fd_base >= 0)) Usage("--rank-fd-base without --ranks");
  if (o.ranks > 0 && o.rank_log_fd_base >= 0 && o.rank_log_fd_base < 3) Usage("--rank-log-fd-base must be at least 3");
  if (o.ranks > 0 && o.rank_log_fd_base >= 0) {
    int a0 = o.rank_fd_base, a1 = a0 + o.ranks, b0 = o.rank_log_fd_base, b1 = b0 + o.ranks;
    if (a0 < b1 && b0 < a1) Usage("the rank fds and the rank log fds overlap");
  }
  return o;
}

// The filter: everything is allowed except what a kernel candidate never needs and an attacker
// wants. Syscalls of other ABIs (i386 int 0x80, x32) kill the process (libseccomp's bad-arch
// default), so they cannot route around the rules.
scmp_filter_ctx BuildFilter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (ctx == nullptr) return nullptr;
  const uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
  int rc = 0;
  auto deny = [&](int nr, uint32_t action) {
    if (nr < 0) return;  // not on this architecture
    rc |= seccomp_rule_add(ctx, action, nr, 0);
  };
  // Reading or writing other processes.
  for (const char* name : {"ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
                           "process_madvise"}) {
    deny(seccomp_syscall_resolve_name(name), eperm);
  }
  // Namespaces and mounts.
  for (const char* name : {"setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount",
                           "fspick", "move_mount", "open_tree", "mount_setattr"}) {
    deny(seccomp_syscall_resolve_name(name), eperm);
  }
  const uint64_t kNamespaceFlags[] = {CLONE_NEWNS,  CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                      CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET, CLONE_NEWTIME};
  for (uint64_t flag : kNamespaceFlags) {
    rc |= seccomp_rule_add(ctx, eperm, SCMP_SYS(unshare), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
    rc |= seccomp_rule_add(ctx, eperm, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  }
  // clone3 passes its flags in memory, which a filter cannot read: glibc falls back to clone.
  deny(seccomp_syscall_resolve_name("clone3"), SCMP_ACT_ERRNO(ENOSYS));
  // The kernel itself.
  for (const char* name : {"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
                           "reboot", "swapon", "swapoff"}) {
    deny(seccomp_syscall_resolve_name(name), SCMP_ACT_KILL_PROCESS);
  }
  for (const char* name : {"bpf", "perf_event_open", "keyctl", "add_key", "request_key", "userfaultfd", "iopl",
                           "ioperm", "acct", "quotactl", "io_uring_setup", "io_uring_enter", "io_uring_register",
                           "syslog", "lookup_dcookie", "open_by_handle_at", "name_to_handle_at"}) {
    deny(seccomp_syscall_resolve_name(name), eperm);
  }
  // personality: only the query (0xffffffff) is allowed.
  rc |= seccomp_rule_add(ctx, eperm, SCMP_SYS(personality), 1, SCMP_A0(SCMP_CMP_NE, 0xffffffffULL));
  if (rc != 0) {
    seccomp_release(ctx);
    return nullptr;
  }
  return ctx;
}

void Fail(const char* what) {
  std::fprintf(stderr, "cuco-sandbox-exec: %s: %s\n", what, std::strerror(errno));
  _exit(kExitSetup);
}

// Applies limits and the filter to this process (after which only exec follows).
void Confine(const Options& o, scmp_filter_ctx filter) {
  for (const auto& [resource, value] : o.rlimits) {
    struct rlimit rl{static_cast<rlim_t>(value), static_cast<rlim_t>(value)};
    if (resource == RLIMIT_CPU) rl.rlim_max = value + 1;  // SIGXCPU first, SIGKILL one second later
    if (setrlimit(resource, &rl) != 0) Fail("setrlimit");
  }
  if (filter != nullptr) {
    int rc = seccomp_load(filter);
    if (rc != 0) {
      errno = -rc;
      Fail("loading the seccomp filter");
    }
  }
}

[[noreturn]] void Exec(const Options& o) {
  execvp(o.command[0], o.command.data());
  std::fprintf(stderr, "cuco-sandbox-exec: exec %s: %s\n", o.command[0], std::strerror(errno));
  _exit(kExitExec);
}

// In a forked rank: fd rank_fd_base+r becomes 3 (and the log fd 1 and 2), all others above 2 close.
// Without --rank-fd-base (a program started once per rank: no supervisor pipe) the ranks share
// stdout and stderr and keep their other fds.
void SetUpRankFds(const Options& o, int r) {
  if (o.rank_fd_base < 0) return;
  int top = std::max(o.rank_fd_base, o.rank_log_fd_base) + o.ranks;
  int own = fcntl(o.rank_fd_base + r, F_DUPFD, top);
  if (own < 0) Fail("rank fd (is --rank-fd-base + rank open?)");
  int log = -1;
  if (o.rank_log_fd_base >= 0) {
    log = fcntl(o.rank_log_fd_base + r, F_DUPFD, top + 1);
    if (log < 0) Fail("rank log fd (is --rank-log-fd-base + rank open?)");
    if (dup2(log, 1) < 0 || dup2(log, 2) < 0) Fail("dup2 log fd");
  }
  if (dup2(own, 3) < 0) Fail("dup2 rank fd");
  if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0) {
    for (int fd = 4; fd <= top + 2; ++fd) close(fd);
  }
}

double Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int StatusCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// Our children that are not ranks (orphans reparented to us as subreaper); kill them all.
// Returns how many were still running (not zombies) when first seen.
int KillLeftovers() {
  int killed = 0;
  for (int round = 0; round < 50; ++round) {
    bool any = false;
    DIR* d = opendir("/proc");
    if (d == nullptr) return killed;
    while (dirent* e = readdir(d)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      char path[64], buf[512];
      std::snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      ssize_t n = read(fd, buf, sizeof(buf) - 1);
      close(fd);
      if (n <= 0) continue;
      buf[n] = '\0';
      const char* rp = std::strrchr(buf, ')');
      char state = 0;
      long ppid = 0;
      if (rp == nullptr || std::sscanf(rp + 1, " %c %ld", &state, &ppid) != 2 || ppid != getpid()) continue;
      any = true;
      if (state != 'Z') {
        kill(static_cast<pid_t>(pid), SIGKILL);
        if (round == 0) ++killed;
      }
    }
    closedir(d);
    while (waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (!any) return killed;
    usleep(10000);
  }
  return killed;
}

int RunRanks(const Options& o, scmp_filter_ctx filter) {
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  sigset_t wake, old;
  sigemptyset(&wake);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&wake, s);
  sigprocmask(SIG_BLOCK, &wake, &old);

  std::map<pid_t, int> running;  // pid -> rank
  for (int r = 0; r < o.ranks; ++r) {
    pid_t pid = fork();
    if (pid < 0) {
      std::perror("cuco-sandbox-exec: fork");
      for (auto& [p, rank] : running) kill(p, SIGKILL);
      KillLeftovers();
      return kExitSetup;
    }
    if (pid == 0) {
      sigprocmask(SIG_SETMASK, &old, nullptr);
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      SetUpRankFds(o, r);
      std::string rs = std::to_string(r), ws = std::to_string(o.ranks);
      setenv("CUCO_RANK", rs.c_str(), 1);
      setenv("CUCO_WORLD_SIZE", ws.c_str(), 1);
      setenv("CUCO_LOCAL_RANK", rs.c_str(), 1);
      setenv("CUCO_LOCAL_WORLD_SIZE", ws.c_str(), 1);
      // The names torchrun gives, for programs written for it (they run as they are).
      setenv("RANK", rs.c_str(), 1);
      setenv("WORLD_SIZE", ws.c_str(), 1);
      setenv("LOCAL_RANK", rs.c_str(), 1);
      setenv("LOCAL_WORLD_SIZE", ws.c_str(), 1);
      if (o.rank_fd_base >= 0) setenv("CUCO_SUPERVISOR_FD", "3", 1);
      Confine(o, filter);
      Exec(o);
    }
    running[pid] = r;
  }

  int result = 0;
  bool failed = false;
  double kill_at = 0;
  while (!running.empty()) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid > 0) {
      auto it = running.find(pid);
      if (it == running.end()) continue;  // an orphan reparented to us
      running.erase(it);
      int code = StatusCode(status);
      if (code != 0 && !failed) {
        failed = true;
        result = code;
        kill_at = Now() + kKillOthersAfterS;
      }
      continue;
    }
    if (failed && Now() >= kill_at) {
      for (auto& [p, rank] : running) kill(p, SIGKILL);
    }
    double wait_s = failed ? std::max(0.001, std::min(0.1, kill_at - Now())) : 0.1;
    timespec ts{static_cast<time_t>(wait_s), static_cast<long>((wait_s - static_cast<time_t>(wait_s)) * 1e9)};
    int sig = sigtimedwait(&wake, nullptr, &ts);
    if (sig == SIGTERM || sig == SIGINT || sig == SIGHUP) {
      for (auto& [p, rank] : running) kill(p, sig);
    }
  }
  // Processes the ranks left behind (daemons, orphans) are the candidate's escape attempt: say so.
  const int left = KillLeftovers();
  if (left > 0 && result == 0) {
    std::fprintf(stderr, "cuco-sandbox-exec: the candidate left %d process(es) running after its ranks exited; killed\n",
                 left);
    return kExitLeftovers;
  }
  return result;
}

// --check: the filter loads and denies what it should.
int Check(const Options& o, scmp_filter_ctx filter) {
  Confine(o, filter);
  if (o.seccomp) {
    errno = 0;
    if (syscall(SYS_unshare, CLONE_NEWUSER) == 0 || errno != EPERM) {
      std::fprintf(stderr, "cuco-sandbox-exec: the seccomp filter did not deny unshare(CLONE_NEWUSER)\n");
      return 1;
    }
    if (syscall(SYS_ptrace, 0, 0, 0, 0) == 0 || errno != EPERM) {
      std::fprintf(stderr, "cuco-sandbox-exec: the seccomp filter did not deny ptrace\n");
      return 1;
    }
  }
  std::printf("ok\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o = Parse(argc, argv);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) Fail("PR_SET_NO_NEW_PRIVS");
  scmp_filter_ctx filter = nullptr;
  if (o.seccomp) {
    filter = BuildFilter();
    if (filter == nullptr) {
      std::fprintf(stderr, "cuco-sandbox-exec: building the seccomp filter failed\n");
      return kExitSetup;
    }
  }
  if (o.check) return Check(o, filter);
  if (o.ranks == 0) {
    Confine(o, filter);
    Exec(o);
  }
  return RunRanks(o, filter);
}
