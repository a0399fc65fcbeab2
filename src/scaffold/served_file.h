// A program whose timed loop is in another of its source files: main, in main.cu, calls
// `run_profile(opt, rank, ranks)` of tp/runner.cu once, and the runner's locals are the buffers
// (programs laid out in folders; TensorParallelPTX's main.cu and summa_runner.cu). The harness
// then serves that file: it is rewritten as main's file would be (the loop replaced by the serve
// call, the entry point appended), the function main calls standing for main, and main's own file
// becomes one of the program's other sources with main renamed cuco_program_main.
// Contract: pure functions of their arguments; the analysis must outlive the facts returned.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"

namespace cuco::scaffold_internal {

struct ServedFile {
  ServedFile(std::string fn, size_t in) : function(std::move(fn)), file(in) {}
  std::string function;  // the function main calls once ("run_profile")
  size_t file = 0;       // its file: an index into the program's other files
  // A function of another file called instead by a condition cuco cannot decide (`mode == kSumma ?
  // run_profile(...) : run_profile_1d(...)`, or the arms of an if ... else), "" when none: which one
  // the program runs is the user's to say (--loop).
  std::string other;
  size_t other_file = 0;
  std::string caller = "main";  // the function of main's file calling them
};

// The function of another source file that main (or a function of main's file that main calls
// once, and so on) calls once a run and that reaches the communication: the last such call, with
// the one called instead of it by a condition, if any. nullopt when main's file holds every
// function on the way, or when none reaches the communication.
std::optional<ServedFile> FunctionInAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others);

// A program running a thread per GPU whose threads start in a function of another source file
// (bench_ar.cu's `bench_ar_decode_tp`, which main reaches, starting a std::thread per GPU on a
// lambda): that function and its file. nullopt where they start in main's file, outside every
// function, or in a function main does not reach the communication through.
std::optional<ServedFile> ThreadsStartInAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others);

// The program seen from the served file: `f` with `file`, `raw` and `code` the served file's,
// `entry` the function main calls, and main's file among the other sources. *others_out: the other
// files with the served one replaced by main's, in which main is renamed cuco_program_main.
ProgramFacts ServingAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others, const ServedFile& s,
                                std::vector<ProgramFile>* others_out);

// Why the served file cannot be chosen when main calls two functions by a condition (s.other set),
// their timed loops at `line` of s.function's file and `other_line` of s.other's: both named, with
// the --loop that serves each.
Status ChoiceBetweenFiles(const ProgramFacts& f, const ServedFile& s, int line, int other_line);

// `cuco init --loop FILE:LINE` naming a line of another source file (f.forced_loop_file): the program
// seen from that file as ServingAnotherFile makes it, the function holding the line standing for main
// (the harness serves main's first call of it) and f.forced_loop_line kept. kInvalidArgument naming
// the file when the line is outside every function of it.
Result<ProgramFacts> ServingTheFileLoopNames(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                            std::vector<ProgramFile>* others_out);

}  // namespace cuco::scaffold_internal
