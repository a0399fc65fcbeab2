// A timed loop in a helper main calls, served where main's own statements would be (cuco init's find
// the loop pass): a benchmark whose main has no loop reaching the communication and calls, once per
// size or per variant, a function of its file that times a loop of collectives (a sweep of
// `benchmark<RANK>(bytes)` calls, `run_nccl_allgather(args)` among the variants).
#pragma once

#include <optional>
#include <string>

#include "scaffold/init_find_loop.h"
#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

// What the helper `fn` of main's file is read under when its loop is chosen (callee_defaults.h):
// its parameters hold what the calls reaching it from main pass (a `benchmark_inner<RANK>` called
// `<0>` on rank 0 and `<1>` elsewhere has a rank for RANK); main's own calls are read under
// f.run_defaults.
ProgramDefaults HelperDefaults(const ProgramFacts& f, const std::string& fn);

// Where `found` serves statements of main run whole (no loop of main reaches the communication) and
// exactly one function of main's file that main calls holds a loop reaching it (among several, the
// innermost: one that calls none of the others; a call main makes only in an arm its default
// arguments never run does not count): that loop's line, which `cuco init --loop` would
// serve. nullopt otherwise; where several remain, *trace lists each with its --loop.
std::optional<int> HelperTimedLoop(const ProgramFacts& f, const FoundLoop& found, InitPassTrace* trace);

}  // namespace cuco::scaffold_internal
