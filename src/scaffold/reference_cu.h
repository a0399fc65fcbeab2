// The harness skeleton's frozen side (harness/reference.cu): the workload_spec functions
// (runtime/include/cuco/workload_spec.h) with the buffers guessed from the dependency graph, in
// the communicated datatype.
//
// Contract: the text compiles as written; validate_sizes, fill_inputs and check return an error
// naming TODO(cuco init), so no run passes until the user writes them. Buffers are listed inputs
// first, unique per role; an output that is also an input is named IoName(base) + "_out".
#pragma once

#include <string>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

std::string ReferenceCu(const ProgramFacts& f);

}  // namespace cuco::scaffold_internal
