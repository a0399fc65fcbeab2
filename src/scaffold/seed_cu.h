// The harness skeleton's candidate file (harness/seed.cu): the harness's frozen includes, then
// one EVOLVE block holding State and the three candidate entry points (setup, run, teardown;
// runtime/include/cuco/harness.h), each annotated with what the analysis found in the program
// and where each of its ops goes.
//
// Contract: the text compiles against the harness as written and passes the deny-list; its run
// returns an error naming TODO(cuco init) until the user moves the program's iteration in; the
// buffer names match reference_cu.h's (IoName, "_out" for outputs updated in place).
#pragma once

#include <string>

#include "scaffold/harness_sizes.h"
#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

std::string SeedCu(const ProgramFacts& f, const HarnessSizes& h);

}  // namespace cuco::scaffold_internal
