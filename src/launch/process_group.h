// Building blocks shared by RunProcess and the launchers. Internal to src/launch/; implemented in
// subprocess.cc.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launch/subprocess.h"

namespace cuco::launch_internal {

using Clock = std::chrono::steady_clock;
double SecondsSince(Clock::time_point t0);

// The path to exec for `name`: itself if it has a '/', else the first executable file
// <dir>/<name> for the absolute dirs in `path_env`; "" if none.
std::string ResolveProgram(const std::string& name, const std::string& path_env);
// The PATH the child of `spec` will see.
std::string ChildPath(const ProcessSpec& spec);

struct Started {
  pid_t pid = -1;     // > 0: running (or already exited, unreaped)
  std::string error;  // non-empty: nothing is running (a failed child was reaped)
};
// Forks and execs spec.argv. pgid 0: the child leads a new process group (registered for
// SignalAllRunningGroups); otherwise it joins group `pgid`, which must still have a member (an
// unreaped zombie leader counts). capture_fd >= 0 receives stdout and stderr instead of the spec's
// paths.
Started Spawn(const ProcessSpec& spec, pid_t pgid, int capture_fd = -1);

// The exit of our child `pid` without reaping it (so its pid, and its pgid if it leads a group,
// cannot be reused); nullopt while it runs. A child that is not ours any more (ECHILD) reads as
// exited with exit_code -1.
std::optional<ProcessOutcome> PeekExit(pid_t pid);
// Reaps our child `pid`: waits if it is already dead, else hands it to a detached thread.
void Reap(pid_t pid, bool already_exited);

// Whether group `pgid` has a member that is not a zombie.
bool GroupHasLiveMembers(pid_t pgid);

// Kills group `pgid` (> 1; kept alive by an unreaped zombie of ours) and every descendant of
// `roots` or of a group member that left the group: SIGTERM + SIGCONT, up to grace_s for all to
// go, then SIGKILL and up to kKillWaitSeconds. `pump` runs while waiting (e.g. to drain a pipe).
// Returns false if something survived.
bool TerminateGroup(pid_t pgid, const std::vector<pid_t>& roots, double grace_s,
                    const std::function<void()>& pump = {});

// Bookkeeping for SignalAllRunningGroups: call Unregister before reaping the group's leader.
void RegisterGroup(pid_t pgid);
void UnregisterGroup(pid_t pgid);

// Sleeps for growing intervals (1 ms, doubling to 20 ms) so that short waits stay short.
class Backoff {
 public:
  // Sleeps min(next interval, max_s); with fd >= 0 wakes early when it is readable.
  void Wait(double max_s, int fd = -1);

 private:
  double next_s_ = 0.001;
};

}  // namespace cuco::launch_internal
