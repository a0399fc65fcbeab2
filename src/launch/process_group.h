// Process groups, internal to src/launch/ (RunProcess, the launchers and the sandbox build on
// them): a child's exit seen without reaping it, reaping, whether a group still has live members,
// killing a group and every descendant that left it (found through /proc, pinned by start time so
// a reused pid is never signalled), the registry behind SignalAllRunningGroups, and a backoff for
// polling loops. Starting a child is launch/spawn.h.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "launch/spawn.h"
#include "util/clock.h"
#include "launch/subprocess.h"

namespace cuco::launch_internal {

using Clock = std::chrono::steady_clock;  // SecondsSince: util/clock.h

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
