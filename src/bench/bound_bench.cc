#include "bench/bound_bench.h"

#include <filesystem>

#include "bench/bench_gap.h"
#include "util/files.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

// The best's own parts: each part the workload declares (compute, comm), run with the knob settings
// the best candidate's marks state (chunks, backend, ...), where any differs from the default. They
// say what the best's compute and communication cost as the best runs them (a chunked GEMM is slower
// than a whole one), so the gap between the best and the bound can be told apart: the best's parts,
// and what of them stays exposed. Nothing when the best's code cannot be read or holds no marks.
std::vector<Variant> BestsOwnParts(const WorkloadConfig& workload, const std::string& best_path) {
  auto code = ReadFile(best_path);
  if (!code.ok()) return {};
  auto marks = FindKnobMarks(*code, best_path);
  if (!marks.ok()) return {};
  std::map<std::string, std::string> settings;
  bool differs = false;
  for (const auto& [name, value] : KnobValues(*marks)) {
    const Knob* declared = workload.FindKnob(name);
    if (declared == nullptr || !declared->search) continue;  // `part` and undeclared marks stay as the part sets them
    settings[name] = value;
    differs = differs || value != declared->default_value;
  }
  if (!differs) return {};
  std::string described;
  for (const auto& [name, value] : settings) described += (described.empty() ? "" : ", ") + name + " " + value;
  std::vector<Variant> out;
  for (const Variant& v : workload.variants) {
    if (v.part.empty() || v.knobs.size() != 1) continue;  // the plain parts only (not their graph forms)
    Variant own = v;
    own.name = v.part == "compute" ? kBestComputePart : kBestCommPart;
    own.description = "the best's knob settings (" + described + ") with " +
                      (v.part == "compute" ? "its communication skipped" : "its GEMMs skipped");
    for (const auto& [name, value] : settings) own.knobs[name] = value;
    out.push_back(own);
  }
  return out;
}

}  // namespace

std::optional<BenchOptions> BoundBenchOptions(const WorkloadConfig& workload, const std::string& best_path,
                                              BenchOptions base) {
  if (best_path.empty()) return std::nullopt;
  base.only = {"seed"};
  for (const Variant& v : workload.variants)
    if (!v.part.empty()) base.only.push_back(v.name);
  if (base.only.size() == 1) return std::nullopt;
  base.workload = workload.dir.string();
  base.workload_config = workload;
  for (Variant& own : BestsOwnParts(workload, best_path)) {
    base.only.push_back(own.name);
    base.workload_config->variants.push_back(std::move(own));
  }
  base.candidates = {best_path};
  base.only.push_back(std::filesystem::path(best_path).filename().string());
  base.no_peers = true;
  base.run_dir = (std::filesystem::path(best_path).parent_path() / "bound").string();
  return base;
}

}  // namespace cuco
