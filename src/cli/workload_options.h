// The workload option the commands share: --world-size (eval, bench, evolve, run). Loading a
// workload with its overrides is workload/workload_config.h's LoadWorkloadWithOverrides.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "workload/workload_config.h"

namespace cuco {

// --world-size N on `cmd`, into `world_size` (left as it is when not given): every command refuses
// the same values (N from 1 to 4096) with the same message.
void AddWorldSizeOption(CLI::App* cmd, int* world_size, const std::string& description);

}  // namespace cuco
