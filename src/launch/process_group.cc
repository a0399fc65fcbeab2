#include "launch/process_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>
#include <unordered_map>

namespace cuco {
namespace launch_internal {
namespace {

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

void SignalAllRunningGroups(int sig) {
  for (auto& slot : launch_internal::g_groups) {
    pid_t pgid = slot.load();
    if (pgid > 1) ::kill(-pgid, sig);
  }
}

}  // namespace cuco
