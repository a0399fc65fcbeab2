// Files a program reads by a path relative to where it runs. cuco starts it (as the reference, a
// candidate, or in program mode) in an empty folder of each run (evaluate/cascade_runs.cc's
// workdir), so such a path finds nothing there and the program stops in its set-up.
#pragma once

#include <string>
#include <vector>

#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

// A TODO line for each argument of f.program_args (`cuco init --args`) that names a file or folder
// relative to `from_dir` (where cuco init runs), with its absolute path; and, where none is given
// so, one for the first relative path the program's code spells (`"cases/case1"`, a `.bin`) when
// it opens files (fopen, an ifstream, open): "FILE:LINE: ...".
std::vector<std::string> RelativeInputPaths(const ProgramFacts& f, const std::string& from_dir);

// The absolute paths among `args` (`/data/train.csv`, an option's `--data=/data`), each once: what
// the program reads from outside its run folder, which candidates' sandboxes (whose /tmp is their
// own) must show, read-only: workload.toml's `reads`. A path an output option names (`-o PATH`,
// `--out=PATH`, `--save PATH`, ...) is written, not read: not among them.
std::vector<std::string> AbsoluteInputPaths(const std::vector<std::string>& args);

// A TODO line for each path an output option names outside /tmp: a candidate's sandbox takes writes
// in its own /tmp only.
std::vector<std::string> WrittenPathTodos(const std::vector<std::string>& args);

}  // namespace cuco::scaffold_internal
