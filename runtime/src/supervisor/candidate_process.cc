#include "supervisor/candidate_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>

#include <cuco/protocol.h>

namespace cuco::supervisor {
namespace {

// The process groups of every candidate process started and not yet reaped, for the signal handler.
constexpr int kMaxGroups = 64;
std::atomic<pid_t> g_groups[kMaxGroups];

void Remember(pid_t group) {
  for (auto& g : g_groups) {
    pid_t empty = 0;
    if (g.compare_exchange_strong(empty, group)) return;
  }
}

void Forget(pid_t group) {
  for (auto& g : g_groups) {
    pid_t p = group;
    g.compare_exchange_strong(p, 0);
  }
}

// SIGTERM, SIGINT, SIGHUP (a scheduler's cancel, a timeout, Ctrl-C): the candidate's sandboxes die
// first, then the supervisor with the same signal. Without it the sandbox's own tie to the
// supervisor (the parent-death signal) is all that ends it, and under a scheduler that tracks
// processes by their parents (Slurm's proctrack/linuxproc) a bwrap was seen to outlive its job.
// Async-signal-safe: kill, signal, raise.
void KillSandboxesAndDie(int sig) {
  for (auto& g : g_groups) {
    const pid_t p = g.load();
    if (p > 0) ::kill(-p, SIGKILL);
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered once the handler returns, with the default action
}

void InstallSignalHandlersOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = KillSandboxesAndDie;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) ::sigaction(sig, &sa, nullptr);
  });
}

std::vector<char*> Pointers(std::vector<std::string>& v) {
  std::vector<char*> p;
  for (auto& s : v) p.push_back(s.data());
  p.push_back(nullptr);
  return p;
}

// In the child, after fork: moves `from` to `to` (clearing close-on-exec); _exit(127) on failure.
void MoveFd(int from, int to) {
  if (from == to) {
    const int flags = ::fcntl(to, F_GETFD);
    if (flags < 0 || ::fcntl(to, F_SETFD, flags & ~FD_CLOEXEC) < 0) ::_exit(127);
    return;
  }
  if (::dup2(from, to) < 0) ::_exit(127);
}

}  // namespace

CandidateProcess::~CandidateProcess() {
  Kill();
  for (int s : sockets_) ::close(s);
}

std::string CandidateProcess::Start(const std::vector<std::string>& prefix, const std::vector<std::string>& command,
                                    int world, const std::vector<std::string>& log_paths,
                                    const std::vector<std::string>& env) {
  if (world < 1 || static_cast<int>(log_paths.size()) != world) return "bad world size or log list";
  InstallSignalHandlersOnce();
  std::vector<int> theirs, logs;
  for (int r = 0; r < world; ++r) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
      return std::string("socketpair: ") + std::strerror(errno);
    sockets_.push_back(sv[0]);
    theirs.push_back(sv[1]);
    const int log = ::open(log_paths[r].c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (log < 0) return "cannot open " + log_paths[r] + ": " + std::strerror(errno);
    logs.push_back(log);
  }
  auto close_theirs = [&] {
    for (int fd : theirs) ::close(fd);
    for (int fd : logs) ::close(fd);
  };
  const pid_t parent = ::getpid();
  auto spawn = [&](std::vector<std::string> argv, int rank) -> std::string {
    std::vector<std::string> envv = env;
    if (rank >= 0) {
      envv.push_back("CUCO_RANK=" + std::to_string(rank));
      envv.push_back("CUCO_WORLD_SIZE=" + std::to_string(world));
      envv.push_back("CUCO_LOCAL_RANK=" + std::to_string(rank));
      envv.push_back("CUCO_LOCAL_WORLD_SIZE=" + std::to_string(world));
      envv.push_back("CUCO_SUPERVISOR_FD=" + std::to_string(protocol::kCandidateFd));
    }
    auto args = Pointers(argv);
    auto envp = Pointers(envv);
    const pid_t pid = ::fork();
    if (pid < 0) return std::string("fork: ") + std::strerror(errno);
    if (pid == 0) {
      ::setpgid(0, 0);
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      const int null_in = ::open("/dev/null", O_RDONLY);
      if (null_in < 0 || ::dup2(null_in, 0) < 0) ::_exit(127);
      if (rank >= 0) {
        // Move the rank's fds high first so the targets below cannot clobber another source.
        const int sock = ::fcntl(theirs[rank], F_DUPFD_CLOEXEC, 100);
        const int log = ::fcntl(logs[rank], F_DUPFD_CLOEXEC, 100);
        if (sock < 0 || log < 0) ::_exit(127);
        MoveFd(log, 1);
        MoveFd(log, 2);
        MoveFd(sock, protocol::kCandidateFd);
      } else {
        std::vector<int> moved;
        for (int fd : theirs) moved.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 100));
        for (int fd : logs) moved.push_back(::fcntl(fd, F_DUPFD_CLOEXEC, 100));
        for (int i = 0; i < static_cast<int>(moved.size()); ++i) {
          if (moved[i] < 0) ::_exit(127);
          MoveFd(moved[i], protocol::kSpawnFdBase + i);
        }
        MoveFd(logs[0], 1);
        MoveFd(logs[0], 2);
      }
      ::execve(args[0], args.data(), envp.data());
      const char msg[] = "cuco supervisor: cannot start the candidate: exec failed\n";
      [[maybe_unused]] ssize_t w = ::write(2, msg, sizeof msg - 1);
      ::_exit(127);
    }
    ::setpgid(pid, pid);
    Remember(pid);
    children_.push_back(Child{pid});
    return "";
  };
  std::string err;
  if (prefix.empty()) {
    for (int r = 0; r < world && err.empty(); ++r) err = spawn(command, r);
  } else {
    std::vector<std::string> argv = prefix;
    argv.insert(argv.end(), command.begin(), command.end());
    err = spawn(argv, -1);
  }
  close_theirs();
  return err;
}

void CandidateProcess::Note(Child& c, int status) {
  c.done = true;
  Forget(c.pid);
  c.status = status;
  const bool abnormal = WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0);
  if (abnormal && first_abnormal_ == 0) first_abnormal_ = status;
}

bool CandidateProcess::Poll() {
  std::lock_guard<std::mutex> lock(mu_);
  return PollLocked();
}

bool CandidateProcess::PollLocked() {
  bool all = true;
  for (auto& c : children_) {
    if (c.done) continue;
    int status = 0;
    const pid_t r = ::waitpid(c.pid, &status, WNOHANG);
    if (r == c.pid) Note(c, status);
    else if (r < 0 && errno == ECHILD) Note(c, 0);  // reaped elsewhere: ended, how unknown
    else all = false;
  }
  return all;
}

void CandidateProcess::Kill() {
  std::lock_guard<std::mutex> lock(mu_);
  KillLocked();
}

void CandidateProcess::KillLocked() {
  for (auto& c : children_)
    if (!c.done) ::kill(-c.pid, SIGKILL);
  for (auto& c : children_) {
    if (c.done) continue;
    int status = 0;
    Note(c, ::waitpid(c.pid, &status, 0) == c.pid ? status : 0);
  }
}

std::string CandidateProcess::WaitOrKill(double timeout_s) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (!Poll() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::lock_guard<std::mutex> lock(mu_);
  const bool killed = !PollLocked();
  KillLocked();
  std::string d;
  for (const auto& c : children_) d += (d.empty() ? "" : ", ") + Describe(c.status);
  return killed ? d + " (killed: still running after " + std::to_string(static_cast<int>(timeout_s)) + " s)" : d;
}

std::string CandidateProcess::Describe(int wstatus) {
  if (WIFSIGNALED(wstatus))
    return "signal " + std::to_string(WTERMSIG(wstatus)) + " (" + strsignal(WTERMSIG(wstatus)) + ")";
  if (WIFEXITED(wstatus)) return "exit " + std::to_string(WEXITSTATUS(wstatus));
  return "unknown end";
}

}  // namespace cuco::supervisor
