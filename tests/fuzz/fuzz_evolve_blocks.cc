// Fuzz target: EVOLVE blocks. The input is "seed\0candidate": the seed is split into blocks
// (SplitEvolveBlocks; joining its own bodies must give it back), the candidate is checked
// against it (CheckFrozenCode, which must accept the seed itself) and scanned (deny list).
#include "fuzz_input.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using cuco::fuzz::Broken;
  auto parts = cuco::fuzz::SplitInput(data, size, 2);
  const std::string& seed = parts[0];
  const std::string& candidate = parts[1];
  for (bool require : {true, false}) {
    auto split = cuco::SplitEvolveBlocks(seed, "seed.cu", require);
    if (!split.ok()) continue;
    std::vector<std::string> bodies;
    for (const auto& b : split->blocks) bodies.push_back(b.body);
    auto joined = cuco::JoinEvolveBlocks(*split, bodies);
    if (!joined.ok()) Broken("JoinEvolveBlocks refused the seed's own bodies", joined.status().message());
    if (*joined != seed) Broken("SplitEvolveBlocks + JoinEvolveBlocks changed the seed", *joined);
    if (require) {
      cuco::Status self = cuco::CheckFrozenCode(seed, "seed.cu", seed, "seed.cu");
      if (!self.ok()) Broken("CheckFrozenCode rejected the seed against itself", self.message());
    }
  }
  (void)cuco::CheckFrozenCode(seed, "seed.cu", candidate, "candidate.cu");
  (void)cuco::ScanEvolveBlocks(candidate, "candidate.cu");
  (void)cuco::CheckDenyList(candidate, "candidate.cu");
  return 0;
}
