// The program itself as a harness-mode workload (runtime/include/cuco/program/program.h): what
// `cuco init` writes into harness/ when it can, so that the seed verifies without edits.
//   seed.cu       cuco/program/candidate.h, then the program's sources one after the other (main's
//                 file last), main rewritten (main_rewrite.h); EVOLVE blocks around each function
//                 that issues the iteration's NCCL calls and the program's functions it calls
//                 (the compute around the communication), or around the serve() call when the
//                 loop's body issues them itself;
//   reference.cu  cuco/program/reference.h and the same texts without EVOLVE blocks: the program,
//                 frozen, with NCCL emulated between rank threads;
//   workload.toml harness mode, the program's flags and libraries, tolerances for its dtype;
//   README.md, and the program's own headers (their `#include <mpi.h>` rewritten too).
// The binds name the iteration's inputs and outputs (iteration_io.h) as main's variables: a buffer
// the iteration's function reaches through a parameter is named by the argument main's loop passes.
//
// Contract: a pure function of its arguments. kInvalidArgument, naming file:line, when the program
// is not of a kind this can make a harness of (one process driving every GPU, a thread per GPU, no
// timed loop in main, a buffer that cannot be named in main); the caller then writes the skeleton.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProgramHarness {
  std::vector<std::pair<std::string, std::string>> files;  // file name in harness/ -> text
  std::vector<std::string> guesses;                        // each decision with its file:line
  std::vector<std::string> inputs, outputs;                // the bound names (inout in both)
  std::vector<std::string> evolve;                         // the functions inside EVOLVE blocks
};

Result<ProgramHarness> MakeProgramHarness(const ProgramFacts& f, const std::vector<ProgramFile>& other_files);

}  // namespace cuco::scaffold_internal
