// cuco init's last pass, render: the harness's files from the passes before it.
//   seed.cu       cuco/program/candidate.h, then the program's sources as projected (init_project.h)
//                 one after the other, main's file last; EVOLVE blocks around each function that
//                 issues the iteration's NCCL calls and the program's functions it calls (the compute
//                 around the communication) and main's lambdas the loop calls, or around the serve()
//                 call when the loop's body issues them itself; a program marking its own keeps
//                 those; the calls the harness owns spelled as its stand-ins;
//   reference.cu  cuco/program/reference.h and the same texts without EVOLVE blocks;
//   workload.toml harness mode, the program's flags and libraries, tolerances for its dtype, the
//                 sizes the entry point passes;
//   the program's own headers, and README.md with every guess of the passes.
// Contract: a pure function of its arguments. The status of a text the project pass could not guard
// when it is used; `trace` gets the EVOLVE blocks and each file rendered.
#pragma once

#include <vector>

#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_project.h"
#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_harness.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

Result<ProgramHarness> Render(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound,
                              const ProjectFiles& project, InitPassTrace* trace);

}  // namespace cuco::scaffold_internal
