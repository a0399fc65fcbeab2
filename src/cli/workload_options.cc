#include "cli/workload_options.h"

#include <iostream>

namespace cuco {

std::optional<WorkloadConfig> LoadWorkloadWithOverrides(const std::string& command, const std::string& path,
                                                        const std::vector<std::string>& sizes, double verify_limit_s,
                                                        double bench_limit_s) {
  auto wl = LoadWorkload(path);
  if (!wl.ok()) {
    std::cerr << "cuco " << command << ": " << wl.status().message() << "\n";
    return std::nullopt;
  }
  if (Status s = OverrideBenchSizes(&*wl, sizes); !s.ok()) {
    std::cerr << "cuco " << command << ": " << s.message() << "\n";
    return std::nullopt;
  }
  if (verify_limit_s > 0) wl->verify_s = verify_limit_s;
  if (bench_limit_s > 0) wl->bench_s = bench_limit_s;
  return *std::move(wl);
}

bool WorldSizeFlagListed(const std::string& command, const WorkloadConfig& wl, int world_size) {
  Status s = CheckWorldSizeListed(wl, world_size);
  if (!s.ok()) std::cerr << "cuco " << command << ": " << s.message() << "\n";
  return s.ok();
}

void AddWorldSizeOption(CLI::App* cmd, int* world_size, const std::string& description) {
  cmd->add_option("--world-size", *world_size, description)->check(CLI::Range(1, 4096));
}

}  // namespace cuco
