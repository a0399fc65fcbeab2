// The program's command line as the harness starts it: the arguments main reads by position with
// no default (which a harness started without them would miss), and `cuco init --args`, the
// arguments the user runs the program with.
#pragma once

#include <string>
#include <vector>

#include "scaffold/constants.h"

namespace cuco::scaffold_internal {

// One read of `argv[index]` in main.
struct ArgumentRead {
  int index = 0;
  int line = 0;
  std::string statement;  // the statement holding it, trimmed ("num_gpus = atoi(argv[1]);")
};

// The first read of each `argv[k]` (k a number, at least 1) in main's body (`raw`: the file that
// defines main) that nothing guards and no default backs: no `argc` in its statement or in the
// condition of a block around it, and no `constants` entry of that position (a default the
// analysis found). In index order.
std::vector<ArgumentRead> ArgumentsWithoutDefault(const std::string& raw, const std::vector<FoundConstant>& constants);

// The position k of a rank the program reads from its command line (`int rank = atoi(argv[3]);`: a
// variable named like one rank, `rank`, `myRank`, `world_rank`, not a count of them nor a local
// rank), where `args` (`cuco init --args`) gives argv[k] a whole number: each of the harness's ranks
// is then started with its own rank there. 0 when none. `code`: main's file, comments stripped.
int RankFromArguments(const std::string& code, const std::vector<std::string>& args);

// `--args "4 128"` split at whitespace; an error naming the flag when an argument holds a quote,
// a backslash or a control character (the entry point writes each as a C string).
bool SplitProgramArguments(const std::string& line, std::vector<std::string>* out, std::string* error);

}  // namespace cuco::scaffold_internal
