// Which arms of a program's branches run when it is started as cuco's harness starts it
// (ProgramDefaults, loop_choice.h): an `if` whose condition is known takes one arm, a `switch` over a
// known value reaches some of its cases. What the iteration's buffers are is read from the code
// that runs (iteration_use.h): a benchmark whose mode is a string (`-op allReduce`) binds what its
// default mode's call reads and writes, not what the others would.
//
// Contract: pure functions of the text; lines are 1-based, ranges (first, last) inclusive.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/loop_choice.h"

namespace cuco::scaffold_internal {

struct BranchLines {
  // Code that never runs: the arm an `if` with a known condition does not take, the cases a
  // `switch` over a known value does not reach (nor fall into). A line is listed only when all of
  // its code lies there.
  std::vector<std::pair<int, int>> not_run;
  // Code that runs only when a condition holds: each `if` (else included) whose condition is not
  // known, each `switch` over a value that is not.
  std::vector<std::pair<int, int>> conditional;
};

// The branches that begin in bytes [begin, end) of `text`.
BranchLines BranchLinesIn(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d);

// The functions whose every call in bytes [begin, end) of `text` lies in code that never runs
// (BranchLines::not_run): `run_decode_benchmark` of `if (cfg.run == "decode") run_decode_benchmark();`
// where `run` is "prefill" unless an option says otherwise.
std::set<std::string> CalledOnlyWhereNeverRun(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d);

}  // namespace cuco::scaffold_internal
