// The sandbox every candidate compile and run goes through: bubblewrap (namespaces, mounts) around
// cuco-sandbox-exec (rlimits, a seccomp filter, rank processes). See docs/sandbox.md.
//
// Usage: argv = *SandboxPrefix(spec), then append the command, then run argv (RunProcess or a
// launcher). The fds the command must inherit (rank sockets, log files) must be open without
// O_CLOEXEC in the process that execs bwrap; bwrap passes them on (RunProcess closes all fds above
// 2, so rank sockets need a spawn that keeps them). The command must be visible inside: one under
// /tmp, a hidden dir or a hidden home secret needs its directory in readonly_dirs. bwrap exits with
// the command's exit status, 128+N when it died by signal N. --die-with-parent ties the sandbox to
// the THREAD that started bwrap (PR_SET_PDEATHSIG): start it from a thread that outlives the run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace cuco {

struct SandboxSpec {
  // Paths are absolute host paths; symlinks in them are resolved before binding.
  std::vector<std::string> writable_dirs;  // bound read-write at the same path (must exist)
  std::vector<std::string> hidden_dirs;    // replaced by an empty tmpfs (skipped if missing); applied BEFORE
                                           // readonly_dirs and writable_dirs, so one of those inside still works
  std::vector<std::string> readonly_dirs;  // bound read-only after hiding (must exist), e.g. the exe's dir
  uint64_t tmp_bytes = 512ull << 20;       // size of the private /tmp and of the private /dev/shm
  std::vector<std::string> tmp_folders;    // made, empty, in the private /tmp: relative paths ("Output",
                                           // "out/run1"), no "." or ".." component
  std::vector<int> gpus;                   // device minors N: /dev/nvidiaN, plus /dev/nvidiactl and
                                           // /dev/nvidia-uvm when gpus is not empty (each only if present)
  std::string mps_pipe_dir;                // bound read-write when not empty (CUDA MPS)
  std::map<std::string, std::string> env;  // the COMPLETE environment inside (PATH included)
  std::string cwd;                         // inside; empty: /tmp
  // Limits, 0 = not set. address_space_bytes breaks CUDA (it reserves huge virtual ranges): leave it
  // 0 for GPU candidates. processes is RLIMIT_NPROC, which counts all processes of the user (of
  // every root process on the host when run as root, where it bounds nothing useful).
  uint64_t address_space_bytes = 0, data_bytes = 0, file_size_bytes = 0, cpu_seconds = 0, open_files = 0,
           processes = 0;
  bool seccomp = true;
  // Rank spawning inside: 0 = exec the command as one process. Otherwise `ranks` processes (a
  // program mode run started once per rank passes rank_fd_base -1: the ranks share stdout/stderr
  // and get no fd 3); with rank_fd_base >= 3, rank r gets the caller's fd rank_fd_base+r as fd 3 and, when rank_log_fd_base >= 0, fd
  // rank_log_fd_base+r as stdout and stderr, and CUCO_RANK, CUCO_WORLD_SIZE, CUCO_LOCAL_RANK,
  // CUCO_LOCAL_WORLD_SIZE and CUCO_SUPERVISOR_FD=3 in its environment.
  int ranks = 0;
  int rank_fd_base = -1;
  int rank_log_fd_base = -1;
};

// What this machine can do, probed once (by running a real sandbox) and cached.
struct SandboxSupport {
  bool available = false;  // bwrap runs with all namespaces and cuco-sandbox-exec's seccomp filter loads
  std::string why_not;     // when not available, e.g. "bwrap not found in PATH (apt-get install bubblewrap)"
  std::string bwrap_path, bwrap_version;
  std::string exec_path;       // cuco-sandbox-exec
  bool seccomp = false;        // the filter loads and denies unshare(CLONE_NEWUSER) and ptrace
  bool cgroup_limits = false;  // cgroup v2 at /sys/fs/cgroup is writable with the pids and memory controllers
                               // (cuco does not put sandboxes in a cgroup yet: see notes)
  std::string notes;           // what bounds processes and memory here, in words
};

// Thread-safe; probes on the first call (tens of milliseconds).
const SandboxSupport& DetectSandbox();

// The argv prefix `bwrap <options> -- <exec_path> <options> --`; append the command after it.
// Unavailable when DetectSandbox() says the sandbox does not work here; InvalidArgument for a bad
// spec (a relative path, a missing writable or readonly dir, a bad rank fd base, an env name with '=').
Result<std::vector<std::string>> SandboxPrefix(const SandboxSpec& spec);

// The prefix for --unsafe-no-sandbox: `<exec_path> <rlimits, rank options> --`, no namespaces, no
// seccomp, no clean environment (the caller sets the environment). Records must say the run was
// unsandboxed. Falls back to "cuco-sandbox-exec" (looked up in PATH) when the exec was not found.
std::vector<std::string> UnsandboxedPrefix(const SandboxSpec& spec);

// For `cuco doctor`.
nlohmann::json SandboxSupportToJson(const SandboxSupport& s);
std::string FormatSandboxReport(const SandboxSupport& s);  // a "sandbox" section, lines indented by 2

}  // namespace cuco
