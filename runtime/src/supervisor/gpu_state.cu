// The supervisor's GPU-state reading (gpu_state.h): the canary kernel and copy, what its context
// sees, and NVML's view through dlopen.
#include "supervisor/gpu_state.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

namespace cuco::supervisor {
namespace {

constexpr int kSamples = 11;
// The canary kernel: a fixed grid (not derived from the SM count the context sees, so that fewer
// SMs show as a longer time) of dependent FMA chains: about 0.1-0.3 ms on an H100.
constexpr int kCanaryBlocks = 2048, kCanaryThreads = 256, kCanaryIters = 2048;
constexpr size_t kCanaryCopyBytes = 64ull << 20;

__global__ void canary_kernel(float* out, int iters) {
  float a = threadIdx.x * 1e-3f, b = blockIdx.x * 1e-4f, c = 0.5f, d = 0.25f;
  for (int i = 0; i < iters; ++i) {
    a = fmaf(a, 0.9999f, 0.0001f);
    b = fmaf(b, 0.9998f, 0.0002f);
    c = fmaf(c, 0.9997f, 0.0003f);
    d = fmaf(d, 0.9996f, 0.0004f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;  // 2 MiB in all: keeps the work
}

// ---- NVML, loaded at run time -----------------------------------------------------------------
using nvmlReturn = int;
using nvmlDevice = void*;
struct NvmlProcessInfo {  // nvmlProcessInfo_v2_t / nvmlProcessInfo_t (v3)
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
struct Nvml {
  nvmlReturn (*Init)() = nullptr;
  nvmlReturn (*HandleByPciBusId)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*ClockInfo)(nvmlDevice, int, unsigned int*) = nullptr;
  nvmlReturn (*ApplicationsClock)(nvmlDevice, int, unsigned int*) = nullptr;
  nvmlReturn (*ClockEventReasons)(nvmlDevice, unsigned long long*) = nullptr;
  nvmlReturn (*ComputeMode)(nvmlDevice, int*) = nullptr;
  nvmlReturn (*PersistenceMode)(nvmlDevice, int*) = nullptr;
  nvmlReturn (*Processes)(nvmlDevice, unsigned int*, NvmlProcessInfo*) = nullptr;
  std::string error;
};
constexpr int kNvmlClockSm = 1, kNvmlClockMem = 2;

const Nvml& LoadNvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      n.error = "libnvidia-ml.so.1 not loadable";
      return;
    }
    auto sym = [&](std::initializer_list<const char*> names) -> void* {
      for (const char* name : names)
        if (void* p = ::dlsym(lib, name)) return p;
      return nullptr;
    };
    n.Init = reinterpret_cast<decltype(n.Init)>(sym({"nvmlInit_v2", "nvmlInit"}));
    n.HandleByPciBusId = reinterpret_cast<decltype(n.HandleByPciBusId)>(
        sym({"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}));
    n.ClockInfo = reinterpret_cast<decltype(n.ClockInfo)>(sym({"nvmlDeviceGetClockInfo"}));
    n.ApplicationsClock = reinterpret_cast<decltype(n.ApplicationsClock)>(sym({"nvmlDeviceGetApplicationsClock"}));
    n.ClockEventReasons = reinterpret_cast<decltype(n.ClockEventReasons)>(
        sym({"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}));
    n.ComputeMode = reinterpret_cast<decltype(n.ComputeMode)>(sym({"nvmlDeviceGetComputeMode"}));
    n.PersistenceMode = reinterpret_cast<decltype(n.PersistenceMode)>(sym({"nvmlDeviceGetPersistenceMode"}));
    n.Processes = reinterpret_cast<decltype(n.Processes)>(
        sym({"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"}));
    if (n.Init == nullptr || n.HandleByPciBusId == nullptr) {
      n.error = "libnvidia-ml.so.1 lacks nvmlInit / nvmlDeviceGetHandleByPciBusId";
      n.Init = nullptr;
      return;
    }
    if (const nvmlReturn r = n.Init(); r != 0) {
      n.error = "nvmlInit failed (" + std::to_string(r) + ")";
      n.Init = nullptr;
    }
  });
  return n;
}

std::string Comm(long long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  std::getline(in, name);
  return name;
}

void ReadNvml(const std::string& bus_id, GpuReading* r) {
  const Nvml& n = LoadNvml();
  if (n.Init == nullptr) {
    r->nvml_error = n.error;
    return;
  }
  nvmlDevice dev = nullptr;
  if (const nvmlReturn e = n.HandleByPciBusId(bus_id.c_str(), &dev); e != 0) {
    r->nvml_error = "no NVML device for bus " + bus_id + " (" + std::to_string(e) + ")";
    return;
  }
  r->nvml = true;
  unsigned int v = 0;
  if (n.ClockInfo && n.ClockInfo(dev, kNvmlClockSm, &v) == 0) r->sm_clock_mhz = static_cast<int>(v);
  if (n.ClockInfo && n.ClockInfo(dev, kNvmlClockMem, &v) == 0) r->mem_clock_mhz = static_cast<int>(v);
  if (n.ApplicationsClock && n.ApplicationsClock(dev, kNvmlClockSm, &v) == 0) r->app_sm_clock_mhz = static_cast<int>(v);
  if (n.ApplicationsClock && n.ApplicationsClock(dev, kNvmlClockMem, &v) == 0) r->app_mem_clock_mhz = static_cast<int>(v);
  unsigned long long reasons = 0;
  if (n.ClockEventReasons && n.ClockEventReasons(dev, &reasons) == 0) r->clock_event_reasons = static_cast<long long>(reasons);
  int mode = 0;
  if (n.ComputeMode && n.ComputeMode(dev, &mode) == 0) r->compute_mode = mode;
  if (n.PersistenceMode && n.PersistenceMode(dev, &mode) == 0) r->persistence_mode = mode;
  if (n.Processes) {
    // Twice the room the count allows: a newer NVML with a larger record still stays inside.
    NvmlProcessInfo infos[128];
    unsigned int count = 64;
    if (n.Processes(dev, &count, infos) == 0) {
      r->other_processes = 0;
      for (unsigned int i = 0; i < count && i < 64; ++i) {
        GpuProcess p;
        p.pid = infos[i].pid;
        p.used_bytes = static_cast<long long>(infos[i].usedGpuMemory);
        p.name = Comm(p.pid);
        const bool self = p.pid == static_cast<long long>(::getpid());
        const bool mps = p.name.rfind("nvidia-cuda-mps", 0) == 0;
        if (!self && !mps) ++r->other_processes;
        r->processes.push_back(p);
      }
    }
  }
}

// Times `work` kSamples times after one warm-up; median and spread of the samples.
template <typename Work>
bool TimeSamples(cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, Work work, double* median, double* spread) {
  std::vector<double> ms;
  for (int i = 0; i <= kSamples; ++i) {
    if (cudaEventRecord(e0, s) != cudaSuccess || !work() || cudaEventRecord(e1, s) != cudaSuccess ||
        cudaEventSynchronize(e1) != cudaSuccess)
      return false;
    float t = 0;
    if (cudaEventElapsedTime(&t, e0, e1) != cudaSuccess) return false;
    if (i > 0) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  *median = ms[ms.size() / 2];
  *spread = *median > 0 ? (ms.back() - ms.front()) / *median : NAN;
  return true;
}

std::string CudaText(cudaError_t e) { return cudaGetErrorName(e); }

}  // namespace

GpuReading ReadGpuState(int device, const std::string& pci_bus_id) {
  GpuReading r;
  r.taken = true;
  r.samples = kSamples;
  if (cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
    r.error = "cudaSetDevice: " + CudaText(e);
    return r;
  }
  cudaDeviceGetAttribute(&r.sm_count, cudaDevAttrMultiProcessorCount, device);
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
    r.mem_total = static_cast<long long>(total_b);
    r.mem_free = static_cast<long long>(free_b);
  }
  cudaStream_t s = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  float* sink = nullptr;
  void *src = nullptr, *dst = nullptr;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess || cudaEventCreate(&e0) != cudaSuccess ||
      cudaEventCreate(&e1) != cudaSuccess || cudaMalloc(&sink, sizeof(float) * kCanaryBlocks * kCanaryThreads) != cudaSuccess) {
    r.error = "canary set-up: " + CudaText(cudaGetLastError());
  } else {
    auto kernel = [&] {
      canary_kernel<<<kCanaryBlocks, kCanaryThreads, 0, s>>>(sink, kCanaryIters);
      return cudaGetLastError() == cudaSuccess;
    };
    if (!TimeSamples(s, e0, e1, kernel, &r.kernel_ms, &r.kernel_spread))
      r.error = "canary kernel: " + CudaText(cudaGetLastError());
    if (cudaMalloc(&src, kCanaryCopyBytes) == cudaSuccess && cudaMalloc(&dst, kCanaryCopyBytes) == cudaSuccess) {
      cudaMemsetAsync(src, 0x5a, kCanaryCopyBytes, s);
      auto copy = [&] { return cudaMemcpyAsync(dst, src, kCanaryCopyBytes, cudaMemcpyDeviceToDevice, s) == cudaSuccess; };
      if (!TimeSamples(s, e0, e1, copy, &r.copy_ms, &r.copy_spread) && r.error.empty())
        r.error = "canary copy: " + CudaText(cudaGetLastError());
    } else if (r.error.empty()) {
      cudaGetLastError();
      r.error = "canary copy: no room for 2 x 64 MiB";
    }
  }
  if (src) cudaFree(src);
  if (dst) cudaFree(dst);
  if (sink) cudaFree(sink);
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  if (s) cudaStreamDestroy(s);
  ReadNvml(pci_bus_id, &r);  // right after the canary: the clocks it ran at
  return r;
}

void WriteGpuReading(Json& j, const GpuReading& r) {
  j.begin_object();
  j.kv("samples", r.samples).kv("canary_kernel_ms", r.kernel_ms).kv("canary_kernel_spread", r.kernel_spread);
  j.kv("canary_copy_ms", r.copy_ms).kv("canary_copy_spread", r.copy_spread);
  j.kv("sm_count", r.sm_count).kv("mem_total_bytes", static_cast<int64_t>(r.mem_total));
  j.kv("mem_free_bytes", static_cast<int64_t>(r.mem_free));
  j.kv("nvml", r.nvml);
  if (!r.nvml_error.empty()) j.kv("nvml_error", r.nvml_error);
  j.kv("sm_clock_mhz", r.sm_clock_mhz).kv("mem_clock_mhz", r.mem_clock_mhz);
  j.kv("app_sm_clock_mhz", r.app_sm_clock_mhz).kv("app_mem_clock_mhz", r.app_mem_clock_mhz);
  j.kv("clock_event_reasons", static_cast<int64_t>(r.clock_event_reasons));
  j.kv("compute_mode", r.compute_mode).kv("persistence_mode", r.persistence_mode);
  j.key("processes").begin_array();
  for (const GpuProcess& p : r.processes)
    j.begin_object().kv("pid", static_cast<int64_t>(p.pid)).kv("used_bytes", static_cast<int64_t>(p.used_bytes)).kv("name", p.name).end_object();
  j.end_array();
  j.kv("other_processes", r.other_processes);
  j.kv("reads", r.reads);
  if (r.reads > 1) j.kv("first_canary_kernel_ms", r.first_kernel_ms).kv("first_canary_copy_ms", r.first_copy_ms);
  if (!r.error.empty()) j.kv("error", r.error);
  else j.key("error").null();
  j.end_object();
}

}  // namespace cuco::supervisor
