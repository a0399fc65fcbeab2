// The harness skeleton's README.md: what to fill in (workload.toml, reference.cu, seed.cu), in
// that order, and the commands that check it.
//
// Contract: plain Markdown naming the program and the skeleton's workload; no guesses in it.
#pragma once

#include <string>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

std::string HarnessReadme(const ProgramFacts& f);

}  // namespace cuco::scaffold_internal
