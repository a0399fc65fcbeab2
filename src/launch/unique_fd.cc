#include "launch/unique_fd.h"

#include <fcntl.h>

#include <cstring>

namespace cuco::launch_internal {

UniqueFd AboveStdio(int fd) {
  if (fd < 0 || fd > 2) return UniqueFd(fd);
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return UniqueFd(moved);
}

std::string ErrnoText(const std::string& what, int err) { return what + ": " + std::strerror(err); }

}  // namespace cuco::launch_internal
