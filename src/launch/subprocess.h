// Running one process safely: its own process group, a wall-clock limit, and a kill that reaches
// the whole group (shell scripts, their children, mpirun's helpers) before the call returns.
//
// Linux only (uses /proc to tell live group members from zombies and to find descendants).
// The calling program must not set SIGCHLD to SIG_IGN (children would be reaped by the kernel
// and their exit status lost). Safe to call from several threads at once.
//
// Limits of the kill:
//  - A descendant that left the group (setsid(), setpgid()) is killed only if it is still a
//    descendant of a group member when the kill starts (found through /proc); one that was
//    already orphaned by then escapes.
//  - A process stuck in uninterruptible sleep (e.g. in the GPU driver) may survive SIGKILL for a
//    long time; after kKillWaitSeconds the call gives up waiting, reaps it in the background
//    and reports `unkillable` (the GPU it held is suspect).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cuco {

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0] is looked up in the child's PATH unless it has a '/'
  std::map<std::string, std::string> env_set;  // added/overridden on top of the parent's environment
  std::vector<std::string> env_unset;          // removed from the parent's environment (before env_set)
  std::string cwd;                             // empty: the parent's
  // Files created/truncated (relative paths are relative to the parent's cwd); empty = discard.
  // stderr_path == stdout_path merges both into one file.
  std::string stdout_path, stderr_path;
  std::string stdin_data;      // the child's whole stdin (empty: /dev/null)
  double term_grace_s = 2.0;   // on a kill: SIGTERM, then SIGKILL after this long
  bool core_dumps = false;     // false: RLIMIT_CORE = 0 in the child (GPU processes dump tens of GB)
};

struct ProcessOutcome {
  bool started = false;     // false: never ran; start_error says why
  std::string start_error;  // e.g. "no-such-prog: not found in PATH", "exec /x: Permission denied"
  int exit_code = -1;       // set if it exited normally
  int signal = 0;           // set if it died by a signal (including ours)
  bool timed_out = false;   // we killed it because the limit passed
  bool unkillable = false;  // still alive kKillWaitSeconds after SIGKILL; reaped in the background
  double wall_s = 0;        // from start until it and its group were gone

  // Exited with status 0.
  bool ok() const { return started && signal == 0 && exit_code == 0 && !timed_out; }
  // "exit 3", "signal 11 (Segmentation fault)", "timed out (signal 15)", "not started: ...".
  std::string Describe() const;
};

// How long we wait for processes to vanish after SIGKILL before reporting them unkillable.
inline constexpr double kKillWaitSeconds = 10.0;

// Runs one process in a new process group and waits for it. When timeout_s passes (<= 0: no
// limit) the whole group gets SIGTERM (and SIGCONT), then SIGKILL after spec.term_grace_s.
// When the main process exits on its own, anything left in its group (background children) is
// killed the same way. Returns when the process is reaped and its group is gone. The child gets
// default signal dispositions, an empty signal mask, fds 0-2 only, and PR_SET_PDEATHSIG=SIGKILL
// (it dies if the calling thread does; its own children do not).
ProcessOutcome RunProcess(const ProcessSpec& spec, double timeout_s);

// Runs argv with stdin from /dev/null and returns stdout and stderr interleaved as written.
// Only the last kCaptureLimitBytes are kept; when more was written the output starts with a
// "[cuco: N bytes dropped]\n" line.
inline constexpr size_t kCaptureLimitBytes = 1 << 20;
struct CapturedRun {
  ProcessOutcome outcome;
  std::string output;
};
CapturedRun RunCapture(const std::vector<std::string>& argv, double timeout_s,
                       const std::map<std::string, std::string>& env = {});

// Sends `sig` to every process group that RunProcess, RunCapture or a launcher has started and
// not yet reaped. Async-signal-safe: meant for the CLI's SIGINT/SIGTERM handler, so that
// stopping cuco does not leave ranks hung on the GPUs.
void SignalAllRunningGroups(int sig);

}  // namespace cuco
