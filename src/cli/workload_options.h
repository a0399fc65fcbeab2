// The workload options `cuco eval` and `cuco bench` share: the folder, its --size settings and the
// stage time limits (--verify-limit, --bench-limit).
#pragma once

#include <optional>
#include <string>
#include <vector>

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

}  // namespace cuco
