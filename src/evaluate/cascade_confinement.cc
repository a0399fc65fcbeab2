// Cascade: how a candidate's processes are confined -- the sandbox (bwrap + seccomp, through
// cuco-sandbox-exec) and the explicit environment they get (cascade.h).
#include "evaluate/cascade.h"

#include "launch/gpu_visibility.h"
#include "launch/sandbox.h"
#include "util/files.h"

#include <cuco/protocol.h>

namespace cuco {
namespace {

namespace fs = std::filesystem;

}  // namespace

std::string Cascade::SandboxName() const {
  return std::string("bwrap+seccomp") + (DetectSandbox().seccomp ? "" : " (seccomp unavailable)");
}

std::map<std::string, std::string> Cascade::CandidateEnvironment(const std::vector<int>& gpus, bool sandboxed) const {
  // The whole environment a candidate gets: nothing of cuco's own (LLM keys, the user's variables,
  // the run nonce) reaches it.
  std::map<std::string, std::string> env = {{"PATH", "/usr/local/bin:/usr/bin:/bin"}, {"HOME", "/tmp"}, {"LANG", "C"}};
  for (const auto& [k, v] : NoMulticastEnv()) env[k] = v;
  // No MPS variable passes through: a candidate is an MPS client of cuco's own daemon or of none
  // (GpuSession::SetCandidateEnv), never of a daemon the user or the machine started.
  for (const char* pass : {"LD_LIBRARY_PATH", "CUCO_HARNESS_NONBLOCKING_STREAMS"})
    if (const char* v = std::getenv(pass)) env[pass] = v;
  if (!gpus.empty() && sandboxed) {
    env["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID";
    env["CUDA_VISIBLE_DEVICES"] = SandboxVisibleDevices(BusIds(gpus));
  } else if (!gpus.empty()) {
    env["CUDA_VISIBLE_DEVICES"] = VisibleDevicesFor(gpus, std::getenv("CUDA_VISIBLE_DEVICES"));
  }
  return env;
}

std::vector<std::string> Cascade::BusIds(const std::vector<int>& gpus) const {
  std::vector<std::string> ids;
  for (int g : gpus) {
    std::string id;
    for (const GpuInfo& info : toolchain_.gpus)
      if (info.index == g) id = info.pci_bus_id;
    ids.push_back(id);
  }
  return ids;
}

std::vector<int> Cascade::DeviceMinors(const std::vector<int>& gpus) const {
  const std::vector<std::string> ids = BusIds(gpus);
  std::vector<int> minors;
  for (size_t i = 0; i < gpus.size(); ++i) {
    const int minor = ids[i].empty() ? -1 : DeviceMinorOf(ids[i]);
    minors.push_back(minor >= 0 ? minor : gpus[i]);  // no driver information: the usual numbering
  }
  return minors;
}

Result<std::vector<std::string>> Cascade::CandidateSandbox(const fs::path& stage_dir, const std::string& executable,
                                                           const std::vector<int>& gpus,
                                                           std::map<std::string, std::string> env, int ranks,
                                                           int fd_base, const GpuSession* gpu) const {
  const SandboxSupport& support = DetectSandbox();
  if (!support.available)
    return Status::Unavailable("no working sandbox on this machine (" + support.why_not +
                               "): cuco does not run candidate code unconfined; see `cuco doctor`, or pass "
                               "--unsafe-no-sandbox to run it with your own rights");
  SandboxSpec spec;
  spec.env = std::move(env);
  spec.gpus = DeviceMinors(gpus);
  spec.hidden_dirs = {fs::absolute(stage_dir.parent_path()).string()};  // this candidate's metrics and logs
  spec.readonly_dirs = {fs::absolute(fs::path(executable).parent_path()).string()};  // may lie under /tmp
  // The program's data files (workload.toml's reads): read-only; one missing is the program's to report.
  for (const std::string& read : workload_.reads) {
    std::error_code ec;
    if (fs::exists(read, ec)) spec.readonly_dirs.push_back(read);
  }
  spec.tmp_folders = workload_.run_folders;  // where the candidate starts: its own /tmp
  // MPS: cuco's own pipe folder for this evaluation, and nothing else (never its log folder, never
  // the default /tmp/nvidia-mps); without cuco's daemon, none.
  if (gpu != nullptr) gpu->ConfineSandbox(&spec);
  // CUDA reserves address space far beyond what it uses: no address-space limit on GPU ranks.
  if (workload_.language != "cuda") spec.address_space_bytes = 8ull << 30;
  spec.file_size_bytes = 1ull << 30;
  spec.open_files = 4096;
  spec.ranks = ranks;
  if (fd_base >= 0) {
    spec.rank_fd_base = fd_base;
    spec.rank_log_fd_base = fd_base + ranks;
  }
  return SandboxPrefix(spec);
}

Result<std::string> Cascade::ConfineCandidate(const fs::path& stage_dir, const std::string& executable,
                                              const std::vector<int>& gpus, const GpuSession* gpu,
                                              std::vector<std::string>* argv) const {
  auto env = CandidateEnvironment(gpus, !options_.unsafe_no_sandbox);
  if (gpu != nullptr) gpu->SetCandidateEnv(&env);
  if (options_.unsafe_no_sandbox) {
    for (const auto& [k, v] : env) argv->insert(argv->end(), {"--candidate-env", k + "=" + v});
    return std::string(kUnsandboxed);
  }
  // The sandbox's network namespace has only the loopback device: NCCL's bootstrap must use it.
  env.emplace("NCCL_SOCKET_IFNAME", "lo");
  auto prefix = CandidateSandbox(stage_dir, executable, gpus, env, world_size_, protocol::kSpawnFdBase, gpu);
  if (!prefix.ok()) return prefix.status();
  std::string file;
  for (const auto& a : *prefix) file += a + '\0';
  const fs::path path = stage_dir / "sandbox.argv";
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(path, file));
  argv->insert(argv->end(), {"--sandbox-argv", path.string()});
  return SandboxName();
}

}  // namespace cuco
