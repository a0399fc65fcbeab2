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
  // CUDA_DEVICE_MAX_CONNECTIONS: a program's reference that captures graphs sets it during static
  // initialization (cuco/program/reference.h); every other reference keeps the user's setting.
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
