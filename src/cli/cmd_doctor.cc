// cuco doctor: what this machine has, and which cuco features it enables.
#include <iostream>

#include "cli/commands.h"
#include "launch/sandbox.h"
#include "toolchain/toolchain.h"

namespace cuco {

void AddDoctorCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("doctor", "Detect nvcc, NCCL (device API, LSA, GIN), cuBLASLt, NVSHMEM, GPUs, "
                                           "NVLink topology, MPI, Slurm and the candidate sandbox (bwrap, seccomp); "
                                           "say what each missing piece disables");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the detection as JSON");
  cmd->callback([json, exit_code] {
    Toolchain tc = DetectToolchain();
    const SandboxSupport& sandbox = DetectSandbox();
    if (*json) {
      nlohmann::json j = ToJson(tc);
      j["sandbox"] = SandboxSupportToJson(sandbox);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << FormatReport(tc) << FormatSandboxReport(sandbox);
    }
    *exit_code = tc.nvcc.empty() && tc.cxx.empty() ? kExitEnvironment : kExitOk;
  });
}

}  // namespace cuco
