// cuco init's second pass, bind the buffers: which of the program's buffers the iteration (the loop
// found, init_find_loop.h) reads first (an input), writes last (an output), or both, named as the
// loop's function names them before the loop, so that the harness fills the inputs with fresh values
// and compares the outputs (runtime/include/cuco/program/program.h's cuco_bind).
//   - the iteration's code: the loop served and main's lambdas it calls, or, when it launches CUDA
//     graphs the program captured its communication into, the loop that captured them: its buffers
//     are then bound by copy (a graph keeps the pointers it was captured with);
//   - the accesses, in order, each helper call followed into the helper (loop_accesses.h), each
//     pointer the loop swaps named by what it holds when the iteration starts (swaps.h), a per-GPU
//     array's entry as the rank's (projected programs);
//   - a buffer written only under an `if`, swapped, or of a projected program is bound as inout: a
//     rank may not write it, and then its output is its input.
// Contract: a pure function of its arguments. kInvalidArgument naming file:line when no output can
// be named in main or the iteration has more than 16 buffers; `trace` gets each buffer's binding
// and role and why, and the buffers left unbound.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/init_find_loop.h"
#include "scaffold/held_accessors.h"
#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct BoundBuffers {
  std::vector<std::string> binds;            // the binds lambda's statements: `cuco_bind.input("x", x);`
  std::vector<std::string> inputs, outputs;  // the bound names (an inout's output is NAME_out)
  // Each output's floating element type as the program declares it ("__half"; "" when not known),
  // with its expression: the outputs' precision sets workload.toml's tolerance (init_render.cc).
  std::vector<std::pair<std::string, std::string>> output_types;
  bool by_copy = false;                      // bound by copy (CUDA graphs keep their pointers)
  // The lines (first, last) of main's file whose code is the iteration's: the loop (or the capture
  // it launches) and main's lambdas it calls.
  std::vector<std::pair<int, int>> ranges;
  std::vector<std::string> guesses;          // for the harness's README, in order
  std::set<std::string> member_records;      // the classes and structs a bound buffer is a member of
  std::vector<HeldAccessor> held;            // objects reached through an accessor, held in a pointer (bound)
};

// kNotFound (naming file:line) where the iteration has no output main can bind, kInvalidArgument for
// any other reason no harness can bind the iteration.
Result<BoundBuffers> BindBuffers(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                                 InitPassTrace* trace);

// Where the NCCL calls the iteration reaches write a buffer that a function other than the loop's
// makes (a local of the helper main calls in a sweep, of a solver's method in a library file), and
// that function holds a timed loop: where that loop is, which `cuco init --loop` serves (the buffer
// is named there), in main's file or else the first other source defining the function; nullopt
// otherwise.
struct LoopNamingOutput {
  std::string file;  // f.file, or the name of one of the other files
  int line = 0;
  std::string function;
};
std::optional<LoopNamingOutput> LoopWhereOutputIsNamed(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                                       const FoundLoop& found);

// The name a bind gives expression `expr`: `d_w[cuco_program::rank()]` -> "d_w", `l.out` -> "l_out"
// (non-alphanumerics one '_', at most 40 characters).
std::string BindName(const std::string& expr);

// What the loop's function can name before its loop (at byte `loop_begin` of `raw`): the text up to
// it with comments, literals and whatever is out of scope there blanked (lines kept).
std::string NameableBeforeLoop(const std::string& raw, size_t loop_begin, const std::string& loop_fn);

}  // namespace cuco::scaffold_internal
