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

// The folders the program writes files into by a path relative to where it runs, each once, as
// plain relative paths ("Output" of `sprintf(s, "Output/Field-%d.tec", step)` before an ofstream,
// "results/run1" of "./results/run1/log.txt"): a literal with a folder part whose last part names a
// file (a dot or a format's %) or is empty, outside the program's prints and #include lines, in a
// file that opens files for writing (an ofstream, an fopen with "w" or "a", open with O_CREAT or a
// write mode). cuco makes them, empty, where each run starts: workload.toml's `run_folders`.
std::vector<std::string> WrittenFolders(const ProgramFacts& f);

// A TODO line for each path an output option names outside /tmp: a candidate's sandbox takes writes
// in its own /tmp only.
std::vector<std::string> WrittenPathTodos(const std::vector<std::string>& args);

}  // namespace cuco::scaffold_internal
