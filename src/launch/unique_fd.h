// UniqueFd: one owned file descriptor, closed when the owner goes (internal to src/launch/), and
// the two helpers every fork/exec path needs: AboveStdio (an fd moved off 0-2) and ErrnoText.
#pragma once

#include <unistd.h>

#include <string>

namespace cuco::launch_internal {

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
UniqueFd AboveStdio(int fd);

// "what: <strerror(err)>".
std::string ErrnoText(const std::string& what, int err);

}  // namespace cuco::launch_internal
