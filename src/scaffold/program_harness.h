// The program itself as a harness-mode workload (runtime/include/cuco/program/program.h): what
// `cuco init` writes into harness/ when it can, so that the seed verifies without edits. Made by
// five passes, each taking what the one before returned, each its own file pair:
//   find the loop     init_find_loop.h     how the program runs as ranks, and its iteration
//   bind the buffers  init_bind_buffers.h  the iteration's inputs and outputs, named in main
//   rewrite main      init_rewrite_main.h  main the harness's setup, its loop the iteration
//   project           init_project.h       the program's files as the harness holds them
//   render            init_render.h        seed.cu, reference.cu, workload.toml, README.md
// A rule for a new kind of program goes into the pass that decides what it is about.
//
// Contract: a pure function of its arguments. kInvalidArgument, naming file:line, when the program
// is not of a kind this can make a harness of (one process driving every GPU, a thread per GPU, no
// timed loop in main, a buffer that cannot be named in main); the caller then writes the skeleton.
// *trace (when given) gets one entry per pass run, what it decided and why; the pass that stopped
// init last, its last line the reason (`cuco init --explain`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "scaffold/init_trace.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProgramHarness {
  std::vector<std::pair<std::string, std::string>> files;  // file name in harness/ -> text
  std::vector<std::string> guesses;                        // each decision with its file:line
  std::vector<std::string> inputs, outputs;                // the bound names (inout in both)
  std::vector<std::string> evolve;                         // the functions inside EVOLVE blocks
  std::vector<std::string> todos;                          // what the user must still decide (made anyway)
};

Result<ProgramHarness> MakeProgramHarness(const ProgramFacts& f, const std::vector<ProgramFile>& other_files,
                                          std::vector<InitPassTrace>* trace = nullptr);

}  // namespace cuco::scaffold_internal
