// The program-mode workload.toml cuco init writes beside the copied program: the program runs as
// is (under mpirun, or cuco's launcher when it does not call MPI_Init) and cuco reads its figures
// from its output through the guessed regexes.
//
// Contract: the text loads with LoadWorkload; every guessed value carries a trailing comment
// naming where it came from (file:line), and every missing guess a TODO(cuco init) comment.
#pragma once

#include <string>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

std::string ProgramToml(const ProgramFacts& f);

}  // namespace cuco::scaffold_internal
