#include "bench/bound_bench.h"

#include <filesystem>

namespace cuco {

std::optional<BenchOptions> BoundBenchOptions(const WorkloadConfig& workload, const std::string& best_path,
                                              BenchOptions base) {
  if (best_path.empty()) return std::nullopt;
  base.only = {"seed"};
  for (const Variant& v : workload.variants)
    if (!v.part.empty()) base.only.push_back(v.name);
  if (base.only.size() == 1) return std::nullopt;
  base.workload = workload.dir.string();
  base.workload_config = workload;
  base.candidates = {best_path};
  base.only.push_back(std::filesystem::path(best_path).filename().string());
  base.no_peers = true;
  base.run_dir = (std::filesystem::path(best_path).parent_path() / "bound").string();
  return base;
}

}  // namespace cuco
