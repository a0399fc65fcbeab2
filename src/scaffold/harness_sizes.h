// Which of a program's integer constants become the harness skeleton's [sizes], which stay in
// the code as tuning constants, and which give the timing loop's warmup and iteration counts.
//
// Contract: SplitConstants keeps the constants' source order; sizes are unique by SizeName and
// at most 16; warmup and iters are the first of their role; each entry's source cites
// `file:line`. VerifySize(n) halves n while it is even and above 1024.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scaffold/constants.h"
#include "scaffold/scaffold.h"

namespace cuco::scaffold_internal {

struct HarnessSizes {
  std::vector<GuessedInt> sizes;
  std::vector<GuessedInt> tuning;  // constants left in the code
  std::optional<GuessedInt> warmup, iters;
};

HarnessSizes SplitConstants(const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars,
                            const std::string& file);

// The [sizes.verify] value of a bench size: small, so that every verified iteration is checked.
int64_t VerifySize(int64_t bench);

}  // namespace cuco::scaffold_internal
