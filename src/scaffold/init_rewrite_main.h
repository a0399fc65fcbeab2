// cuco init's third pass, rewrite main: main's file as the harness runs it (main_rewrite.h's
// RewriteMain and RewriteMpiIncludes): main renamed cuco_program_main, runs once up to the loop
// found (init_find_loop.h), whose place cuco_program::serve(binds, body) takes with the binds of
// init_bind_buffers.h (the loop's variable held at its first value, a while loop's counter at its
// value when the loop starts), the entry point cuco_program_entry appended, and `#include <mpi.h>`
// spelled `#include <cuco/program/mpi.h>`.
// Contract: a pure function of its arguments; `trace` gets what the rewrite did.
#pragma once

#include <string>
#include <vector>

#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct RewrittenMain {
  std::string text;  // main's file, rewritten (not yet projected: init_project.h)
  std::vector<std::string> lambdas;  // main's lambdas the loop calls (FoundLoop order), as `text` holds them
};

Result<RewrittenMain> RewriteProgramMain(const ProgramFacts& f, const FoundLoop& found, const BoundBuffers& bound,
                                         InitPassTrace* trace);

}  // namespace cuco::scaffold_internal
