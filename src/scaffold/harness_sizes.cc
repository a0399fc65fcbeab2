#include "scaffold/harness_sizes.h"

#include <fmt/format.h>

namespace cuco::scaffold_internal {

HarnessSizes SplitConstants(const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars,
                            const std::string& file) {
  HarnessSizes h;
  std::set<std::string> names;
  for (const auto& c : constants) {
    GuessedInt g{SizeName(c), c.value, fmt::format("{}:{}: {}{}", file, c.line, c.how, Passed(c) ? "" : " " + c.name)};
    switch (ClassifyConstant(c, world_vars)) {
      case ConstRole::kSize:
        if (names.insert(g.name).second && h.sizes.size() < 16) h.sizes.push_back(g);
        break;
      case ConstRole::kTuning: h.tuning.push_back(g); break;
      case ConstRole::kWarmup:
        if (!h.warmup) h.warmup = g;
        break;
      case ConstRole::kIters:
        if (!h.iters) h.iters = g;
        break;
      default: break;
    }
  }
  return h;
}

int64_t VerifySize(int64_t bench) {
  int64_t v = bench;
  while (v > 1024 && v % 2 == 0) v /= 2;
  return v;
}

}  // namespace cuco::scaffold_internal
