#include "launch/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
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
#include "launch/unique_fd.h"

namespace cuco {

using namespace launch_internal;  // NOLINT: process_group.h and spawn.h are this folder's own

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

}  // namespace cuco
