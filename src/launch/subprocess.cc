#include "launch/subprocess.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "launch/process_group.h"

extern char** environ;

namespace cuco {
namespace launch_internal {
namespace {

// ---- file descriptors ------------------------------------------------------------------------

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }
  int get() const { return fd_; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

// Moves fd to a number >= 3 (close-on-exec), so that dup2() onto 0-2 in the child cannot clobber
// another of our fds when the parent runs with 0-2 closed.
UniqueFd AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return UniqueFd(moved);
}

std::string ErrnoText(const std::string& what, int err) { return what + ": " + std::strerror(err); }

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
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
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

// ---- /proc -----------------------------------------------------------------------------------

struct ProcStat {
  pid_t pid = 0, ppid = 0, pgrp = 0;
  char state = '?';
  unsigned long long start = 0;  // boot-relative start time: tells a pid from its reuse
  bool zombie() const { return state == 'Z' || state == 'X' || state == 'x'; }
};

bool ReadProcStat(pid_t pid, ProcStat* out) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/stat", static_cast<int>(pid));
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[1024];
  ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return false;
  buf[n] = '\0';
  const char* rp = std::strrchr(buf, ')');  // the command name may hold spaces and ')'
  if (rp == nullptr) return false;
  // Fields 3 (state) to 22 (starttime), space-separated, after the name.
  unsigned long long field[23] = {};
  char state = '?';
  const char* p = rp + 1;
  for (int i = 3; i <= 22; ++i) {
    while (*p == ' ') ++p;
    if (*p == '\0') return false;
    if (i == 3) {
      state = *p++;
    } else {
      char* end = nullptr;
      field[i] = std::strtoull(p, &end, 10);  // negative fields wrap; we only read non-negative ones
      p = end;
    }
    while (*p != ' ' && *p != '\0') ++p;
  }
  out->pid = pid;
  out->state = state;
  out->ppid = static_cast<pid_t>(field[4]);
  out->pgrp = static_cast<pid_t>(field[5]);
  out->start = field[22];
  return true;
}

std::vector<ProcStat> ScanProcs() {
  std::vector<ProcStat> procs;
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return procs;
  while (dirent* e = ::readdir(dir)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    ProcStat st;
    if (ReadProcStat(std::atoi(e->d_name), &st)) procs.push_back(st);
  }
  ::closedir(dir);
  return procs;
}

// A process outside the group that we mean to kill, pinned by its start time.
struct Tracked {
  pid_t pid;
  unsigned long long start;
};

bool TrackedAlive(const Tracked& t) {
  ProcStat st;
  return ReadProcStat(t.pid, &st) && st.start == t.start && !st.zombie();
}

// Adds to *escaped the live descendants of `roots` and of group members that are not in the group.
void FindEscaped(pid_t pgid, const std::vector<pid_t>& roots, std::vector<Tracked>* escaped) {
  std::vector<ProcStat> procs = ScanProcs();
  std::unordered_multimap<pid_t, const ProcStat*> children;
  std::vector<pid_t> todo(roots);
  for (const ProcStat& p : procs) {
    children.emplace(p.ppid, &p);
    if (p.pgrp == pgid) todo.push_back(p.pid);
  }
  std::set<pid_t> seen(todo.begin(), todo.end());
  while (!todo.empty()) {
    pid_t pid = todo.back();
    todo.pop_back();
    auto [b, e] = children.equal_range(pid);
    for (auto it = b; it != e; ++it) {
      const ProcStat* c = it->second;
      if (!seen.insert(c->pid).second) continue;
      todo.push_back(c->pid);
      if (c->pgrp == pgid || c->zombie()) continue;
      bool known = false;
      for (const Tracked& t : *escaped) known = known || (t.pid == c->pid && t.start == c->start);
      if (!known) escaped->push_back({c->pid, c->start});
    }
  }
}

void SignalAll(pid_t pgid, const std::vector<Tracked>& escaped, int sig) {
  if (pgid > 1) ::kill(-pgid, sig);
  for (const Tracked& t : escaped) {
    if (TrackedAlive(t)) ::kill(t.pid, sig);
  }
}

bool AllGone(pid_t pgid, const std::vector<Tracked>& escaped) {
  if (GroupHasLiveMembers(pgid)) return false;
  for (const Tracked& t : escaped) {
    if (TrackedAlive(t)) return false;
  }
  return true;
}

bool WaitGone(pid_t pgid, const std::vector<Tracked>& escaped, double limit_s, const std::function<void()>& pump) {
  Clock::time_point t0 = Clock::now();
  Backoff backoff;
  while (true) {
    if (pump) pump();
    if (AllGone(pgid, escaped)) return true;
    double left = limit_s - SecondsSince(t0);
    if (left <= 0) return false;
    backoff.Wait(left);
  }
}

// ---- registry for SignalAllRunningGroups -----------------------------------------------------

constexpr int kRegistrySlots = 1024;
std::atomic<pid_t> g_groups[kRegistrySlots];

}  // namespace

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

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

std::optional<ProcessOutcome> PeekExit(pid_t pid) {
  siginfo_t info;
  std::memset(&info, 0, sizeof(info));
  int r;
  do {
    r = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
  } while (r < 0 && errno == EINTR);
  ProcessOutcome o;
  o.started = true;
  if (r < 0) return o;  // not our child any more: report it gone, status unknown
  if (info.si_pid == 0) return std::nullopt;
  if (info.si_code == CLD_EXITED) {
    o.exit_code = info.si_status;
  } else {
    o.signal = info.si_status;
  }
  return o;
}

void Reap(pid_t pid, bool already_exited) {
  if (!already_exited) {
    std::thread([pid] {
      while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }).detach();
    return;
  }
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

bool GroupHasLiveMembers(pid_t pgid) {
  for (const ProcStat& p : ScanProcs()) {
    if (p.pgrp == pgid && !p.zombie()) return true;
  }
  return false;
}

bool TerminateGroup(pid_t pgid, const std::vector<pid_t>& roots, double grace_s, const std::function<void()>& pump) {
  if (pgid <= 1) return false;  // never kill(-1) or our own group
  std::vector<Tracked> escaped;
  FindEscaped(pgid, roots, &escaped);
  SignalAll(pgid, escaped, SIGTERM);
  SignalAll(pgid, escaped, SIGCONT);  // a stopped process acts on SIGTERM only once continued
  if (WaitGone(pgid, escaped, grace_s, pump)) return true;
  FindEscaped(pgid, roots, &escaped);  // keeps the first list: those orphaned since are still ours
  SignalAll(pgid, escaped, SIGKILL);
  return WaitGone(pgid, escaped, kKillWaitSeconds, pump);
}

void RegisterGroup(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = 0;
    if (slot.compare_exchange_strong(expected, pgid)) return;
  }
}

void UnregisterGroup(pid_t pgid) {
  for (auto& slot : g_groups) {
    pid_t expected = pgid;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

void Backoff::Wait(double max_s, int fd) {
  double s = std::min(next_s_, max_s);
  next_s_ = std::min(next_s_ * 2, 0.020);
  if (s <= 0) return;
  if (fd >= 0) {
    pollfd p{fd, POLLIN, 0};
    ::poll(&p, 1, std::max(1, static_cast<int>(std::ceil(s * 1000))));
  } else {
    std::this_thread::sleep_for(std::chrono::duration<double>(s));
  }
}

}  // namespace launch_internal

using namespace launch_internal;  // NOLINT: this file implements them

namespace {

// Keeps the last kCaptureLimitBytes of a stream.
class TailBuffer {
 public:
  void Append(const char* data, size_t n) {
    buf_.append(data, n);
    if (buf_.size() > 2 * kCaptureLimitBytes) Trim();
  }
  std::string Take() {
    Trim();
    if (dropped_ == 0) return std::move(buf_);
    return "[cuco: " + std::to_string(dropped_) + " bytes dropped]\n" + buf_;
  }

 private:
  void Trim() {
    if (buf_.size() <= kCaptureLimitBytes) return;
    size_t cut = buf_.size() - kCaptureLimitBytes;
    dropped_ += cut;
    buf_.erase(0, cut);
  }
  std::string buf_;
  size_t dropped_ = 0;
};

// Reads what is there now (fd is non-blocking). Returns false at EOF or on an error.
bool Drain(int fd, TailBuffer* out) {
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n > 0) {
      out->Append(buf, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return n < 0 && errno == EAGAIN;
    }
  }
}

const char* SignalName(int sig) {
  switch (sig) {
    case SIGHUP: return "SIGHUP";
    case SIGINT: return "SIGINT";
    case SIGQUIT: return "SIGQUIT";
    case SIGILL: return "SIGILL";
    case SIGTRAP: return "SIGTRAP";
    case SIGABRT: return "SIGABRT";
    case SIGBUS: return "SIGBUS";
    case SIGFPE: return "SIGFPE";
    case SIGKILL: return "SIGKILL";
    case SIGUSR1: return "SIGUSR1";
    case SIGSEGV: return "SIGSEGV";
    case SIGUSR2: return "SIGUSR2";
    case SIGPIPE: return "SIGPIPE";
    case SIGALRM: return "SIGALRM";
    case SIGTERM: return "SIGTERM";
    case SIGXCPU: return "SIGXCPU";
    case SIGXFSZ: return "SIGXFSZ";
    case SIGSYS: return "SIGSYS";
    default: return nullptr;
  }
}

ProcessOutcome RunImpl(const ProcessSpec& spec, double timeout_s, TailBuffer* capture) {
  Clock::time_point t0 = Clock::now();
  ProcessOutcome outcome;
  UniqueFd read_end, write_end;
  if (capture != nullptr) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0) {
      outcome.start_error = ErrnoText("pipe", errno);
      return outcome;
    }
    read_end = AboveStdio(p[0]);
    write_end = AboveStdio(p[1]);
    // The child's end must block: programs rarely cope with EAGAIN on stdout.
    ::fcntl(write_end.get(), F_SETFL, ::fcntl(write_end.get(), F_GETFL) & ~O_NONBLOCK);
  }
  Started started = Spawn(spec, 0, write_end.get());
  write_end.reset();
  if (!started.error.empty()) {
    outcome.start_error = started.error;
    outcome.wall_s = SecondsSince(t0);
    return outcome;
  }
  const pid_t pid = started.pid;
  std::function<void()> pump;
  bool pipe_open = capture != nullptr;  // the pipe has not hit EOF yet (once it has, poll would spin)
  if (capture != nullptr) pump = [&] { pipe_open = pipe_open && Drain(read_end.get(), capture); };

  std::optional<ProcessOutcome> leader_exit;
  Backoff backoff;
  while (!(leader_exit = PeekExit(pid))) {
    double left = timeout_s > 0 ? timeout_s - SecondsSince(t0) : 1.0;
    if (left <= 0) {
      outcome.timed_out = true;
      break;
    }
    backoff.Wait(left, pipe_open ? read_end.get() : -1);
    if (pump) pump();
  }
  // The leader is unreaped, so `pid` still names our group while we kill what is left in it.
  bool gone = true;
  if (outcome.timed_out || GroupHasLiveMembers(pid)) gone = TerminateGroup(pid, {pid}, spec.term_grace_s, pump);
  if (pump) pump();
  if (!leader_exit) leader_exit = PeekExit(pid);
  UnregisterGroup(pid);
  Reap(pid, leader_exit.has_value());
  if (leader_exit) {
    outcome.exit_code = leader_exit->exit_code;
    outcome.signal = leader_exit->signal;
  } else {
    outcome.signal = SIGKILL;
  }
  outcome.unkillable = !gone;
  outcome.started = true;
  outcome.wall_s = SecondsSince(t0);
  return outcome;
}

}  // namespace

std::string ProcessOutcome::Describe() const {
  if (!started) return "not started: " + start_error;
  std::string s;
  if (signal != 0) {
    s = "signal " + std::to_string(signal);
    if (const char* name = SignalName(signal)) s += std::string(" (") + name + ")";
  } else {
    s = "exit " + std::to_string(exit_code);
  }
  if (timed_out) s = "timed out (" + s + ")";
  if (unkillable) s += ", unkillable";
  return s;
}

ProcessOutcome RunProcess(const ProcessSpec& spec, double timeout_s) { return RunImpl(spec, timeout_s, nullptr); }

CapturedRun RunCapture(const std::vector<std::string>& argv, double timeout_s,
                       const std::map<std::string, std::string>& env) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.env_set = env;
  TailBuffer tail;
  CapturedRun run;
  run.outcome = RunImpl(spec, timeout_s, &tail);
  run.output = tail.Take();
  return run;
}

void SignalAllRunningGroups(int sig) {
  for (auto& slot : g_groups) {
    pid_t pgid = slot.load();
    if (pgid > 1) ::kill(-pgid, sig);
  }
}

}  // namespace cuco
