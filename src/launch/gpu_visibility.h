// Which GPUs a child process sees. cuco numbers GPUs as CUDA does in its own process (after the
// user's CUDA_VISIBLE_DEVICES); a child started with CUDA_VISIBLE_DEVICES must name them as the
// driver does, and a sandbox holds only the device nodes of its own GPUs.
#pragma once

#include <string>
#include <vector>

namespace cuco {

// CUDA_VISIBLE_DEVICES for a child of this process that is to use the GPUs `ordinals` (as this
// process numbers them): each ordinal translated through this process's own CUDA_VISIBLE_DEVICES
// when it has one (`parent_visible`: its value, or null), else the ordinal itself. "2,3" when
// the user started cuco with CUDA_VISIBLE_DEVICES=2,3 and the child is to use ordinals 0,1.
std::string VisibleDevicesFor(const std::vector<int>& ordinals, const char* parent_visible);

// CUDA_VISIBLE_DEVICES inside a sandbox that binds the device nodes of the GPUs at `pci_bus_ids`
// (in the job's order) and no others, with CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA numbers the GPUs whose
// nodes it can open from 0 in bus order, so each GPU's entry is its place among the job's bus ids.
// "1,0" for a job whose first GPU sits on the later bus; "0,...,n-1" when a bus id is unknown.
std::string SandboxVisibleDevices(const std::vector<std::string>& pci_bus_ids);

// The minor number N of /dev/nvidiaN for the GPU at `pci_bus_id` ("0000:18:00.0", any case or
// domain width), from the driver's <proc_dir>/<bus id>/information ("Device Minor:"); -1 when
// that file or line is missing.
int DeviceMinorOf(const std::string& pci_bus_id, const std::string& proc_dir = "/proc/driver/nvidia/gpus");

}  // namespace cuco
