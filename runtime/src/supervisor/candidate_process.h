// The candidate's ranks as processes the supervisor starts, talks to and ends.
//
// Start() makes one socketpair per rank and starts the candidate executable once per rank:
//   - sandboxed: one exec of `prefix... command...` (the prefix, from cuco, is bwrap plus the rank
//     spawner cuco-sandbox-exec, which starts the W ranks inside ONE sandbox), with rank r's socket
//     inherited as fd kSpawnFdBase + r and its log file as fd kSpawnFdBase + W + r;
//   - without a prefix (cuco's --unsafe-no-sandbox): the supervisor forks the W ranks itself, each
//     with its socket as fd kCandidateFd, its log as stdout/stderr, and only `env` as environment.
// The supervisor keeps its socket ends; everything else it holds is close-on-exec.
// Every process started is the leader of its own process group. The first Start() installs handlers
// for SIGTERM, SIGINT and SIGHUP that SIGKILL every group not yet reaped, then end the supervisor
// with the same signal: a cancelled or timed-out supervisor leaves no sandbox behind.
#pragma once

#include <sys/types.h>

#include <mutex>
#include <string>
#include <vector>

namespace cuco::supervisor {

class CandidateProcess {
 public:
  CandidateProcess() = default;
  ~CandidateProcess();
  CandidateProcess(const CandidateProcess&) = delete;
  CandidateProcess& operator=(const CandidateProcess&) = delete;

  // "" on success, else why it could not start. env: NAME=VALUE entries (unsandboxed only; the
  // prefix carries the sandbox's environment).
  std::string Start(const std::vector<std::string>& prefix, const std::vector<std::string>& command, int world,
                    const std::vector<std::string>& log_paths, const std::vector<std::string>& env);

  int socket(int rank) const { return sockets_.at(rank); }
  int world() const { return static_cast<int>(sockets_.size()); }

  // Reaps what has ended without blocking; true when every started process is gone. Thread-safe.
  bool Poll();
  // Waits up to timeout_s for every process to end, then kills what is left (SIGKILL to each
  // process group) and reaps it. Returns a description of how the ranks ended ("exit 0", ...).
  std::string WaitOrKill(double timeout_s);
  void Kill();
  // How the first process that ended abnormally ended: 0 none, else its raw wait status.
  int first_abnormal_status() {
    std::lock_guard<std::mutex> lock(mu_);
    return first_abnormal_;
  }
  // "signal 11 (Segmentation fault)" / "exit 3" for a raw wait status.
  static std::string Describe(int wstatus);

 private:
  struct Child {
    pid_t pid = -1;
    bool done = false;
    int status = 0;
  };
  void Note(Child& c, int status);
  bool PollLocked();
  void KillLocked();
  std::mutex mu_;  // Poll, Kill and WaitOrKill may be called from different threads
  std::vector<int> sockets_;
  std::vector<Child> children_;
  int first_abnormal_ = 0;
};

}  // namespace cuco::supervisor
