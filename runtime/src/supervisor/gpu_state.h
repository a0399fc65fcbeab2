// The GPU's state as the supervisor sees it, read before the candidate starts ("before") and after
// its processes have ended ("after"), so that cuco can tell whether anything a candidate reached
// (MPS limits, kernels left running, ...) changed the GPU for whoever comes next (docs/workload-
// contract.md, "GPU state"). A reading times a fixed canary kernel and a fixed device-to-device copy
// on a stream of its own (a warm-up, then kSamples each: the median and the spread (max - min) /
// median), and reads what the supervisor's context sees (SM count: under MPS, what the server's
// active-thread percentage leaves; memory: under MPS, what a pinned-memory limit leaves) and, when
// libnvidia-ml.so.1 can be loaded (dlopen; never linked), the clocks, clock-event reasons, compute
// and persistence modes and the processes on the GPU. Figures it cannot read stay unknown (-1,
// NaN); a failure is said in `error`, never thrown: the reading never decides a stage by itself.
#pragma once

#include <string>
#include <vector>

#include "supervisor/json_writer.h"

namespace cuco::supervisor {

struct GpuProcess {
  long long pid = 0;
  long long used_bytes = -1;
  std::string name;  // /proc/<pid>/comm when readable here
};

struct GpuReading {
  bool taken = false;
  int samples = 0;
  double kernel_ms = NAN, kernel_spread = NAN;  // the canary kernel: median, (max - min) / median
  double copy_ms = NAN, copy_spread = NAN;      // the canary copy
  int sm_count = -1;                            // multiprocessors visible to this context
  long long mem_total = -1, mem_free = -1;      // cudaMemGetInfo
  bool nvml = false;
  std::string nvml_error;
  int sm_clock_mhz = -1, mem_clock_mhz = -1, app_sm_clock_mhz = -1, app_mem_clock_mhz = -1;
  long long clock_event_reasons = -1;
  int compute_mode = -1, persistence_mode = -1;
  std::vector<GpuProcess> processes;
  int other_processes = -1;  // processes on the GPU that are neither this one nor an MPS server/daemon
  // Readings taken for this one (gpu_state_settle.h): 1, or more where the first was read again;
  // then the first one's canary medians.
  int reads = 1;
  double first_kernel_ms = NAN, first_copy_ms = NAN;
  std::string error;
};

// Reads `device` (the current device is set to it). `pci_bus_id` finds it in NVML.
GpuReading ReadGpuState(int device, const std::string& pci_bus_id);

// The reading as a JSON object (runtime/METRICS.md, "gpu_state").
void WriteGpuReading(Json& j, const GpuReading& r);

}  // namespace cuco::supervisor
