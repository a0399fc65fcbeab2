#include "toolchain/device_peaks.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(DevicePeaks, TheGpusCucoIsMeasuredOn) {
  // Names as CUDA reports them on the lent machines (bench/results/*/device.txt).
  auto h100 = DevicePeakFor("NVIDIA H100 80GB HBM3");
  ASSERT_TRUE(h100);
  EXPECT_EQ(h100->model, "H100 SXM");
  EXPECT_DOUBLE_EQ(h100->bf16_dense_tflops, 989.4);
  EXPECT_DOUBLE_EQ(h100->nvlink_gbps_per_dir, 450.0);
  auto h200 = DevicePeakFor("NVIDIA H200");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->model, "H200 SXM");
  EXPECT_FALSE(h200->source.empty());
}

TEST(DevicePeaks, OtherGpusHaveNoPeak) {
  // Different peaks (PCIe, NVL bridges, Grace Hopper) or unknown: no figure rather than a wrong one.
  EXPECT_FALSE(DevicePeakFor("NVIDIA H100 PCIe"));
  EXPECT_FALSE(DevicePeakFor("NVIDIA H100 NVL"));
  EXPECT_FALSE(DevicePeakFor("NVIDIA H200 NVL"));
  EXPECT_FALSE(DevicePeakFor("NVIDIA GH200 480GB"));
  EXPECT_FALSE(DevicePeakFor("NVIDIA A100-SXM4-80GB"));
  EXPECT_FALSE(DevicePeakFor(""));
}

}  // namespace
}  // namespace cuco
