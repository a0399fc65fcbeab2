// cuco init's first pass, find the loop: how the program runs as the harness's ranks and which of
// its code is the harness's iteration.
//   - how it runs: a process per rank, or one process driving every GPU run one GPU per rank
//     (projected; init_project.h refuses what cannot be), with a thread per GPU the threads' function
//     or lambda holding the loop;
//   - the iteration: the loop the rules choose (main_rewrite.h's FindTimedLoop, loop_choice.h), the
//     timed loop of the function main calls once to time, or the statements reaching the
//     communication when no loop does; --loop (ProgramFacts::forced_loop_line) names it instead;
//   - its body without the program's own host timing, and the sizes the entry point passes.
// Contract: a pure function of its arguments. kInvalidArgument naming file:line when there is no
// iteration init can serve (then the skeleton is written); `trace` gets every decision and, for a
// loop, the candidates rejected and why.
#pragma once

#include <optional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/init_trace.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/program_facts.h"
#include "scaffold/program_files.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct FoundLoop {
  bool projected = false;        // one process drives every GPU: each rank does its GPU's part
  bool threads = false;          // ... with a thread per GPU
  std::string loop_fn = "main";  // the function holding the iteration
  std::string gpu_count;         // projected: the variable holding the number of GPUs ("" when none)
  std::string all_code;          // every source file of the program, main's first
  bool captures_comm = false;    // the program captures its communication into CUDA graphs
  std::set<std::string> graph_launchers;  // captures_comm: GraphLaunchers
  TimedLoop loop;                // the iteration: host timing dropped, size_flags set
  std::set<std::string> comm;    // the names reaching the communication from loop_fn
  std::set<std::string> direct;  // the functions issuing NCCL calls themselves
  // The program's function pointers (ProgramFacts::pointer_targets) in `comm`: each with the first function stored that reaches the communication,
  // which a call through the pointer is followed into.
  std::map<std::string, std::string> pointer_calls;
  std::vector<std::string> guesses;  // for the harness's README, in order
};

// The functions that issue NCCL communication (directly: `direct`) and every function that
// reaches one through its calls, with the NCCL calls themselves; main and `loop_fn` (the function
// holding the timed loop) left out.
std::set<std::string> CommNamesOf(const Analysis& a, const std::string& loop_fn, std::set<std::string>* direct);

// The function of `file` (text `raw`) whose definition holds `line` (the innermost), "" when none.
std::string FunctionAt(const std::string& raw, const Analysis& a, const std::string& file, int line);

// How many times one run of `body` (a function's text) calls `name`: its call sites, those in different
// branches of one if / else if / else chain counting once (a dispatch on a data type, `if (dtype ==
// "int") run<int>(...); else if (dtype == "float") run<float>(...);`); 2 when a site is in a loop.
int CallsPerRun(const std::string& body, const std::string& name);

// Where the program captures its communication into a CUDA graph: the loop statement around the
// first cudaStreamBeginCapture ... cudaStreamEndCapture that calls one of `comm` (or that capture
// itself when no loop holds it), as bytes [first, second) of `raw`; nullopt when it captures none
// (launching the graph is then not what reaches the communication).
std::optional<std::pair<size_t, size_t>> CapturingLoop(const std::string& raw, const std::set<std::string>& comm);

// cudaGraphLaunch, cudaGraphExecLaunch, and the functions of the program's main file that call one
// of them, with their callers (main left out): where a program that captures its communication
// launches it from.
std::set<std::string> GraphLaunchers(const ProgramFacts& f);

Result<FoundLoop> FindLoop(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, InitPassTrace* trace);

}  // namespace cuco::scaffold_internal
