// A program whose timed loop is in another of its source files: main, in main.cu, calls
// `run_profile(opt, rank, ranks)` of tp/runner.cu once, and the runner's locals are the buffers
// (programs laid out in folders; TensorParallelPTX's main.cu and summa_runner.cu). The harness
// then serves that file: it is rewritten as main's file would be (the loop replaced by the serve
// call, the entry point appended), the function main calls standing for main, and main's own file
// becomes one of the program's other sources with main renamed cuco_program_main.
// Contract: pure functions of their arguments; the analysis must outlive the facts returned.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"

namespace cuco::scaffold_internal {

struct ServedFile {
  std::string function;  // the function main calls once ("run_profile")
  size_t file = 0;       // its file: an index into the program's other files
};

// The function of another source file that main (or a function of main's file that main calls
// once, and so on) calls once a run and that reaches the communication: the last such call. nullopt
// when main's file holds every function on the way, or when none reaches the communication.
std::optional<ServedFile> FunctionInAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others);

// The program seen from the served file: `f` with `file`, `raw` and `code` the served file's,
// `entry` the function main calls, and main's file among the other sources. *others_out: the other
// files with the served one replaced by main's, in which main is renamed cuco_program_main.
ProgramFacts ServingAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others, const ServedFile& s,
                                std::vector<ProgramFile>* others_out);

// Whether `text`'s main takes its arguments (`main(int argc, char** argv)`), not `main()` or
// `main(void)`; true when `text` defines no main.
bool MainTakesArguments(const std::string& text);

}  // namespace cuco::scaffold_internal
