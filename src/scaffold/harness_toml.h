// The harness-mode skeleton's workload.toml (harness/workload.toml): sizes guessed from the
// program's constants, placeholder tolerances for the communicated datatype, the timing counts
// the program used, and no MPI (the harness bootstraps NCCL itself).
//
// Contract: the text loads with LoadWorkload as written; every guess carries a comment naming
// its source, and what only the user can decide (description, verify sizes, tolerances) a
// TODO(cuco init) comment.
#pragma once

#include <string>

#include "scaffold/harness_sizes.h"
#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

std::string HarnessToml(const ProgramFacts& f, const HarnessSizes& h);

}  // namespace cuco::scaffold_internal
