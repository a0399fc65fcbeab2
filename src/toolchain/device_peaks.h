// The datasheet peaks `cuco bench` puts beside the rates its parts achieve: dense bf16 tensor-core
// throughput and NVLink bandwidth per direction, for the GPUs cuco is measured on. This is the one
// place these figures live in code; docs/performance.md states them with their sources.
//
// Contract: DevicePeakFor(name) matches the device name CUDA reports (cudaDeviceProp::name, as
// nvidia-smi prints it) and returns nullopt for any GPU not in the table (rates are then printed
// without a share of the peak). Figures are the vendor's, not measured here.
#pragma once

#include <optional>
#include <string>

namespace cuco {

struct DevicePeak {
  std::string model;           // "H100 SXM", "H200 SXM"
  double bf16_dense_tflops;    // dense (no sparsity) bf16 tensor-core TFLOP/s, FP32 accumulate
  double nvlink_gbps_per_dir;  // NVLink GB/s (1e9 bytes) one way, all links of the GPU together
  std::string source;          // where the figures come from
};

std::optional<DevicePeak> DevicePeakFor(const std::string& device_name);

}  // namespace cuco
