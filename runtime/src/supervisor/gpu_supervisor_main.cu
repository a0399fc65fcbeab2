// The GPU supervisor's main(): frozen, built from runtime/src/supervisor/, runtime/src/common/ and
// the workload's reference only (never a candidate). See supervisor.h for what it does and
// gpu_backend.cu for how it times and shares memory; runtime/METRICS.md for what it writes.
#include <cstdlib>
#include <memory>

#include <cuco/workload_spec.h>

#include "supervisor/gpu_backend.h"
#include "supervisor/supervisor.h"

int main(int argc, char** argv) {
  using namespace cuco::supervisor;
  const std::string nonce = TakeNonce();
  ::setenv("NCCL_NVLS_ENABLE", "0", 1);
  // A program's reference runs every rank's streams on one GPU, and its NCCL calls captured in CUDA
  // graphs wait for each other in kernels (nccl_emulation_captured.h). With CUDA's default 8
  // hardware queues two ranks' streams can share one, and a waiting kernel then holds up the kernel
  // it waits for; 32, CUDA's most, before the first CUDA call.
  ::setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 1);
  Args args;
  std::string error;
  if (!ParseArgs(argc, argv, &args, &error)) {
    Log("usage error: %s", error.c_str());
    return cuco::protocol::kExitUsage;
  }
  SupervisorIdentity id{"cuco-supervisor-gpu/1", cuco_frozen::workload_name(), nonce};
  StartLine start_line(args.world);  // shared by every rank's backend (start_line.h)
  const int code = RunSupervisor(args, id, [&] { return std::make_unique<GpuBackend>(args, &start_line); });
  std::fflush(stderr);
  std::_Exit(code);  // no teardown of CUDA state that a failed candidate may have left wedged
}
