#include "toolchain/gpus.h"

#include <dlfcn.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <regex>
#include <sstream>

#include <fmt/format.h>

namespace cuco {
namespace {

// The few driver API entry points used, declared here so that cuco never links libcuda.
using CUresult = int;
using CUdevice = int;
using cuInit_t = CUresult (*)(unsigned int);
using cuDriverGetVersion_t = CUresult (*)(int*);
using cuDeviceGetCount_t = CUresult (*)(int*);
using cuDeviceGet_t = CUresult (*)(CUdevice*, int);
using cuDeviceGetName_t = CUresult (*)(char*, int, CUdevice);
using cuDeviceTotalMem_t = CUresult (*)(size_t*, CUdevice);
using cuDeviceGetAttribute_t = CUresult (*)(int*, int, CUdevice);
using cuDeviceGetPCIBusId_t = CUresult (*)(char*, int, CUdevice);
using cuGetErrorName_t = CUresult (*)(CUresult, const char**);
struct CudaUuid {
  unsigned char bytes[16];
};
using cuDeviceGetUuid_t = CUresult (*)(CudaUuid*, CUdevice);

constexpr CUresult kCudaSuccess = 0;
constexpr CUresult kCudaErrorNoDevice = 100;
constexpr int kAttrMultiprocessorCount = 16;
constexpr int kAttrComputeCapabilityMajor = 75;
constexpr int kAttrComputeCapabilityMinor = 76;
constexpr int kAttrComputeMode = 20;

// "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi writes it and CUDA_VISIBLE_DEVICES takes it.
std::string UuidText(const CudaUuid& u) {
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", u.bytes[i]);
  }
  return s;
}

std::vector<std::string> SplitWhitespace(const std::string& line) {
  std::vector<std::string> tokens;
  std::istringstream in(line);
  std::string t;
  while (in >> t) tokens.push_back(t);
  return tokens;
}

// "GPU12" -> 12; -1 for anything else.
int GpuLabelIndex(const std::string& token) {
  if (token.size() < 4 || token.compare(0, 3, "GPU") != 0) return -1;
  int value = 0;
  for (size_t i = 3; i < token.size(); ++i) {
    if (token[i] < '0' || token[i] > '9' || value > 100000) return -1;
    value = value * 10 + (token[i] - '0');
  }
  return value;
}

}  // namespace

DriverProbe ProbeDriver() {
  DriverProbe probe;
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    probe.notes.push_back("no NVIDIA driver (libcuda.so.1 not loadable)");
    return probe;
  }
  auto init = reinterpret_cast<cuInit_t>(::dlsym(lib, "cuInit"));
  auto driver_version = reinterpret_cast<cuDriverGetVersion_t>(::dlsym(lib, "cuDriverGetVersion"));
  auto get_count = reinterpret_cast<cuDeviceGetCount_t>(::dlsym(lib, "cuDeviceGetCount"));
  auto get_device = reinterpret_cast<cuDeviceGet_t>(::dlsym(lib, "cuDeviceGet"));
  auto get_name = reinterpret_cast<cuDeviceGetName_t>(::dlsym(lib, "cuDeviceGetName"));
  auto total_mem = reinterpret_cast<cuDeviceTotalMem_t>(::dlsym(lib, "cuDeviceTotalMem_v2"));
  auto get_attr = reinterpret_cast<cuDeviceGetAttribute_t>(::dlsym(lib, "cuDeviceGetAttribute"));
  auto get_bus_id = reinterpret_cast<cuDeviceGetPCIBusId_t>(::dlsym(lib, "cuDeviceGetPCIBusId"));
  auto error_name = reinterpret_cast<cuGetErrorName_t>(::dlsym(lib, "cuGetErrorName"));
  auto get_uuid = reinterpret_cast<cuDeviceGetUuid_t>(::dlsym(lib, "cuDeviceGetUuid_v2"));
  if (get_uuid == nullptr) get_uuid = reinterpret_cast<cuDeviceGetUuid_t>(::dlsym(lib, "cuDeviceGetUuid"));
  if (!init || !driver_version || !get_count || !get_device || !get_name || !total_mem || !get_attr ||
      !get_bus_id) {
    probe.notes.push_back("NVIDIA driver library libcuda.so.1 lacks driver API functions; too old?");
    return probe;
  }
  probe.driver_loaded = true;
  int version = 0;
  if (driver_version(&version) == kCudaSuccess && version > 0) {
    probe.driver_cuda_version = fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
  }
  CUresult rc = init(0);
  if (rc == kCudaErrorNoDevice) {
    probe.notes.push_back("driver found but no GPU");
    return probe;
  }
  if (rc != kCudaSuccess) {
    const char* name = nullptr;
    if (error_name == nullptr || error_name(rc, &name) != kCudaSuccess || name == nullptr) name = "?";
    probe.notes.push_back(fmt::format("driver found but cuInit failed with error {} ({})", rc, name));
    return probe;
  }
  int count = 0;
  if (get_count(&count) != kCudaSuccess || count <= 0) {
    probe.notes.push_back("driver found but no GPU");
    return probe;
  }
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    if (get_device(&dev, i) != kCudaSuccess) {
      probe.notes.push_back(fmt::format("cuDeviceGet({}) failed; GPU skipped", i));
      continue;
    }
    GpuInfo gpu;
    gpu.index = i;
    char buf[256] = {0};
    if (get_name(buf, sizeof(buf) - 1, dev) == kCudaSuccess) gpu.name = buf;
    size_t bytes = 0;
    if (total_mem(&bytes, dev) == kCudaSuccess) gpu.memory_bytes = bytes;
    get_attr(&gpu.sm_count, kAttrMultiprocessorCount, dev);
    get_attr(&gpu.cc_major, kAttrComputeCapabilityMajor, dev);
    get_attr(&gpu.cc_minor, kAttrComputeCapabilityMinor, dev);
    char bus[64] = {0};
    if (get_bus_id(bus, sizeof(bus) - 1, dev) == kCudaSuccess) gpu.pci_bus_id = bus;
    CudaUuid uuid{};
    if (get_uuid != nullptr && get_uuid(&uuid, dev) == kCudaSuccess) gpu.uuid = UuidText(uuid);
    if (get_attr(&gpu.compute_mode, kAttrComputeMode, dev) != kCudaSuccess) gpu.compute_mode = -1;
    probe.gpus.push_back(gpu);
  }
  return probe;
}

Result<GpuLinks> ParseTopologyMatrix(const std::string& raw_text) {
  // nvidia-smi underlines the header with escape codes, also when writing to a pipe.
  static const std::regex kEscape("\x1b\\[[0-9;]*[A-Za-z]");
  const std::string text = std::regex_replace(raw_text, kEscape, "");

  std::istringstream in(text);
  std::string line;
  std::vector<int> gpu_of_column;  // per device column: GPU number, or -1 for a NIC
  bool have_header = false;
  std::vector<std::vector<std::string>> rows;  // by GPU number: that row's device-column cells
  while (std::getline(in, line)) {
    std::vector<std::string> tokens = SplitWhitespace(line);
    if (tokens.empty()) continue;
    if (!have_header) {
      if (GpuLabelIndex(tokens[0]) < 0) continue;
      // Device columns (GPUk, NICk, mlx5_k...) come before "CPU Affinity".
      for (const std::string& t : tokens) {
        if (t == "CPU" || t == "NUMA" || t == "Affinity") break;
        gpu_of_column.push_back(GpuLabelIndex(t));
      }
      have_header = true;
      continue;
    }
    int row = GpuLabelIndex(tokens[0]);
    if (row < 0) {
      if (tokens[0] == "Legend:") break;
      continue;  // a NIC row
    }
    if (tokens.size() < 1 + gpu_of_column.size()) {
      return Status::InvalidArgument(fmt::format("topology row {} has {} cells, header names {} devices", tokens[0],
                                                 tokens.size() - 1, gpu_of_column.size()));
    }
    if (static_cast<size_t>(row) >= rows.size()) rows.resize(row + 1);
    rows[row].assign(tokens.begin() + 1, tokens.begin() + 1 + gpu_of_column.size());
  }
  if (!have_header) return Status::InvalidArgument("no GPU header row (\"GPU0 GPU1 ...\") in topology output");
  int n = 0;
  for (int g : gpu_of_column) n = std::max(n, g + 1);
  if (rows.size() != static_cast<size_t>(n)) {
    return Status::InvalidArgument(fmt::format("topology has {} GPU columns but {} GPU rows", n, rows.size()));
  }
  GpuLinks links(n, std::vector<std::string>(n));
  for (int i = 0; i < n; ++i) {
    if (rows[i].empty()) return Status::InvalidArgument(fmt::format("topology lacks the row of GPU{}", i));
    for (size_t c = 0; c < gpu_of_column.size(); ++c) {
      if (gpu_of_column[c] >= 0) links[i][gpu_of_column[c]] = rows[i][c];
    }
    for (int j = 0; j < n; ++j) {
      if (links[i][j].empty()) return Status::InvalidArgument(fmt::format("topology lacks the column of GPU{}", j));
    }
  }
  return links;
}

std::string NormalizePciBusId(const std::string& bus_id) {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  if (std::sscanf(bus_id.c_str(), "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4) return bus_id;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", domain, bus, device, function);
}

Result<GpuLinks> LinksInDeviceOrder(const GpuLinks& smi_links, const std::vector<std::string>& smi_bus_ids,
                                    const std::vector<GpuInfo>& gpus) {
  std::vector<size_t> smi_index;
  for (const GpuInfo& gpu : gpus) {
    const std::string want = NormalizePciBusId(gpu.pci_bus_id);
    size_t k = 0;
    while (k < smi_bus_ids.size() && NormalizePciBusId(smi_bus_ids[k]) != want) ++k;
    if (k == smi_bus_ids.size() || k >= smi_links.size()) {
      return Status::NotFound(fmt::format("GPU {} (bus {}) is not in nvidia-smi's list", gpu.index, gpu.pci_bus_id));
    }
    smi_index.push_back(k);
  }
  GpuLinks links(gpus.size(), std::vector<std::string>(gpus.size()));
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (size_t j = 0; j < gpus.size(); ++j) {
      if (smi_index[j] >= smi_links[smi_index[i]].size()) return Status::InvalidArgument("ragged topology matrix");
      links[i][j] = smi_links[smi_index[i]][smi_index[j]];
    }
  }
  return links;
}

}  // namespace cuco
