// GPUs through the CUDA driver API (libcuda.so.1, loaded at run time), and how they are linked,
// from `nvidia-smi topo -m`.
#pragma once

#include <string>
#include <vector>

#include "toolchain/toolchain.h"
#include "util/status.h"

namespace cuco {

// links[i][j]: how GPU i reaches GPU j ("X" on the diagonal, "NV18", "SYS", "PIX", ...).
using GpuLinks = std::vector<std::vector<std::string>>;

struct DriverProbe {
  bool driver_loaded = false;       // libcuda.so.1 loaded and exports what we call
  std::string driver_cuda_version;  // "13.0" from cuDriverGetVersion
  std::vector<GpuInfo> gpus;        // in CUDA ordinal order
  std::vector<std::string> notes;   // why there are no GPUs, when there are none
};
// Loads libcuda.so.1 (never unloaded), calls cuInit and lists the visible devices.
DriverProbe ProbeDriver();

// The GPU x GPU part of `nvidia-smi topo -m` output, indexed by nvidia-smi's GPU numbers. NIC
// rows and columns, the affinity columns, the legends and terminal escape codes are ignored.
// InvalidArgument when there is no GPU header or a GPU row is missing or short.
Result<GpuLinks> ParseTopologyMatrix(const std::string& text);

// "00000000:18:00.0" (nvidia-smi) and "0000:18:00.0" (driver) both become "0000:18:00.0".
std::string NormalizePciBusId(const std::string& bus_id);

// Re-indexes `smi_links` (nvidia-smi order, whose GPU k has bus id smi_bus_ids[k]) into the order
// of `gpus` (CUDA ordinals, which CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER change) by bus id.
// NotFound when a GPU's bus id is not among smi_bus_ids.
Result<GpuLinks> LinksInDeviceOrder(const GpuLinks& smi_links, const std::vector<std::string>& smi_bus_ids,
                                    const std::vector<GpuInfo>& gpus);

}  // namespace cuco
