#include "toolchain/device_peaks.h"

namespace cuco {

std::optional<DevicePeak> DevicePeakFor(const std::string& name) {
  auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  // NVIDIA's datasheets give bf16 with 2:4 sparsity (1,979 TFLOP/s for both); dense is half.
  // NVLink 4 on both: 18 links, 900 GB/s both ways together, 450 GB/s each way.
  const char* kSource = "NVIDIA H100/H200 datasheets and the Hopper architecture whitepaper (docs/performance.md)";
  if (has("H100") && !has("PCIe") && !has("NVL") && (has("HBM3") || has("SXM")))
    return DevicePeak{"H100 SXM", 989.4, 450.0, kSource};
  if (has("H200") && !has("NVL") && !has("GH200")) return DevicePeak{"H200 SXM", 989.4, 450.0, kSource};
  return std::nullopt;
}

}  // namespace cuco
