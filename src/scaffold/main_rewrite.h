// The rewrites that make a program's main the harness's setup and its timed loop the harness's
// iteration (runtime/include/cuco/program/program.h says what the result means):
//   FindTimedLoop   in the text of the file holding main: main's definition and its timed loop,
//                   the last outermost loop of main (or of the function a thread per GPU runs) whose
//                   text calls one of `comm_names` (the NCCL calls and the program's functions that
//                   reach one; a warm-up loop before it calls the same functions), or the statements
//                   served whole (LoopSearch, TimedLoop::region);
//   RewriteMain     main renamed cuco_program_main, the loop replaced by cuco_program::serve(binds,
//                   body), the entry point cuco_program_entry appended;
//   RewriteMpiIncludes  `#include <mpi.h>` (or "mpi.h"), and Open MPI's <mpi-ext.h> (its CUDA-aware
//                   query), -> `#include <cuco/program/mpi.h>`.
// The scan skips comments, string and character literals; offsets are bytes of `text`.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/feeding_compute.h"
#include "scaffold/held_random_state.h"
#include "util/status.h"

namespace cuco::scaffold_internal {

struct ProgramDefaults;  // loop_choice.h

// How FindTimedLoop chooses, beyond the text.
struct LoopSearch {
  // A program driving every GPU: the variable holding their number; a `for` up to it is run whole.
  std::string gpu_count;
  // `cuco init --loop FILE:LINE`: the line of the loop to serve (0: chosen by the rules).
  int forced_line = 0;
  // Why forced_line is served, for the trace: "--loop names it", or init's own reason.
  std::string forced_why = "--loop names it";
  // When no loop reaches the communication: serve the statements that do (CommRegion).
  bool allow_region = false;
  // The program's functions that call a function they are handed once a pass (handed_lambdas.h):
  // a lambda handed to one, whose body reaches the communication, is the iteration.
  const std::set<std::string>* repeaters = nullptr;
  // The device work of the served file by line (feeding_compute.h): statements run whole because
  // no loop communicates start at the compute feeding the communication.
  const std::map<int, LineWork>* work = nullptr;
  // The function holding the loop stands for main, which another file defines (served_file.h):
  // no main here, TimedLoop::main_name is then npos.
  bool main_elsewhere = false;
  // What the program's variables hold when it is started without arguments (branches it takes).
  const ProgramDefaults* defaults = nullptr;
  // When set: one line per loop considered, why it was chosen or rejected (`cuco init --explain`).
  std::vector<std::string>* trace = nullptr;
};

struct TimedLoop {
  size_t main_name = 0;          // offset of the identifier `main` in its definition (before or after the loop);
                                 // npos when another file defines main (LoopSearch::main_elsewhere)
  bool main_takes_args = true;   // main(int argc, char** argv) rather than main() / main(void)
  size_t begin = 0, end = 0;     // the loop statement: [begin, end)
  int line = 0;                  // 1-based line of `for` / `while` / `do`
  std::string body;              // the body's text, braces included ("{ f(x); }" for a single statement)
  std::string loop_var_decl;     // "int i" from `for (int i = 0; ...)`, "" when there is none
  std::string loop_var_init;     // its first value ("0"): every harness iteration is the first pass
  // A `while` or `do` loop's counter (`iter` of `while (... iter < n) { ...; iter++; }`), or a counter of
  // passes a `for` loop's body (or a lambda of main it calls) steps and reads (`++pass;` beside
  // `(pass & 1) ? pong : ping`): held at its value when the loop starts, in every harness iteration.
  // "" when there is none.
  std::string pinned_counter;
  // The random generators the loop draws from, held at their state when it starts
  // (held_random_state.h).
  HeldRandomState random_state;
  // The host scalars the loop carries from pass to pass, held at their value when it starts
  // (carried_scalars.h).
  std::vector<std::string> carried;
  int end_line = 0;              // 1-based line of the loop's last character
  int sweep_line = 0;            // > 0: the loop is the timed one inside this untimed loop (a sweep over sizes)
  // Loops before it that issue other NCCL calls than it does (a broadcast loop before a gather
  // loop): not warm-ups, run once in the harness's set-up; "line N (ncclBcast)" each.
  std::vector<std::string> earlier_other;
  // Statements served whole rather than a loop one pass at a time (a group around a per-peer loop,
  // a loop over the GPUs, or the statements of a program without a loop); `what` says which. body
  // is then those statements, braced, and loop_var_decl is empty. Not a region, `what` is set when
  // the loop is two made one (rank_split_loops.h): [begin, end) is then their `if`.
  bool region = false;
  std::string what;
  // A region's declarations that main uses after it, declared before the serve call
  // (region_hoist.h); body then assigns them. For two loops made one, the branches' statements
  // before their loops (rank_split_loops.h's BranchingPrologue).
  std::string hoisted;
  // Two loops made one: each loop's first and last lines, the code whose accesses are the iteration's.
  std::vector<std::pair<int, int>> served_lines;
  // main's local lambdas the loop calls that reach the communication (`auto step = [&]() {...};`):
  // each statement's [begin, end) and its lines; body_open/body_close: the tokens of its body's
  // braces in the scan of main's file (tokens.h's Scan of the text FindTimedLoop was given).
  struct Lambda {
    std::string name;
    size_t begin = 0, end = 0;
    int line = 0, end_line = 0;
    size_t body_open = 0, body_close = 0;
  };
  std::vector<Lambda> lambdas;
  // Command-line flags main reads its rank and rank count from (`"--rank"`, `"--world"`), "" when
  // none: the entry point passes the harness's.
  std::string rank_flag, world_flag;
  // Where the program reads a size from, and how the entry point passes the workload's size
  // `size` (`value`, the program's default, when the stage has none):
  //   an option (`arg_int(argc, argv, "--batch", 512)`): `flag` "--batch", passed as `--batch <v>`;
  //   a positional argument (`argc > 1 ? atoi(argv[1]) : 4096`): `position` 1, passed as argv[1]
  //     (every position from 1 to the last one is passed: `size` "" passes `value` as it is);
  //   an environment variable (`getenv("SEQ")`): `env` "SEQ", what the program's getenv answers.
  struct SizeFlag {
    std::string flag, size;
    int64_t value = 0;
    int position = 0;
    std::string env;
    std::string given;  // an argument given with `cuco init --args` (position > 0): passed as it is
    bool world = false;  // ... unless it is the program's GPU count: the harness's rank count instead
    bool rank = false;   // ... or the program's rank: each rank's own
    std::string Spelling() const;  // "--batch", "argv[1]", "$SEQ"
  };
  std::vector<SizeFlag> size_flags;
};

// kInvalidArgument naming `file` when there is no main, or when the loop cannot be chosen (loops in
// two branches cuco cannot decide, none run by default, --loop naming none: each error lists the
// loops); kNotFound when no loop in the function calls a comm name and no region is allowed (then
// the line of the function). The choice (loop_choice.h): the last loop reaching the communication
// among those the program runs when started without arguments; its timed inner loop when it is an
// untimed sweep; the group around it, or itself whole when it runs over the GPUs (TimedLoop::region).
// `loop_function`: the function holding the timed loop when it is not main
// (the function a program's threads run), defined in `text` too; main is renamed all the same.
// `within`: the byte offset of the `{` opening the only region searched (the body of the lambda a
// program's threads run), npos for the whole function.
Result<TimedLoop> FindTimedLoop(const std::string& file, const std::string& text, const std::set<std::string>& comm_names,
                                const std::string& loop_function = "main", size_t within = std::string::npos,
                                const LoopSearch& search = {});

// What a statement of the loop does that is not the iteration's work.
enum class HostOnly {
  kNone,
  kClock,     // reads a host clock (std::chrono, clock_gettime, gettimeofday): the program's own timing
  kProfiler,  // starts or stops a profiler (`cudaProfilerStop();`, `checkCudaErrors(cuProfilerStart());`)
  kPause,     // pauses the host (`std::this_thread::sleep_for(...)`, `usleep(...)`)
};

// Whether tokens [from, to] (one statement) start or stop a profiler or pause the host, and do no
// other device, library, NCCL or MPI work (kNone otherwise). Neither changes a result; a candidate
// may not control the profiler (the deny list's timing APIs), and a pause would be timed as the
// iteration's work.
HostOnly ProfilerOrPause(const std::vector<Tok>& t, size_t from, size_t to);

// A statement DropHostTiming left out: its offset in the body, and what it does.
struct DroppedStatement {
  size_t at = 0;
  HostOnly kind = HostOnly::kClock;
};

// `body` ("{ ... }", a timed loop's) without the statements at its top level that read a host
// clock and do no device, library, NCCL or MPI work: the program's own timing, which the harness
// does itself; nor those that start or stop a profiler or pause (ProfilerOrPause). Each is blanked
// (lines kept) and added to *dropped. The clock's statements stay when a statement that stays uses a
// variable one of them declares.
std::string DropHostTiming(const std::string& body, std::vector<DroppedStatement>* dropped);

// `binds`: the statements of the binds lambda ("cuco_bind.input(\"x\", x);" ...).
std::string RewriteMain(const std::string& text, const TimedLoop& loop, const std::vector<std::string>& binds);

std::string RewriteMpiIncludes(const std::string& text);

// Whether `text`'s main takes its arguments (`main(int argc, char** argv)`), not `main()` or
// `main(void)`; true when `text` defines no main.
bool MainTakesArguments(const std::string& text);

// `text` with the members of every class or struct of `records` defined in it made public (the
// harness's copies only: main binds a member of an object, `stressor.d_w[rank]`): each `private:`
// and `protected:` of its body becomes `public:`, and a `class`'s body opens with `public:`.
// Unchanged when it defines none of them.
std::string OpenRecords(const std::string& text, const std::set<std::string>& records);

// The definition of function `name` in `text` (a free function or kernel: `... name(...) {...}`),
// from the start of its first line to the end of its closing brace's line; false when not defined.
bool DefinitionLines(const std::string& text, const std::string& name, size_t* begin, size_t* end);

// Whether `line` (> 0) lies in one of `ranges` (line ranges (first, last; 1-based), as
// branches_run.h's).
bool InLineRanges(const std::vector<std::pair<int, int>>& ranges, int line);

// The two arms of an `if` with an `else`: their line ranges (first, last; 1-based). Code in one arm
// never runs in the same pass as code in the other.
struct IfElseArms {
  std::pair<int, int> then_lines, else_lines;
};
// The arms of each `if` ... `else` that begins in bytes [begin, end) of `text`.
std::vector<IfElseArms> IfElseArmsIn(const std::string& text, size_t begin, size_t end);

// The calls `name(args)` in `text`, as (name, args text) in order; a name followed by `<<<` is a
// kernel launch and is listed with the arguments after `>>>`.
std::vector<std::pair<std::string, std::string>> CallsIn(const std::string& text);

// A call of CallsIn with the object it is made on: `stressor.step(x)` -> {"step", "x", "stressor."},
// `layers[i]->fwd()` -> {"fwd", "", "layers[i]->"}; object "" for a call on no object.
struct CallSite {
  std::string name, args, object;
};
std::vector<CallSite> CallSitesIn(const std::string& text);

}  // namespace cuco::scaffold_internal
