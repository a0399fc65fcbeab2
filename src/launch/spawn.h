// Starting one child, internal to src/launch/: fork and exec spec.argv in a new process group or
// an existing one, with the spec's directory, environment (environ minus env_unset, plus
// env_set), stdin (a file holding spec.stdin_data, so a child that never reads it cannot block
// the parent), stdout/stderr (files, or one capture fd), default signal handling, no core dumps
// unless asked, no other inherited fds, and death with the parent (PR_SET_PDEATHSIG). Between
// fork and exec the child calls only async-signal-safe functions; a failure there comes back as
// an error string, never as a running child.
#pragma once

#include <sys/types.h>

#include <string>

#include "launch/subprocess.h"

namespace cuco::launch_internal {

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

}  // namespace cuco::launch_internal
