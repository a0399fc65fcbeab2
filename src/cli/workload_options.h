// The workload options the commands share: the folder, its --size settings and the stage time
// limits (--verify-limit, --bench-limit) of `cuco eval` and `cuco bench`, and --world-size (eval,
// bench, evolve, run).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "workload/workload_config.h"

namespace cuco {

// Loads the workload at `path`, applies `sizes` ("NAME=VALUE", OverrideBenchSizes) and the limits
// (> 0 replaces the workload's verify_s / bench_s). On bad input prints "cuco <command>: <why>"
// (naming file and line) to stderr and returns nothing: the command exits kExitUsage.
std::optional<WorkloadConfig> LoadWorkloadWithOverrides(const std::string& command, const std::string& path,
                                                        const std::vector<std::string>& sizes, double verify_limit_s,
                                                        double bench_limit_s);

// Whether `world_size` (a --world-size flag; <= 0: not given) is among the workload's world_sizes.
// When not, prints "cuco <command>: --world-size N: not among the world_sizes of <workload.toml>":
// the command exits kExitUsage.
bool WorldSizeFlagListed(const std::string& command, const WorkloadConfig& wl, int world_size);

// --world-size N on `cmd`, into `world_size` (left as it is when not given): every command refuses
// the same values (N from 1 to 4096) with the same message.
void AddWorldSizeOption(CLI::App* cmd, int* world_size, const std::string& description);

}  // namespace cuco
