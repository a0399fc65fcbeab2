#include "launch/sandbox.h"

#include <linux/magic.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>

#include "launch/process_group.h"
#include "launch/subprocess.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// Secrets under each home directory, hidden even though / is bound read-only.
const char* const kHomeSecrets[] = {".ssh", ".gnupg", ".aws", ".config", ".netrc", ".docker", ".kube", ".azure",
                                    ".git-credentials", ".npmrc", ".pypirc", ".password-store", ".bash_history",
                                    ".zsh_history", ".python_history", ".local/share/keyrings"};
// System secrets that root (the usual caller on the GPU machines) owns and could read without capabilities.
const char* const kSystemSecrets[] = {"/etc/shadow", "/etc/gshadow", "/etc/ssh", "/etc/sudoers", "/etc/sudoers.d"};

bool Exists(const std::string& p) {
  std::error_code ec;
  return fs::exists(p, ec);
}

bool IsExecutable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string FindExec() {
  if (const char* e = std::getenv("CUCO_SANDBOX_EXEC"); e != nullptr && *e != '\0') {
    return IsExecutable(e) ? fs::absolute(e).string() : "";
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path dir = self.parent_path();
    for (const fs::path& p : {dir / "cuco-sandbox-exec", dir / ".." / "launch" / "cuco-sandbox-exec",
                              dir / ".." / "src" / "launch" / "cuco-sandbox-exec"}) {
      if (IsExecutable(p.string())) return fs::weakly_canonical(p, ec).string();
    }
  }
#ifdef CUCO_SANDBOX_EXEC_BUILD_PATH
  if (IsExecutable(CUCO_SANDBOX_EXEC_BUILD_PATH)) return CUCO_SANDBOX_EXEC_BUILD_PATH;
#endif
  return "";
}

// Home directories whose secrets are hidden: $HOME, /root, /home/*.
std::vector<std::string> Homes() {
  std::vector<std::string> homes;
  if (const char* h = std::getenv("HOME"); h != nullptr && h[0] == '/') homes.push_back(h);
  homes.push_back("/root");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/home", ec)) {
    if (e.is_directory(ec)) homes.push_back(e.path().string());
  }
  return homes;
}

// Hides an existing path: a directory under an empty tmpfs, a file under /dev/null.
void Hide(const std::string& path, std::vector<std::string>& args) {
  std::error_code ec;
  fs::path real = fs::canonical(path, ec);
  if (ec) return;  // missing: nothing to hide
  if (fs::is_directory(real, ec)) {
    args.insert(args.end(), {"--tmpfs", real.string()});
  } else {
    args.insert(args.end(), {"--ro-bind", "/dev/null", real.string()});
  }
}

Result<std::string> Canonical(const std::string& what, const std::string& path, bool must_exist) {
  if (path.empty() || path[0] != '/') return Status::InvalidArgument(fmt::format("sandbox: {} '{}' is not absolute", what, path));
  std::error_code ec;
  fs::path real = must_exist ? fs::canonical(path, ec) : fs::weakly_canonical(path, ec);
  if (ec) return Status::InvalidArgument(fmt::format("sandbox: {} '{}': {}", what, path, ec.message()));
  return real.string();
}

// bwrap's options for `spec`, without the trailing "--".
Result<std::vector<std::string>> BwrapOptions(const SandboxSpec& spec, const std::string& bwrap,
                                              const std::string& exec) {
  std::vector<std::string> a = {bwrap,           "--die-with-parent", "--new-session",        "--unshare-pid",
                                "--unshare-net", "--unshare-ipc",     "--unshare-uts",        "--unshare-cgroup-try",
                                "--hostname",    "cuco-sandbox",      "--cap-drop",           "ALL",
                                "--ro-bind",     "/",                 "/",                    "--dev",
                                "/dev",          "--proc",            "/proc"};
  if (spec.tmp_bytes == 0) return Status::InvalidArgument("sandbox: tmp_bytes is 0");
  std::string tmp_size = std::to_string(spec.tmp_bytes);
  for (const char* dir : {"/tmp", "/dev/shm"}) a.insert(a.end(), {"--perms", "1777", "--size", tmp_size, "--tmpfs", dir});
  for (const std::string& f : spec.tmp_folders) {
    const fs::path rel(f);
    bool plain = !f.empty() && rel.is_relative();
    for (const fs::path& part : rel) plain = plain && part != "." && part != ".." && !part.empty();
    if (!plain) return Status::InvalidArgument(fmt::format("sandbox: tmp folder '{}' is not a plain relative path", f));
    fs::path made = "/tmp";
    for (const fs::path& part : rel) a.insert(a.end(), {"--perms", "0777", "--dir", (made /= part).string()});
  }

  if (!spec.gpus.empty()) {
    std::vector<std::string> nodes = {"/dev/nvidiactl", "/dev/nvidia-uvm"};
    for (int g : spec.gpus) {
      if (g < 0) return Status::InvalidArgument(fmt::format("sandbox: GPU {} is negative", g));
      nodes.push_back(fmt::format("/dev/nvidia{}", g));
    }
    for (const std::string& n : nodes) {
      if (Exists(n)) a.insert(a.end(), {"--dev-bind", n, n});
    }
  }
  for (const std::string& home : Homes()) {
    for (const char* s : kHomeSecrets) Hide(home + "/" + s, a);
  }
  for (const char* s : kSystemSecrets) Hide(s, a);
  for (const std::string& d : spec.hidden_dirs) {
    auto real = Canonical("hidden dir", d, false);
    if (!real.ok()) return real.status();
    if (Exists(*real)) Hide(*real, a);
  }
  for (const std::string& d : spec.readonly_dirs) {
    auto real = Canonical("readonly dir", d, true);
    if (!real.ok()) return real.status();
    a.insert(a.end(), {"--ro-bind", *real, *real});
  }
  for (const std::string& d : spec.writable_dirs) {
    auto real = Canonical("writable dir", d, true);
    if (!real.ok()) return real.status();
    a.insert(a.end(), {"--bind", *real, *real});
  }
  if (!spec.mps_pipe_dir.empty()) {
    auto real = Canonical("MPS pipe dir", spec.mps_pipe_dir, true);
    if (!real.ok()) return real.status();
    a.insert(a.end(), {"--bind", *real, *real});
  }
  a.insert(a.end(), {"--ro-bind", exec, exec});  // even when it lies in a hidden dir

  a.push_back("--clearenv");
  for (const auto& [k, v] : spec.env) {
    if (k.empty() || k.find('=') != std::string::npos) {
      return Status::InvalidArgument(fmt::format("sandbox: bad environment variable name '{}'", k));
    }
    a.insert(a.end(), {"--setenv", k, v});
  }
  std::string cwd = spec.cwd.empty() ? "/tmp" : spec.cwd;
  if (cwd[0] != '/') return Status::InvalidArgument(fmt::format("sandbox: cwd '{}' is not absolute", cwd));
  a.insert(a.end(), {"--chdir", cwd});
  return a;
}

Status CheckRanks(const SandboxSpec& spec) {
  if (spec.ranks < 0) return Status::InvalidArgument("sandbox: ranks is negative");
  if (spec.ranks > 0 && spec.rank_fd_base >= 0 && spec.rank_fd_base < 3)
    return Status::InvalidArgument("sandbox: rank_fd_base must be >= 3 (or -1: no per-rank fds)");
  if (spec.ranks > 0 && spec.rank_fd_base < 0 && spec.rank_log_fd_base >= 0)
    return Status::InvalidArgument("sandbox: rank_log_fd_base needs rank_fd_base");
  if (spec.ranks > 0 && spec.rank_log_fd_base >= 0 && spec.rank_log_fd_base < 3) {
    return Status::InvalidArgument("sandbox: rank_log_fd_base must be >= 3");
  }
  return Status::Ok();
}

// cuco-sandbox-exec's options for `spec`, ending in "--" (a bad rank setting is left for the exec
// to reject).
std::vector<std::string> ExecOptions(const SandboxSpec& spec, const std::string& exec, bool seccomp) {
  std::vector<std::string> a = {exec};
  auto limit = [&a](const char* opt, uint64_t v) {
    if (v != 0) a.insert(a.end(), {opt, std::to_string(v)});
  };
  limit("--rlimit-as", spec.address_space_bytes);
  limit("--rlimit-data", spec.data_bytes);
  limit("--rlimit-fsize", spec.file_size_bytes);
  limit("--rlimit-cpu", spec.cpu_seconds);
  limit("--rlimit-nofile", spec.open_files);
  limit("--rlimit-nproc", spec.processes);
  a.push_back(seccomp ? "--seccomp" : "--no-seccomp");
  if (spec.ranks != 0) {
    a.insert(a.end(), {"--ranks", std::to_string(spec.ranks)});
    if (spec.rank_fd_base >= 0) a.insert(a.end(), {"--rank-fd-base", std::to_string(spec.rank_fd_base)});
    if (spec.rank_log_fd_base >= 0) a.insert(a.end(), {"--rank-log-fd-base", std::to_string(spec.rank_log_fd_base)});
  }
  a.push_back("--");
  return a;
}

bool CgroupLimitsWritable() {
  struct statfs sf{};
  if (::statfs("/sys/fs/cgroup", &sf) != 0 || sf.f_type != CGROUP2_SUPER_MAGIC) return false;
  if (::access("/sys/fs/cgroup", W_OK) != 0) return false;
  auto controllers = ReadFile("/sys/fs/cgroup/cgroup.controllers");
  if (!controllers.ok()) return false;
  std::string c = " " + TrimRight(*controllers, " \n") + " ";
  return c.find(" pids ") != std::string::npos && c.find(" memory ") != std::string::npos;
}

SandboxSupport Probe() {
  SandboxSupport s;
  const char* path = std::getenv("PATH");
  s.bwrap_path = launch_internal::ResolveProgram("bwrap", path != nullptr ? path : "/usr/local/bin:/usr/bin:/bin");
  s.exec_path = FindExec();
  s.cgroup_limits = CgroupLimitsWritable();
  s.notes = fmt::format(
      "processes: RLIMIT_NPROC when set (per user; as root it bounds nothing), and the pid namespace: every process "
      "of a sandbox is killed when its first process exits or cuco dies (--die-with-parent); memory: RLIMIT_DATA/"
      "RLIMIT_AS when set (AS is left unset on GPUs); cgroup v2 {}",
      s.cgroup_limits ? "is writable here with pids and memory, but cuco does not use it yet"
                      : "with pids and memory is not writable here");
  if (::geteuid() == 0) s.notes += "; candidates run as root without capabilities: root-owned files stay readable "
                                   "unless hidden";
  if (s.bwrap_path.empty()) {
    s.why_not = "bwrap not found in PATH (apt-get install bubblewrap)";
    return s;
  }
  CapturedRun version = RunCapture({s.bwrap_path, "--version"}, 10);
  s.bwrap_version = TrimRight(version.output, " \n");
  if (s.exec_path.empty()) {
    s.why_not = "cuco-sandbox-exec not found next to this program, in ../launch/ or through $CUCO_SANDBOX_EXEC "
                "(build the cuco-sandbox-exec target)";
    return s;
  }
  auto bw = BwrapOptions(SandboxSpec{}, s.bwrap_path, s.exec_path);
  if (!bw.ok()) {
    s.why_not = bw.status().message();
    return s;
  }
  std::vector<std::string> argv = *bw;
  argv.insert(argv.end(), {"--", s.exec_path, "--seccomp", "--check"});
  CapturedRun check = RunCapture(argv, 30);
  if (!check.outcome.ok() || check.output.find("ok") == std::string::npos) {
    std::vector<std::string> plain = *bw;
    plain.insert(plain.end(), {"--", s.exec_path, "--no-seccomp", "--check"});
    CapturedRun bare = RunCapture(plain, 30);
    if (!bare.outcome.ok()) {
      s.why_not = fmt::format("bwrap failed here ({}): {}", bare.outcome.Describe(), TrimRight(bare.output, " \n"));
    } else {
      s.why_not = fmt::format("the seccomp filter failed ({}): {}", check.outcome.Describe(), TrimRight(check.output, " \n"));
    }
    return s;
  }
  s.seccomp = true;
  s.available = true;
  return s;
}

}  // namespace

const SandboxSupport& DetectSandbox() {
  static const SandboxSupport support = Probe();
  return support;
}

Result<std::vector<std::string>> SandboxPrefix(const SandboxSpec& spec) {
  const SandboxSupport& s = DetectSandbox();
  if (!s.available) return Status::Unavailable("sandbox not available: " + s.why_not);
  auto bw = BwrapOptions(spec, s.bwrap_path, s.exec_path);
  if (!bw.ok()) return bw.status();
  CUCO_RETURN_IF_ERROR(CheckRanks(spec));
  std::vector<std::string> argv = std::move(*bw);
  argv.push_back("--");
  for (std::string& a : ExecOptions(spec, s.exec_path, spec.seccomp)) argv.push_back(std::move(a));
  return argv;
}

std::vector<std::string> UnsandboxedPrefix(const SandboxSpec& spec) {
  const std::string& found = DetectSandbox().exec_path;
  return ExecOptions(spec, found.empty() ? "cuco-sandbox-exec" : found, false);
}

nlohmann::json SandboxSupportToJson(const SandboxSupport& s) {
  return {{"available", s.available}, {"why_not", s.why_not},       {"bwrap_path", s.bwrap_path},
          {"bwrap_version", s.bwrap_version}, {"exec_path", s.exec_path}, {"seccomp", s.seccomp},
          {"cgroup_limits", s.cgroup_limits}, {"notes", s.notes}};
}

std::string FormatSandboxReport(const SandboxSupport& s) {
  std::string r = "sandbox\n";
  auto line = [&r](const std::string& label, const std::string& value) { r += fmt::format("  {:<11} {}\n", label, value); };
  line("status", s.available ? "available: bwrap namespaces + seccomp; candidates run sandboxed"
                             : "NOT available: " + s.why_not +
                                   " (eval/evolve/run refuse untrusted candidates without --unsafe-no-sandbox)");
  line("bwrap", s.bwrap_path.empty() ? "not found" : fmt::format("{} ({})", s.bwrap_path, s.bwrap_version));
  line("exec", s.exec_path.empty() ? "cuco-sandbox-exec not found" : s.exec_path);
  bool seccomp_tried = s.available || s.why_not.find("seccomp") != std::string::npos;
  line("seccomp", s.seccomp ? "filter loads and denies ptrace and new user namespaces"
                            : (seccomp_tried ? "not working" : "not checked"));
  line("limits", s.notes);
  return r;
}

}  // namespace cuco
