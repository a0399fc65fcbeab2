#include "launch/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>

#include "launch/process_group.h"
#include "launch/unique_fd.h"

extern char** environ;

namespace cuco::launch_internal {
namespace {

// ---- file descriptors ------------------------------------------------------------------------

bool WriteAll(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// An unnamed file holding `data`, positioned at 0: the child's stdin. A file rather than a pipe,
// so a child that never reads it cannot block us and one that exits early cannot SIGPIPE us.
UniqueFd StdinFile(const std::string& data, std::string* error) {
  int fd = ::memfd_create("cuco-stdin", MFD_CLOEXEC);
  if (fd < 0) {
    const char* tmpdir = std::getenv("TMPDIR");
    std::string tmpl = std::string(tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp") + "/cuco-stdin-XXXXXX";
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(tmpl.c_str());
  }
  if (fd < 0) {
    *error = ErrnoText("stdin file", errno);
    return UniqueFd();
  }
  UniqueFd f = AboveStdio(fd);
  if (!WriteAll(f.get(), data.data(), data.size()) || ::lseek(f.get(), 0, SEEK_SET) != 0) {
    *error = ErrnoText("stdin file", errno);
    return UniqueFd();
  }
  return f;
}

UniqueFd OpenOutput(const std::string& path, std::string* error) {
  int fd = path.empty() ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
                        : ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) *error = ErrnoText(path.empty() ? "/dev/null" : path, errno);
  return AboveStdio(fd);
}

// ---- environment -----------------------------------------------------------------------------

std::string EnvKey(const std::string& entry) { return entry.substr(0, entry.find('=')); }

std::vector<std::string> ChildEnv(const ProcessSpec& spec) {
  std::set<std::string> drop(spec.env_unset.begin(), spec.env_unset.end());
  for (const auto& [k, v] : spec.env_set) drop.insert(k);
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry(*e);
    if (drop.count(EnvKey(entry)) == 0) env.push_back(std::move(entry));
  }
  for (const auto& [k, v] : spec.env_set) env.push_back(k + "=" + v);
  return env;
}

// ---- the child side of fork() (async-signal-safe calls only) ----------------------------------

struct ExecError {
  int err;
  char stage[24];
};

[[noreturn]] void ChildFail(int fd, const char* stage) {
  ExecError e{};
  e.err = errno;
  std::strncpy(e.stage, stage, sizeof(e.stage) - 1);
  ssize_t ignored = ::write(fd, &e, sizeof(e));
  (void)ignored;
  ::_exit(127);
}

void CloseFrom(int lo, int hi) {  // closes [lo, hi]
  if (lo > hi) return;
#ifdef SYS_close_range
  if (::syscall(SYS_close_range, static_cast<unsigned>(lo), static_cast<unsigned>(hi), 0u) == 0) return;
#endif
  int cap = hi < 65535 ? hi : 65535;
  for (int fd = lo; fd <= cap; ++fd) ::close(fd);
}

struct ChildPlan {
  pid_t pgid;
  pid_t parent;
  const char* exe;
  char* const* argv;
  char* const* envp;
  const char* cwd;  // nullptr: stay
  int in, out, err, report;
  bool core_dumps;
};

[[noreturn]] void ChildMain(const ChildPlan& p) {
  if (::setpgid(0, p.pgid) != 0) ChildFail(p.report, "setpgid");
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) ChildFail(p.report, "prctl");
  if (::getppid() != p.parent) ::_exit(127);  // the parent died before prctl
  // Until setpgid above the child was still in the parent's group, with every signal blocked: a
  // Ctrl-C (or any signal to that group) then is pending here, meant for cuco, and with the default
  // action it would kill the child as soon as the mask is lifted (a readelf, a compile or a
  // supervisor dead of "signal 2", read as a verdict on the candidate). Ignoring a signal discards
  // it when pending, so each one goes through SIG_IGN before SIG_DFL.
  struct sigaction ign {}, dfl {};
  ign.sa_handler = SIG_IGN;
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    ::sigaction(sig, &ign, nullptr);
    ::sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!p.core_dumps) {
    struct rlimit zero {0, 0};
    ::setrlimit(RLIMIT_CORE, &zero);
  }
  if (p.cwd != nullptr && ::chdir(p.cwd) != 0) ChildFail(p.report, "chdir");
  if (::dup2(p.in, 0) < 0 || ::dup2(p.out, 1) < 0 || ::dup2(p.err, 2) < 0) ChildFail(p.report, "dup2");
  CloseFrom(3, p.report - 1);
  CloseFrom(p.report + 1, ~0U >> 1);
  ::execve(p.exe, p.argv, p.envp);
  ChildFail(p.report, "exec");
}

}  // namespace

std::string ResolveProgram(const std::string& name, const std::string& path_env) {
  if (name.empty()) return "";
  if (name.find('/') != std::string::npos) return name;
  std::stringstream dirs(path_env);
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (dir.empty() || dir[0] != '/') continue;  // relative entries would depend on the cwd
    std::string candidate = dir + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

std::string ChildPath(const ProcessSpec& spec) {
  if (auto it = spec.env_set.find("PATH"); it != spec.env_set.end()) return it->second;
  for (const std::string& k : spec.env_unset) {
    if (k == "PATH") return "/usr/local/bin:/usr/bin:/bin";
  }
  const char* path = std::getenv("PATH");
  return path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin";
}

Started Spawn(const ProcessSpec& spec, pid_t pgid, int capture_fd) {
  Started started;
  if (spec.argv.empty()) {
    started.error = "empty argv";
    return started;
  }
  std::string exe = ResolveProgram(spec.argv[0], ChildPath(spec));
  if (exe.empty()) {
    started.error = spec.argv[0] + ": not found in PATH";
    return started;
  }

  // Everything the child needs is prepared here: after fork() it may only make syscalls.
  std::string error;
  UniqueFd in = spec.stdin_data.empty() ? AboveStdio(::open("/dev/null", O_RDONLY | O_CLOEXEC))
                                        : StdinFile(spec.stdin_data, &error);
  if (in.get() < 0 && error.empty()) error = ErrnoText("/dev/null", errno);
  UniqueFd out, err;
  int out_fd = capture_fd, err_fd = capture_fd;
  if (capture_fd < 0 && error.empty()) {
    out = OpenOutput(spec.stdout_path, &error);
    out_fd = out.get();
    if (error.empty() && !spec.stderr_path.empty() && spec.stderr_path == spec.stdout_path) {
      err_fd = out_fd;
    } else if (error.empty()) {
      err = OpenOutput(spec.stderr_path, &error);
      err_fd = err.get();
    }
  }
  int report_pipe[2];
  if (error.empty() && ::pipe2(report_pipe, O_CLOEXEC) != 0) error = ErrnoText("pipe", errno);
  if (!error.empty()) {
    started.error = error;
    return started;
  }
  UniqueFd report_r = AboveStdio(report_pipe[0]);
  UniqueFd report_w = AboveStdio(report_pipe[1]);

  std::vector<std::string> env = ChildEnv(spec);
  std::vector<char*> argv, envp;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  ChildPlan plan{pgid,          ::getpid(), exe.c_str(), argv.data(),     envp.data(),
                 spec.cwd.empty() ? nullptr : spec.cwd.c_str(), in.get(), out_fd, err_fd, report_w.get(),
                 spec.core_dumps};

  // Block signals across fork() so no handler of ours runs in the child before exec.
  sigset_t all, old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = ::fork();
  if (pid == 0) ChildMain(plan);
  int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) {
    started.error = ErrnoText("fork", fork_errno);
    return started;
  }
  ::setpgid(pid, pgid == 0 ? pid : pgid);  // also in the parent, so the group exists on return
  if (pgid == 0) RegisterGroup(pid);
  report_w.reset();

  ExecError e{};
  ssize_t n;
  do {
    n = ::read(report_r.get(), &e, sizeof(e));
  } while (n < 0 && errno == EINTR);
  if (n > 0) {  // the child failed before or at exec and has _exit()ed
    e.stage[sizeof(e.stage) - 1] = '\0';
    std::string stage = e.stage;
    if (stage == "exec") stage += " " + exe;
    if (stage == "chdir") stage += " " + spec.cwd;
    started.error = ErrnoText(stage, e.err);
    if (pgid == 0) UnregisterGroup(pid);
    Reap(pid, true);
    return started;
  }
  started.pid = pid;
  return started;
}

}  // namespace cuco::launch_internal
