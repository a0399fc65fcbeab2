#include "launch/gpu_visibility.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(GpuVisibilityTest, OrdinalsPassThroughWithoutTheUsersList) {
  EXPECT_EQ(VisibleDevicesFor({0, 1}, nullptr), "0,1");
  EXPECT_EQ(VisibleDevicesFor({2}, nullptr), "2");
}

TEST(GpuVisibilityTest, OrdinalsAreTranslatedThroughTheUsersList) {
  // cuco started with CUDA_VISIBLE_DEVICES=2,3: its GPUs 0 and 1 are the driver's 2 and 3.
  EXPECT_EQ(VisibleDevicesFor({0, 1}, "2,3"), "2,3");
  EXPECT_EQ(VisibleDevicesFor({1}, " 6, 7 "), "7");
  EXPECT_EQ(VisibleDevicesFor({0}, "GPU-8f3a,GPU-11aa"), "GPU-8f3a");
  EXPECT_EQ(VisibleDevicesFor({3}, "5"), "3");  // outside the list: left as it is
}

TEST(GpuVisibilityTest, ASandboxNumbersItsOwnGpusFromZeroInBusOrder) {
  EXPECT_EQ(SandboxVisibleDevices({"0000:08:00.0"}), "0");
  EXPECT_EQ(SandboxVisibleDevices({"0000:08:00.0", "0000:09:00.0", "0000:0a:00.0"}), "0,1,2");
  // The user's CUDA_VISIBLE_DEVICES=3,2 made the job's first GPU the one on the later bus.
  EXPECT_EQ(SandboxVisibleDevices({"0000:09:00.0", "00000000:08:00.0"}), "1,0");
  EXPECT_EQ(SandboxVisibleDevices({"0000:1A:00.0", "0000:09:00.0"}), "1,0");  // hex, any case
  EXPECT_EQ(SandboxVisibleDevices({"0000:09:00.0", ""}), "0,1");             // unknown: the job's order
  EXPECT_EQ(SandboxVisibleDevices({}), "");
}

TEST(GpuVisibilityTest, DeviceMinorComesFromTheDriversInformationFile) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / "nvidia-gpus";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "0000:18:00.0");
  std::ofstream(dir / "0000:18:00.0" / "information") << "Model: \t\t NVIDIA H100\nIRQ:   \t\t 300\n"
                                                           "Device Minor: \t 5\nBus Location: \t 0000:18:00.0\n";
  EXPECT_EQ(DeviceMinorOf("0000:18:00.0", dir.string()), 5);
  EXPECT_EQ(DeviceMinorOf("00000000:18:00.0", dir.string()), 5);  // nvidia-smi's domain width
  EXPECT_EQ(DeviceMinorOf("0000:19:00.0", dir.string()), -1);      // no such GPU
  EXPECT_EQ(DeviceMinorOf("not a bus id", dir.string()), -1);
  std::filesystem::create_directories(dir / "0000:1a:00.0");
  std::ofstream(dir / "0000:1a:00.0" / "information") << "Model: \t\t NVIDIA H100\n";
  EXPECT_EQ(DeviceMinorOf("0000:1A:00.0", dir.string()), -1);  // no minor line
}

}  // namespace
}  // namespace cuco
