#include "launch/mps_daemon.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "launch/process_group.h"
#include "launch/spawn.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using launch_internal::Clock;

constexpr const char* kControlName = "nvidia-cuda-mps-control";
// Client variables that, inherited by the daemon and its server, would cap every client.
const char* const kClientLimits[] = {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT",
                                     "CUDA_MPS_CLIENT_PRIORITY", "CUDA_MPS_ENABLE_PER_CTX_DEVICE_MULTIPROCESSOR_PARTITIONING"};

// A folder made with mode 0700 whatever the umask.
Status MakePrivateDir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return Status::IOError(fmt::format("cannot create {}: {}", path, std::strerror(errno)));
  if (::chmod(path.c_str(), 0700) != 0) return Status::IOError(fmt::format("cannot chmod {}: {}", path, std::strerror(errno)));
  return Status::Ok();
}

std::string TailLines(const std::string& path, size_t lines) {
  auto text = ReadFile(path);
  if (!text.ok() || text->empty()) return "";
  std::vector<std::string> all = SplitLines(TrimRight(*text));
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) out += all[i] + "\n";
  return out;
}

bool ProcessRunning(int pid) {
  if (pid <= 0 || ::kill(pid, 0) != 0) return false;
  auto stat = ReadFile(fmt::format("/proc/{}/stat", pid));
  if (!stat.ok()) return true;  // cannot tell: assume it runs
  const size_t rp = stat->rfind(')');
  return rp == std::string::npos || rp + 2 >= stat->size() || (*stat)[rp + 2] != 'Z';
}

// Whether process `pid`'s environment names `pipe_dir` as its MPS pipe directory: only then is it
// one of ours to kill (a pid can be reused).
bool UsesPipeDir(int pid, const std::string& pipe_dir) {
  auto env = ReadFile(fmt::format("/proc/{}/environ", pid));
  if (!env.ok()) return false;
  const std::string want = "CUDA_MPS_PIPE_DIRECTORY=" + pipe_dir;
  size_t start = 0;
  while (start < env->size()) {
    size_t end = env->find('\0', start);
    if (end == std::string::npos) end = env->size();
    if (env->compare(start, end - start, want) == 0) return true;
    start = end + 1;
  }
  return false;
}

std::vector<int> ParsePids(const std::string& text) {
  std::vector<int> pids;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    char* end = nullptr;
    const long v = std::strtol(word.c_str(), &end, 10);
    if (end != word.c_str() && *end == '\0' && v > 0) pids.push_back(static_cast<int>(v));
  }
  return pids;
}

}  // namespace

std::string FindMpsControl(const char* path_env) {
  std::string dirs = path_env != nullptr ? path_env : "";
  dirs += std::string(dirs.empty() ? "" : ":") + "/usr/local/nvidia/bin:/usr/bin";
  return launch_internal::ResolveProgram(kControlName, dirs);
}

namespace {

// A Limits() line with its server pid (the number after "_percentage " or "_limit ") replaced, so
// that servers compare by their limits alone.
std::string WithoutPid(const std::string& line) {
  std::istringstream in(line);
  std::string command, pid;
  in >> command >> pid;
  if (command.rfind("get_active_thread_percentage", 0) != 0 && command.rfind("get_device_pinned_mem_limit", 0) != 0)
    return line;
  if (pid.empty() || pid.back() == ':') pid = pid.empty() ? pid : pid.substr(0, pid.size() - 1);
  std::string out = line;
  for (size_t at; !pid.empty() && (at = out.find(pid)) != std::string::npos;) out.replace(at, pid.size(), "<pid>");
  return out;
}

bool IsServerLine(const std::string& line) {
  return line.rfind("get_active_thread_percentage", 0) == 0 || line.rfind("get_device_pinned_mem_limit", 0) == 0;
}

}  // namespace

std::string LimitsDiffer(const std::string& before, const std::string& after) {
  const std::vector<std::string> was_lines = SplitLines(before), is_lines = SplitLines(after);
  std::vector<std::string> was, changed;
  for (const std::string& l : was_lines)
    if (!l.empty()) was.push_back(IsServerLine(l) ? WithoutPid(l) : l);
  for (const std::string& l : is_lines)
    if (!l.empty() && std::find(was.begin(), was.end(), IsServerLine(l) ? WithoutPid(l) : l) == was.end())
      changed.push_back(l);
  for (const std::string& l : was_lines)  // a default no longer answered at all
    if (!l.empty() && !IsServerLine(l) && std::find(is_lines.begin(), is_lines.end(), l) == is_lines.end() &&
        changed.empty())
      changed.push_back("no longer: " + l);
  return fmt::format("{}", fmt::join(changed, "; "));
}

bool OnlyUnanswered(const std::string& changed) {
  if (changed.empty()) return false;
  static const std::string failed = ": (failed)";
  for (size_t from = 0; from <= changed.size();) {
    size_t end = changed.find("; ", from);
    if (end == std::string::npos) end = changed.size();
    const std::string item = changed.substr(from, end - from);
    if (item.size() < failed.size() || item.compare(item.size() - failed.size(), failed.size(), failed) != 0) return false;
    from = end + 2;
  }
  return true;
}

std::string MpsStopReport::Describe() const {
  if (!stopped) return "already stopped";
  std::string s = quit_answered ? "quit" : "quit not answered";
  if (daemon_killed) s += ", daemon killed";
  if (!servers_killed.empty()) s += fmt::format(", server(s) {} killed", fmt::join(servers_killed, ","));
  s += folder_removed ? ", private folder removed" : ", private folder NOT removed";
  return s + fmt::format(" ({:.2f} s)", seconds);
}

Result<std::unique_ptr<MpsDaemon>> MpsDaemon::Start(const MpsOptions& options) {
  const auto t0 = Clock::now();
  std::unique_ptr<MpsDaemon> d(new MpsDaemon());
  d->options_ = options;
  d->devices_ = options.devices;
  d->control_ = options.control.empty() ? FindMpsControl(std::getenv("PATH")) : options.control;
  if (d->control_.empty())
    return Status::Unavailable(fmt::format("{} not found (looked in PATH, /usr/local/nvidia/bin, /usr/bin)", kControlName));
  std::string parent = options.parent_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp != nullptr && tmp[0] == '/' ? tmp : "/tmp";
  }
  std::string tmpl = parent + "/cuco-mps-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr)
    return Status::IOError(fmt::format("cannot make a private MPS folder under {}: {}", parent, std::strerror(errno)));
  d->root_ = tmpl;
  d->pipe_dir_ = d->root_ + "/pipe";
  d->log_dir_ = d->root_ + "/log";
  for (const std::string& dir : {d->root_, d->pipe_dir_, d->log_dir_}) {
    Status s = MakePrivateDir(dir);
    if (!s.ok()) {
      d->Stop();
      return s;
    }
  }
  if ((d->pipe_dir_ + "/control").size() > 100) {
    d->Stop();
    return Status::InvalidArgument(fmt::format("MPS pipe folder {} is too long for a socket address: give a shorter "
                                               "parent folder (TMPDIR)", d->pipe_dir_));
  }
  ProcessSpec spec;
  spec.argv = {d->control_, "-f"};
  spec.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", d->pipe_dir_}, {"CUDA_MPS_LOG_DIRECTORY", d->log_dir_}};
  if (!options.devices.empty()) spec.env_set["CUDA_VISIBLE_DEVICES"] = fmt::format("{}", fmt::join(options.devices, ","));
  else spec.env_unset.push_back("CUDA_VISIBLE_DEVICES");
  for (const char* k : kClientLimits) spec.env_unset.push_back(k);
  spec.stdout_path = spec.stderr_path = d->root_ + "/daemon.out";
  launch_internal::Started started = launch_internal::Spawn(spec, 0);
  if (started.pid <= 0) {
    d->Stop();
    return Status::Unavailable(fmt::format("cannot start {}: {}", d->control_, started.error));
  }
  d->pid_ = started.pid;
  Status s = d->WaitForControl(options.start_timeout_s);
  if (s.ok() && options.start_server) {
    auto r = d->Command(fmt::format("start_server -uid {}", ::getuid()));
    s = r.ok() ? d->WaitForServer(options.start_timeout_s) : r.status();
  }
  if (!s.ok()) {
    const std::string tail = d->LogTail();
    d->Stop();
    return Status::Unavailable(s.message() + (tail.empty() ? "" : "; its logs end:\n" + tail));
  }
  d->start_seconds_ = SecondsSince(t0);
  return d;
}

MpsDaemon::~MpsDaemon() { Stop(); }

bool MpsDaemon::Alive() const {
  if (pid_ <= 0 || stopped_ || exited_) return false;
  return !launch_internal::PeekExit(pid_).has_value();
}

Status MpsDaemon::WaitForControl(double timeout_s) {
  const auto t0 = Clock::now();
  launch_internal::Backoff backoff;
  std::error_code ec;
  while (!fs::exists(pipe_dir_ + "/control", ec)) {
    if (auto e = launch_internal::PeekExit(pid_)) {
      exited_ = true;
      return Status::Unavailable(fmt::format("{} -f ended at start ({})", control_, e->Describe()));
    }
    if (SecondsSince(t0) > timeout_s)
      return Status::Unavailable(fmt::format("{} -f made no control socket in {}/ within {:.0f} s", control_, pipe_dir_, timeout_s));
    backoff.Wait(0.05);
  }
  return Status::Ok();
}

Status MpsDaemon::WaitForServer(double timeout_s) {
  const auto t0 = Clock::now();
  for (;;) {
    auto servers = Servers();
    if (servers.ok() && !servers->empty()) return Status::Ok();
    if (!Alive()) return Status::Unavailable(fmt::format("{} ended while its server started", control_));
    if (SecondsSince(t0) > timeout_s)
      return Status::Unavailable(fmt::format("the MPS server did not start within {:.0f} s{}", timeout_s,
                                             servers.ok() ? "" : " (" + servers.status().message() + ")"));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Result<std::string> MpsDaemon::Command(const std::string& command) const {
  static std::atomic<int> counter{0};
  const std::string out = fmt::format("{}/command-{}.out", root_, counter++);
  ProcessSpec spec;
  spec.argv = {control_};
  spec.env_set = {{"CUDA_MPS_PIPE_DIRECTORY", pipe_dir_}, {"CUDA_MPS_LOG_DIRECTORY", log_dir_}};
  spec.stdin_data = command + "\n";
  spec.stdout_path = spec.stderr_path = out;
  const ProcessOutcome o = RunProcess(spec, options_.command_timeout_s);
  auto text = ReadFile(out);
  std::error_code ec;
  fs::remove(out, ec);
  const std::string said = Trim(text.ok() ? *text : "");
  if (!o.ok())
    return Status::IOError(fmt::format("MPS control command '{}' failed ({}){}", command, o.Describe(),
                                       said.empty() ? "" : ": " + said));
  return said;
}

Result<std::vector<int>> MpsDaemon::Servers() const {
  auto out = Command("get_server_list");
  if (!out.ok()) return out.status();
  return ParsePids(*out);
}

Result<std::string> MpsDaemon::Limits() const {
  auto servers = Servers();
  if (!servers.ok()) return servers.status();
  const size_t devices = std::max<size_t>(1, devices_.size());
  std::vector<std::string> commands = {"get_default_active_thread_percentage"};
  for (size_t d = 0; d < devices; ++d) commands.push_back(fmt::format("get_default_device_pinned_mem_limit {}", d));
  for (int pid : *servers) {
    commands.push_back(fmt::format("get_active_thread_percentage {}", pid));
    for (size_t d = 0; d < devices; ++d) commands.push_back(fmt::format("get_device_pinned_mem_limit {} {}", pid, d));
  }
  // A command this driver's control program does not know fails the same way every time: its
  // line says so instead of failing the snapshot.
  std::string text;
  for (const std::string& c : commands) {
    auto answer = Command(c);
    text += c + ": " + (answer.ok() ? *answer : "(failed)") + "\n";
  }
  return text;
}

std::string MpsDaemon::LogTail() const {
  std::string out;
  for (const std::string& f : {root_ + "/daemon.out", log_dir_ + "/control.log", log_dir_ + "/server.log"}) {
    const std::string t = TailLines(f, 6);
    if (!t.empty()) out += "[" + fs::path(f).filename().string() + "]\n" + t;
  }
  return out;
}

MpsStopReport MpsDaemon::Stop() {
  MpsStopReport r;
  if (stopped_) return r;
  const auto t0 = Clock::now();
  r.stopped = true;
  if (pid_ > 0) {
    if (Alive()) {
      if (auto s = Servers(); s.ok())
        for (int pid : *s)
          if (std::find(servers_.begin(), servers_.end(), pid) == servers_.end()) servers_.push_back(pid);
      r.quit_answered = Command("quit").ok();
      launch_internal::Backoff backoff;
      // Until the daemon and everything it started have ended (its servers may outlive it by a
      // moment): a loaded host must not turn an answered quit into a kill.
      while ((!launch_internal::PeekExit(pid_).has_value() || launch_internal::GroupHasLiveMembers(pid_)) &&
             SecondsSince(t0) < options_.quit_timeout_s)
        backoff.Wait(0.05);
    }
    if (!launch_internal::PeekExit(pid_).has_value() || launch_internal::GroupHasLiveMembers(pid_)) {
      r.daemon_killed = true;
      launch_internal::TerminateGroup(pid_, {pid_}, 1.0);
    }
    launch_internal::UnregisterGroup(pid_);
    launch_internal::Reap(pid_, launch_internal::PeekExit(pid_).has_value());
    exited_ = true;
  }
  stopped_ = true;
  // The servers end with their daemon's quit; any still running (a daemon that was killed, or did
  // not wait for them) is killed by pid, once it is seen to be ours.
  const auto t1 = Clock::now();
  for (int pid : servers_) {
    while (ProcessRunning(pid) && SecondsSince(t1) < 3) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (ProcessRunning(pid) && UsesPipeDir(pid, pipe_dir_) && ::kill(pid, SIGKILL) == 0) r.servers_killed.push_back(pid);
  }
  if (!root_.empty()) {
    std::error_code ec;
    fs::remove_all(root_, ec);
    r.folder_removed = !fs::exists(root_, ec);
  }
  r.seconds = SecondsSince(t0);
  return r;
}

}  // namespace cuco
