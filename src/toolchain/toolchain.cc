#include "toolchain/toolchain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <future>
#include <regex>
#include <sstream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "toolchain/command.h"
#include "toolchain/gpus.h"
#include "toolchain/libraries.h"
#include "util/read_trace.h"
#include "util/source_text.h"

namespace cuco {
namespace fs = std::filesystem;
using toolchain_internal::CommandOutput;
using toolchain_internal::FindProgram;
using toolchain_internal::Getenv;
using toolchain_internal::IsFile;
using toolchain_internal::FirstLine;
using toolchain_internal::RunCommand;

namespace {



// Runs f on its own thread, or later on the caller's when no thread can be made.
template <typename F>
auto Start(F f) -> std::future<decltype(f())> {
  try {
    return std::async(std::launch::async, f);
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, f);
  }
}

// "13.0" -> {13, 0}; {0, 0} for anything unreadable.
std::pair<int, int> MajorMinor(const std::string& v) {
  int major = 0, minor = 0;
  std::sscanf(v.c_str(), "%d.%d", &major, &minor);
  return {major, minor};
}

bool HasCudaHeaders(const fs::path& root) { return IsFile(root / "include/cuda_runtime.h"); }

void DetectNvcc(Toolchain* tc) {
  std::vector<std::pair<std::string, std::string>> candidates;  // (path, where it came from)
  if (std::string v = Getenv("CUCO_NVCC"); !v.empty()) {
    if (std::string p = FindProgram(v); !p.empty()) {
      candidates.push_back({p, "CUCO_NVCC"});
    } else {
      tc->notes.push_back(fmt::format("CUCO_NVCC={} is not an executable; ignored", v));
    }
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (std::string home = Getenv(var); !home.empty()) candidates.push_back({FindProgram(home + "/bin/nvcc"), var});
  }
  candidates.push_back({FindProgram("nvcc"), "PATH"});
  candidates.push_back({FindProgram("/usr/local/cuda/bin/nvcc"), "/usr/local/cuda"});
  for (const auto& [path, from] : candidates) {
    if (path.empty()) continue;
    tc->nvcc = path;
    break;
  }
  if (tc->nvcc.empty()) {
    // No compiler, but a CUDA runtime tree may still hold NCCL and cuBLAS.
    for (const std::string& root : {Getenv("CUDA_HOME"), Getenv("CUDA_PATH"), std::string("/usr/local/cuda")}) {
      if (!root.empty() && HasCudaHeaders(root)) {
        tc->cuda_home = root;
        break;
      }
    }
    tc->notes.push_back("nvcc not found (looked at $CUCO_NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin)");
    return;
  }
  fs::path home = fs::path(tc->nvcc).parent_path().parent_path();
  if (!HasCudaHeaders(home)) {
    // nvcc reached through a symlink such as /usr/bin/nvcc -> /opt/cuda/bin/nvcc.
    std::error_code ec;
    fs::path real = fs::canonical(tc->nvcc, ec).parent_path().parent_path();
    if (!ec && HasCudaHeaders(real)) home = real;
  }
  tc->cuda_home = home.string();
  if (!HasCudaHeaders(home)) tc->notes.push_back(fmt::format("no include/cuda_runtime.h under {}", tc->cuda_home));

  CommandOutput out = RunCommand({tc->nvcc, "--version"});
  std::smatch m;
  static const std::regex kRelease("release ([0-9]+\\.[0-9]+)");
  if (std::regex_search(out.output, m, kRelease)) {
    tc->cuda_version = m[1];
  } else {
    tc->notes.push_back(fmt::format("could not read the CUDA release from `{} --version` (exit {})", tc->nvcc, out.exit_code));
  }
}

void DetectCxx(Toolchain* tc) {
  if (std::string cxx = Getenv("CXX"); !cxx.empty()) {
    std::string p = FindProgram(cxx);
    if (p.empty()) p = FindProgram(cxx.substr(0, cxx.find(' ')));  // "ccache g++" style values
    if (!p.empty()) {
      tc->cxx = p;
      return;
    }
    tc->notes.push_back(fmt::format("CXX={} is not an executable; ignored", cxx));
  }
  for (const char* name : {"g++", "c++"}) {
    if (std::string p = FindProgram(name); !p.empty()) {
      tc->cxx = p;
      return;
    }
  }
}

struct SmiReport {
  bool present = false;
  std::string driver_version;
  std::vector<std::string> bus_ids;  // by nvidia-smi index
  Result<GpuLinks> links = Status::Unavailable("nvidia-smi not found");
};

SmiReport QueryNvidiaSmi() {
  SmiReport report;
  std::string smi = FindProgram("nvidia-smi");
  if (smi.empty()) smi = FindProgram("/usr/local/nvidia/bin/nvidia-smi");
  if (smi.empty()) return report;
  report.present = true;
  CommandOutput q = RunCommand({smi, "--query-gpu=index,pci.bus_id,driver_version", "--format=csv,noheader"});
  if (q.exit_code == 0) {
    std::istringstream in(q.output);
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> fields;
      std::istringstream cells(line);
      std::string cell;
      while (std::getline(cells, cell, ',')) fields.push_back(Trim(cell));
      if (fields.size() != 3) continue;
      report.bus_ids.push_back(fields[1]);
      report.driver_version = fields[2];
    }
  }
  CommandOutput topo = RunCommand({smi, "topo", "-m"});
  report.links = topo.exit_code == 0 ? ParseTopologyMatrix(topo.output)
                                     : Result<GpuLinks>(Status::IOError(fmt::format(
                                           "`nvidia-smi topo -m` failed (exit {}): {}", topo.exit_code, FirstLine(topo.output))));
  return report;
}

std::pair<std::string, std::string> DetectMpi() {
  std::string mpirun = FindProgram("mpirun");
  if (mpirun.empty()) return {};
  CommandOutput out = RunCommand({mpirun, "--version"});
  std::string version = FirstLine(out.output);
  if (version.rfind("HYDRA", 0) == 0) {  // MPICH: "HYDRA build details:" then "    Version: 4.1"
    std::smatch m;
    static const std::regex kVersion("Version:\\s*(\\S+)");
    if (std::regex_search(out.output, m, kVersion)) version = "MPICH (HYDRA) " + m[1].str();
  }
  return {mpirun, version};
}

struct SlurmFound {
  std::string srun;
  SlurmVersion version;
};

SlurmFound DetectSlurm() {
  std::string srun = FindProgram("srun");
  if (srun.empty()) return {};
  const CommandOutput out = RunCommand({srun, "--version"});
  return {srun, ParseSlurmVersion(out.output, out.exit_code)};
}

std::vector<std::string> RdmaDevices() {
  std::vector<std::string> devices;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator("/sys/class/infiniband", ec)) {
    devices.push_back(e.path().filename().string());
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

Toolchain Detect() {
  Toolchain tc;
  // The slow, independent probes run beside each other.
  auto wheels_f = Start(FindPythonWheels);
  auto smi_f = Start(QueryNvidiaSmi);
  auto mpi_f = Start(DetectMpi);
  auto slurm_f = Start(DetectSlurm);

  DetectNvcc(&tc);
  DetectCxx(&tc);
  DriverProbe driver = ProbeDriver();
  tc.gpus = driver.gpus;
  tc.driver_cuda_version = driver.driver_cuda_version;
  tc.notes.insert(tc.notes.end(), driver.notes.begin(), driver.notes.end());
  tc.rdma_devices = RdmaDevices();

  PythonWheels wheels = wheels_f.get();
  tc.nccl = DetectNccl(tc.cuda_home, wheels.nccl, &tc.notes);
  tc.cublas = DetectCublas(tc.cuda_home, wheels, &tc.notes);
  tc.nvshmem = DetectNvshmem(tc.cuda_home, tc.cuda_version, wheels, &tc.notes);
  tc.cudnn = DetectCudnn(tc.cuda_home, wheels, &tc.notes);
  tc.cudnn_frontend_include = DetectCudnnFrontend(wheels, &tc.cudnn_frontend_version, &tc.notes);

  SmiReport smi = smi_f.get();
  tc.driver_version = smi.driver_version;
  if (!tc.gpus.empty()) {
    if (!smi.present) {
      tc.notes.push_back("nvidia-smi not found: GPU links unknown");
    } else if (!smi.links.ok()) {
      tc.notes.push_back("GPU links unknown: " + smi.links.status().message());
    } else {
      Result<GpuLinks> links = LinksInDeviceOrder(*smi.links, smi.bus_ids, tc.gpus);
      if (links.ok()) {
        tc.gpu_links = *links;
      } else {
        tc.notes.push_back("GPU links unknown: " + links.status().message());
      }
    }
  }
  if (!tc.cuda_version.empty() && !tc.driver_cuda_version.empty() &&
      MajorMinor(tc.cuda_version) > MajorMinor(tc.driver_cuda_version)) {
    tc.notes.push_back(fmt::format("nvcc is CUDA {} but the driver supports CUDA {}: programs built with it may not load",
                                   tc.cuda_version, tc.driver_cuda_version));
  }

  std::tie(tc.mpirun, tc.mpi_version) = mpi_f.get();
  const SlurmFound slurm = slurm_f.get();
  tc.srun = slurm.srun;
  tc.slurm_version = slurm.version.version;
  tc.slurm_error = slurm.version.error;
  tc.in_slurm_allocation = !Getenv("SLURM_JOB_ID").empty();
  return tc;
}

// The first pair of distinct GPUs not linked by NVLink, as "GPU0-GPU1 (SYS)"; "" when all are.
std::string FirstNonNvlinkPair(const Toolchain& tc) {
  for (size_t i = 0; i < tc.gpu_links.size(); ++i) {
    for (size_t j = 0; j < tc.gpu_links[i].size(); ++j) {
      if (i != j && tc.gpu_links[i][j].rfind("NV", 0) != 0) {
        return fmt::format("GPU{}-GPU{} ({})", i, j, tc.gpu_links[i][j]);
      }
    }
  }
  return "";
}

std::string NcclFeatureList(const NcclInstall& n) {
  std::vector<std::string> parts;
  if (n.device_api) parts.push_back("device API");
  if (n.lsa) parts.push_back("LSA");
  if (n.gin) parts.push_back("GIN");
  return parts.empty() ? "no device API" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string GiB(uint64_t bytes) { return fmt::format("{:.1f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

nlohmann::json LibraryJson(const LibraryInstall& lib) {
  return {{"found", lib.found},     {"version", lib.version}, {"include_dir", lib.include_dir},
          {"lib_dir", lib.lib_dir}, {"library", lib.library}, {"source", lib.source}};
}

// Reads j[key] into *out when present and of the right type.
template <typename T>
void Get(const nlohmann::json& j, const char* key, T* out) {
  if (!j.is_object()) return;
  auto it = j.find(key);
  if (it == j.end()) return;
  try {
    *out = it->template get<T>();
  } catch (const nlohmann::json::exception&) {
  }
}

void LibraryFromJson(const nlohmann::json& j, LibraryInstall* lib) {
  Get(j, "found", &lib->found);
  Get(j, "version", &lib->version);
  Get(j, "include_dir", &lib->include_dir);
  Get(j, "lib_dir", &lib->lib_dir);
  Get(j, "library", &lib->library);
  Get(j, "source", &lib->source);
}

}  // namespace

SlurmVersion ParseSlurmVersion(const std::string& output, int exit_code) {
  std::istringstream in(output);
  for (std::string line; std::getline(in, line);) {
    line = Trim(line);
    // "slurm 23.11.4" (upstream) gives "23.11.4"; "slurm-wlm 22.05.8" (Debian's) is kept whole.
    const size_t space = line.find(' ');
    if (line.rfind("slurm", 0) == 0 && space != std::string::npos && space + 1 < line.size() &&
        std::isdigit(static_cast<unsigned char>(line[space + 1])))
      return {space == 5 ? line.substr(6) : line, ""};
  }
  std::string first = Trim(FirstLine(output));
  if (first.empty()) first = fmt::format("no version printed (exit {})", exit_code);
  return {"", first};
}

Toolchain DetectToolchain() {
  NoteRead("toolchain");
  try {
    return Detect();
  } catch (const std::exception& e) {
    Toolchain tc;
    tc.notes.push_back(std::string("toolchain detection stopped early: ") + e.what());
    return tc;
  } catch (...) {
    Toolchain tc;
    tc.notes.push_back("toolchain detection stopped early");
    return tc;
  }
}

nlohmann::json ToJson(const Toolchain& tc) {
  nlohmann::json j;
  j["nvcc"] = tc.nvcc;
  j["cuda_version"] = tc.cuda_version;
  j["cuda_home"] = tc.cuda_home;
  j["cublas"] = LibraryJson(tc.cublas);
  nlohmann::json nccl = LibraryJson(tc.nccl);
  nccl["device_api"] = tc.nccl.device_api;
  nccl["lsa"] = tc.nccl.lsa;
  nccl["gin"] = tc.nccl.gin;
  nccl["version_code"] = tc.nccl.version_code;
  j["nccl"] = nccl;
  j["nvshmem"] = LibraryJson(tc.nvshmem);
  j["cudnn"] = LibraryJson(tc.cudnn);
  j["cudnn_frontend"] = {{"include_dir", tc.cudnn_frontend_include}, {"version", tc.cudnn_frontend_version}};
  j["cxx"] = tc.cxx;
  j["gpus"] = nlohmann::json::array();
  for (const GpuInfo& g : tc.gpus) {
    j["gpus"].push_back({{"index", g.index},
                         {"name", g.name},
                         {"sm_count", g.sm_count},
                         {"memory_bytes", g.memory_bytes},
                         {"cc_major", g.cc_major},
                         {"cc_minor", g.cc_minor},
                         {"pci_bus_id", g.pci_bus_id},
                         {"uuid", g.uuid},
                         {"compute_mode", g.compute_mode}});
  }
  j["driver_version"] = tc.driver_version;
  j["driver_cuda_version"] = tc.driver_cuda_version;
  j["gpu_links"] = tc.gpu_links;
  j["rdma_devices"] = tc.rdma_devices;
  j["mpirun"] = tc.mpirun;
  j["mpi_version"] = tc.mpi_version;
  j["srun"] = tc.srun;
  j["slurm_version"] = tc.slurm_version;
  j["slurm_error"] = tc.slurm_error;
  j["in_slurm_allocation"] = tc.in_slurm_allocation;
  j["notes"] = tc.notes;
  j["preferred_cuda_arch"] = PreferredCudaArch(tc);
  j["features"] = nlohmann::json::array();
  for (const FeatureStatus& f : Features(tc)) {
    j["features"].push_back({{"feature", f.feature}, {"available", f.available}, {"reason", f.reason}});
  }
  return j;
}

Toolchain ToolchainFromJson(const nlohmann::json& j) {
  Toolchain tc;
  Get(j, "nvcc", &tc.nvcc);
  Get(j, "cuda_version", &tc.cuda_version);
  Get(j, "cuda_home", &tc.cuda_home);
  if (j.is_object() && j.contains("cublas")) LibraryFromJson(j["cublas"], &tc.cublas);
  if (j.is_object() && j.contains("nccl")) {
    const nlohmann::json& n = j["nccl"];
    LibraryFromJson(n, &tc.nccl);
    Get(n, "device_api", &tc.nccl.device_api);
    Get(n, "lsa", &tc.nccl.lsa);
    Get(n, "gin", &tc.nccl.gin);
    Get(n, "version_code", &tc.nccl.version_code);
  }
  if (j.is_object() && j.contains("nvshmem")) LibraryFromJson(j["nvshmem"], &tc.nvshmem);
  if (j.is_object() && j.contains("cudnn")) LibraryFromJson(j["cudnn"], &tc.cudnn);
  if (j.is_object() && j.contains("cudnn_frontend")) {
    Get(j["cudnn_frontend"], "include_dir", &tc.cudnn_frontend_include);
    Get(j["cudnn_frontend"], "version", &tc.cudnn_frontend_version);
  }
  Get(j, "cxx", &tc.cxx);
  if (j.is_object() && j.contains("gpus") && j["gpus"].is_array()) {
    for (const nlohmann::json& g : j["gpus"]) {
      GpuInfo gpu;
      Get(g, "index", &gpu.index);
      Get(g, "name", &gpu.name);
      Get(g, "sm_count", &gpu.sm_count);
      Get(g, "memory_bytes", &gpu.memory_bytes);
      Get(g, "cc_major", &gpu.cc_major);
      Get(g, "cc_minor", &gpu.cc_minor);
      Get(g, "pci_bus_id", &gpu.pci_bus_id);
      Get(g, "uuid", &gpu.uuid);
      Get(g, "compute_mode", &gpu.compute_mode);
      tc.gpus.push_back(gpu);
    }
  }
  Get(j, "driver_version", &tc.driver_version);
  Get(j, "driver_cuda_version", &tc.driver_cuda_version);
  Get(j, "gpu_links", &tc.gpu_links);
  Get(j, "rdma_devices", &tc.rdma_devices);
  Get(j, "mpirun", &tc.mpirun);
  Get(j, "mpi_version", &tc.mpi_version);
  Get(j, "srun", &tc.srun);
  Get(j, "slurm_version", &tc.slurm_version);
  Get(j, "slurm_error", &tc.slurm_error);
  Get(j, "in_slurm_allocation", &tc.in_slurm_allocation);
  Get(j, "notes", &tc.notes);
  return tc;
}

std::vector<FeatureStatus> Features(const Toolchain& tc) {
  std::vector<FeatureStatus> out;
  auto add = [&out](std::string feature, bool available, std::string reason) {
    out.push_back({std::move(feature), available, std::move(reason)});
  };
  const bool driver = !tc.driver_cuda_version.empty();
  const size_t ngpu = tc.gpus.size();
  const std::string nccl_at = fmt::format("NCCL {} from {}", tc.nccl.version, tc.nccl.source);

  add("compile CUDA candidates (L1)", !tc.nvcc.empty(),
      !tc.nvcc.empty() ? fmt::format("nvcc {} at {}", tc.cuda_version, tc.nvcc)
                       : "needs nvcc: not found (set CUCO_NVCC or CUDA_HOME, or put nvcc on PATH)");

  if (ngpu > 0 && driver) {
    std::string reason = fmt::format("{} GPU{} ({}), driver {}", ngpu, ngpu > 1 ? "s" : "", tc.gpus[0].name,
                                     tc.driver_version.empty() ? "CUDA " + tc.driver_cuda_version : tc.driver_version);
    if (tc.nvcc.empty()) reason += "; building what it runs needs nvcc too";
    add("run and benchmark on GPU (L2/L3)", true, reason);
  } else {
    add("run and benchmark on GPU (L2/L3)", false,
        driver ? "needs a GPU: driver found but no GPU visible (check CUDA_VISIBLE_DEVICES)"
               : "needs an NVIDIA driver and a GPU: no NVIDIA driver (libcuda.so.1 not loadable)");
  }

  add("multi-GPU workloads", ngpu >= 2,
      ngpu >= 2 ? fmt::format("{} GPUs", ngpu) : fmt::format("needs 2 or more GPUs: {} visible", ngpu));

  add("NCCL host collectives", tc.nccl.found,
      tc.nccl.found ? fmt::format("{}, library {}", nccl_at, tc.nccl.library)
                    : "needs NCCL: not found (set CUCO_NCCL_HOME to a folder with include/nccl.h and lib/libnccl.so.2)");

  {
    const bool ok = tc.nccl.found && tc.nccl.device_api && tc.nccl.lsa;
    std::string reason;
    if (!tc.nccl.found) {
      reason = "needs NCCL 2.28 or newer with the device API: NCCL not found";
    } else if (!ok) {
      reason = fmt::format("needs the NCCL device API (nccl_device.h and nccl_device/lsa_barrier.h): {} has {}", nccl_at,
                           NcclFeatureList(tc.nccl));
    } else {
      reason = fmt::format("{} has nccl_device/lsa_barrier.h", nccl_at);
      if (ngpu < 2) {
        reason += "; running needs 2 or more GPUs linked by NVLink";
      } else if (tc.gpu_links.empty()) {
        reason += "; GPU links unknown (no `nvidia-smi topo -m`): running needs NVLink between the GPUs";
      } else if (std::string pair = FirstNonNvlinkPair(tc); !pair.empty()) {
        reason += fmt::format("; but {} is not NVLink: LSA kernels need NVLink between the GPUs to run", pair);
      } else {
        reason += fmt::format("; all {} GPUs are linked by NVLink ({})", ngpu, tc.gpu_links[0][1]);
      }
    }
    add("LSA backend (NCCL device API over NVLink)", ok, reason);
  }

  {
    const bool ok = tc.nccl.found && tc.nccl.device_api && tc.nccl.gin;
    std::string reason;
    if (!tc.nccl.found) {
      reason = "needs NCCL with nccl_device/gin.h (2.28.9 has it): NCCL not found";
    } else if (!ok) {
      reason = fmt::format("needs NCCL with nccl_device/gin.h (2.28.9 has it): {} has {}", nccl_at,
                           NcclFeatureList(tc.nccl));
    } else {
      reason = fmt::format("{} has nccl_device/gin.h; running needs RDMA NICs (GPUDirect RDMA): {}", nccl_at,
                           tc.rdma_devices.empty() ? std::string("none in /sys/class/infiniband")
                                                   : fmt::format("{}", fmt::join(tc.rdma_devices, ", ")));
    }
    add("GIN backend", ok, reason);
  }

  add("NVSHMEM backend", tc.nvshmem.found,
      tc.nvshmem.found ? fmt::format("NVSHMEM {} from {}", tc.nvshmem.version, tc.nvshmem.source)
                       : "needs NVSHMEM: not found (set CUCO_NVSHMEM_HOME, or install the nvidia-nvshmem wheel)");

  {
    const bool ok = tc.cudnn.found && !tc.cudnn_frontend_include.empty();
    std::string reason;
    if (ok) {
      reason = fmt::format("cuDNN {} from {}, frontend {} at {}", tc.cudnn.version, tc.cudnn.source, tc.cudnn_frontend_version,
                           tc.cudnn_frontend_include);
    } else {
      std::vector<std::string> missing;
      if (!tc.cudnn.found) missing.push_back("cuDNN 9 (cudnn.h, libcudnn.so.9: the CUDA toolkit, the nvidia-cudnn wheel or CUCO_CUDNN_HOME)");
      if (tc.cudnn_frontend_include.empty())
        missing.push_back("the cuDNN frontend headers (pip install nvidia-cudnn-frontend, or CUCO_CUDNN_FRONTEND_INCLUDE)");
      reason = fmt::format("needs {}", fmt::join(missing, " and "));
    }
    add("cuDNN attention (codesign/cudnn_attention.h, [build] libs \"cudnn\")", ok, reason);
  }

  add("cuBLASLt compute", tc.cublas.found,
      tc.cublas.found ? fmt::format("cuBLAS {} from {}", tc.cublas.version, tc.cublas.source)
                      : "needs cuBLASLt: no cublasLt.h and libcublasLt.so in the CUDA toolkit or the nvidia.cublas wheel");

  add("program mode under mpirun", !tc.mpirun.empty(),
      !tc.mpirun.empty() ? fmt::format("{} ({})", tc.mpirun, tc.mpi_version) : "needs mpirun: not on PATH");

  add("Slurm launcher", !tc.srun.empty() && tc.slurm_error.empty(),
      tc.srun.empty()           ? "needs srun: not on PATH"
      : !tc.slurm_error.empty() ? fmt::format("needs a Slurm cluster: {} is installed, but `srun --version` says: {}",
                                              tc.srun, tc.slurm_error)
                                : fmt::format("{} (Slurm {}){}", tc.srun, tc.slurm_version,
                                              tc.in_slurm_allocation ? ", inside an allocation" : ""));

  add("CPU test workloads", !tc.cxx.empty(),
      !tc.cxx.empty() ? tc.cxx : "needs a host C++ compiler: no $CXX, g++ or c++ found");
  return out;
}

std::string ComputeModeName(int mode) {
  switch (mode) {
    case 0: return "default";
    case 1: return "exclusive thread";
    case 2: return "prohibited";
    case 3: return "exclusive process";
    default: return "unknown";
  }
}

std::string PreferredCudaArch(const Toolchain& tc) {
  if (tc.gpus.empty() || tc.gpus[0].cc_major <= 0) return "sm_90a";
  const GpuInfo& g = tc.gpus[0];
  return fmt::format("sm_{}{}{}", g.cc_major, g.cc_minor, g.cc_major >= 9 ? "a" : "");
}

std::string FormatReport(const Toolchain& tc) {
  std::string r;
  auto line = [&r](const std::string& label, const std::string& value) { r += fmt::format("  {:<11} {}\n", label, value); };
  auto library = [&](const std::string& label, const LibraryInstall& lib, const std::string& extra) {
    if (!lib.found) {
      line(label, "not found");
      return;
    }
    line(label, fmt::format("{} from {}{}", lib.version.empty() ? "(version unknown)" : lib.version, lib.source, extra));
    line("", fmt::format("include {}", lib.include_dir));
    line("", fmt::format("library {}", lib.library));
  };

  r += "toolchain\n";
  line("nvcc", tc.nvcc.empty() ? "not found"
                               : fmt::format("{} (CUDA {}, home {})", tc.nvcc, tc.cuda_version, tc.cuda_home));
  line("host C++", tc.cxx.empty() ? "not found" : tc.cxx);
  library("NCCL", tc.nccl, tc.nccl.found ? ": " + NcclFeatureList(tc.nccl) : "");
  library("cuBLASLt", tc.cublas, "");
  library("NVSHMEM", tc.nvshmem, "");
  library("cuDNN", tc.cudnn, "");
  line("cuDNN FE", tc.cudnn_frontend_include.empty() ? "not found"
                                                     : fmt::format("{} at {}", tc.cudnn_frontend_version, tc.cudnn_frontend_include));
  line("MPI", tc.mpirun.empty() ? "not found" : fmt::format("{} ({})", tc.mpirun, tc.mpi_version));
  line("Slurm", tc.srun.empty()           ? "not found"
                : !tc.slurm_error.empty() ? fmt::format("{} (no cluster: {})", tc.srun, tc.slurm_error)
                                          : fmt::format("{} ({}){}", tc.srun, tc.slurm_version,
                                                        tc.in_slurm_allocation ? ", inside an allocation" : ""));

  r += "hardware\n";
  if (tc.driver_cuda_version.empty()) {
    line("driver", "not loaded");
  } else {
    line("driver", fmt::format("{}supports CUDA {}",
                               tc.driver_version.empty() ? "" : tc.driver_version + ", ", tc.driver_cuda_version));
  }
  if (tc.gpus.empty()) line("GPUs", "none");
  for (const GpuInfo& g : tc.gpus) {
    line(fmt::format("GPU {}", g.index),
         fmt::format("{}, {} SMs, {}, compute {}.{}, bus {}{}", g.name, g.sm_count, GiB(g.memory_bytes), g.cc_major,
                     g.cc_minor, g.pci_bus_id, g.compute_mode > 0 ? ", compute mode " + ComputeModeName(g.compute_mode) : ""));
  }
  if (!tc.gpu_links.empty()) {
    std::string header = "     ";
    for (size_t j = 0; j < tc.gpu_links.size(); ++j) header += fmt::format(" {:>5}", fmt::format("GPU{}", j));
    line("links", header);
    for (size_t i = 0; i < tc.gpu_links.size(); ++i) {
      std::string row = fmt::format("{:<5}", fmt::format("GPU{}", i));
      for (const std::string& cell : tc.gpu_links[i]) row += fmt::format(" {:>5}", cell);
      line("", row);
    }
  }
  line("RDMA NICs", tc.rdma_devices.empty() ? "none" : fmt::format("{}", fmt::join(tc.rdma_devices, ", ")));
  line("arch", PreferredCudaArch(tc));

  r += "features\n";
  for (const FeatureStatus& f : Features(tc)) {
    r += fmt::format("  [{}] {}: {}\n", f.available ? "yes" : " no", f.feature, f.reason);
  }
  if (!tc.notes.empty()) {
    r += "notes\n";
    for (const std::string& n : tc.notes) r += "  - " + n + "\n";
  }
  return r;
}

}  // namespace cuco
