// A CUDA MPS control daemon that cuco starts and owns for the GPUs of one evaluation, so that the
// supervisor and the candidate run as clients of one MPS server (concurrently, not time-sliced)
// and nothing a candidate does to MPS outlives the evaluation (docs/sandbox.md, "CUDA MPS").
//
// Start makes a private folder (mkdtemp under `parent_dir`, mode 0700) holding the pipe directory
// and the log directory (each 0700), runs `nvidia-cuda-mps-control -f` there in a process group of
// its own (CUDA_MPS_PIPE_DIRECTORY / CUDA_MPS_LOG_DIRECTORY pointing into it, CUDA_VISIBLE_DEVICES
// the evaluation's GPUs, the client variables that would cap the server unset, PR_SET_PDEATHSIG so
// it dies with the thread that started it), waits for its control socket, starts the server
// (`start_server -uid <uid>`) and waits for it to be listed. Stop (also from the destructor, so on
// every exit path) sends `quit`, waits, kills the daemon's group and every server it listed by pid
// (a pid is signalled only while its environment still names this pipe directory), and removes the
// private folder. The default /tmp/nvidia-mps and any daemon cuco did not start are never touched.
//
// Clients need only the pipe directory (CUDA_MPS_PIPE_DIRECTORY); a sandbox binds that one folder,
// never the log directory. Whoever can reach the pipe directory can send control commands, so
// Limits() snapshots what a client would get (default and per-server active-thread percentage and
// pinned-memory limits) for the caller to compare after each stage.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

// What changed between two MpsDaemon::Limits() snapshots, "; "-joined ("" when nothing): a default
// that differs, or a server whose limits are not what the first snapshot's servers had (a server
// that came or went since, with the same limits, is no change: servers are compared without pids).
std::string LimitsDiffer(const std::string& before, const std::string& after);

// Whether a LimitsDiffer answer holds only commands that answered before and fail now ("...:
// (failed)"): the daemon busy (a server exiting as a candidate's processes end) rather than a
// limit changed. Such a difference is asked again before it is judged.
bool OnlyUnanswered(const std::string& changed);

// nvidia-cuda-mps-control: `path_env`'s folders, then /usr/local/nvidia/bin, then /usr/bin; "" when
// none holds an executable one.
std::string FindMpsControl(const char* path_env);

struct MpsOptions {
  std::string control;               // the control program; empty: FindMpsControl(getenv("PATH"))
  std::vector<std::string> devices;  // CUDA_VISIBLE_DEVICES of the daemon (GPU UUIDs, or ordinals as
                                     // this process numbers them); the server's devices, in this order
  std::string parent_dir;            // where the private folder is made; empty: $TMPDIR, else /tmp.
                                     // Short: the control socket's path must fit a socket address.
  bool start_server = true;          // start the server now, not at the first client (its start-up
                                     // is then paid and checked here, and Limits() can see it)
  double start_timeout_s = 30;       // for the control socket, and again for the server
  double command_timeout_s = 10;     // per control command
  double quit_timeout_s = 10;        // after `quit`, before the kill
};

// What Stop did, for the record.
struct MpsStopReport {
  bool stopped = false;       // false: Stop found nothing to stop (already stopped)
  bool quit_answered = false; // the `quit` command ran and exited 0
  bool daemon_killed = false; // the daemon (or something of its group) was still there and was killed
  std::vector<int> servers_killed;  // server pids still running after the daemon ended, killed by pid
  bool folder_removed = false;
  double seconds = 0;
  std::string Describe() const;  // one line
};

class MpsDaemon {
 public:
  // Unavailable when no control program is found or the daemon or its server does not come up (the
  // message names why, with the tail of the daemon's logs); nothing is left running then.
  static Result<std::unique_ptr<MpsDaemon>> Start(const MpsOptions& options);
  ~MpsDaemon();
  MpsDaemon(const MpsDaemon&) = delete;
  MpsDaemon& operator=(const MpsDaemon&) = delete;

  const std::string& control() const { return control_; }
  const std::string& root() const { return root_; }          // the private folder
  const std::string& pipe_dir() const { return pipe_dir_; }  // what clients (and a sandbox) get
  const std::string& log_dir() const { return log_dir_; }    // cuco's only: never bound anywhere
  pid_t pid() const { return pid_; }
  double start_seconds() const { return start_seconds_; }
  const std::vector<std::string>& devices() const { return devices_; }

  // The environment an MPS client of this daemon needs.
  std::map<std::string, std::string> ClientEnv() const { return {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_}}; }
  // Whether the daemon process is still running.
  bool Alive() const;
  // `command` sent to the daemon (the control program reading it on stdin); its output, trimmed.
  // IOError when the control program fails or times out.
  Result<std::string> Command(const std::string& command) const;
  // The server pids the daemon lists (get_server_list).
  Result<std::vector<int>> Servers() const;
  // What a new client would get, one "command: answer" line each: the default active-thread
  // percentage and, for each device, the default pinned-memory limit; then for each server (a line
  // naming its pid) its active-thread percentage and pinned-memory limits; a command that fails
  // reads "(failed)". An error only when the server list cannot be read. LimitsDiffer compares two.
  Result<std::string> Limits() const;

  // Idempotent; the destructor calls it.
  MpsStopReport Stop();

 private:
  MpsDaemon() = default;
  Status WaitForControl(double timeout_s);
  Status WaitForServer(double timeout_s);
  std::string LogTail() const;  // the daemon's own output and its control/server logs, last lines

  std::string control_, root_, pipe_dir_, log_dir_;
  std::vector<std::string> devices_;
  MpsOptions options_;
  pid_t pid_ = -1;
  bool exited_ = false;  // the daemon's exit has been seen (it is unreaped until Stop)
  bool stopped_ = false;
  double start_seconds_ = 0;
  std::vector<int> servers_;  // every server pid seen
};

}  // namespace cuco
