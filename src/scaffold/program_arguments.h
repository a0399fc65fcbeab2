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

// What main stops without: fewer arguments than `count` (`if (argc < 3) { usage(); return 1; }`:
// 2), or an option a message calls required (`if (engine.empty()) { cerr << "--engine required"; return 1; }`).
// A test of argc or a message counts only where its block returns, exits or throws.
struct ArgumentsRequired {
  int count = 0;  // 0: none
  int count_line = 0;
  std::string count_test;  // "argc < 3"
  struct Option {
    std::string name;  // "--engine"
    int line = 0;
    std::string message;  // the literal naming it, as written
  };
  std::vector<Option> options;
};
ArgumentsRequired ArgumentsMainRequires(const std::string& raw);

// A line each for what `required` asks that a start with `args` lacks (fewer than its count of
// words; an option `args` does not give), naming `file`'s line and how to give it with --args.
// `words`: how many arguments that start passes (args.size(), or more where the harness adds sizes).
std::vector<std::string> ArgumentsMissing(const ArgumentsRequired& required, const std::string& file,
                                          const std::vector<std::string>& args, int words);

// Whether `args` gives `option` (`--engine x`, `--engine=x`).
bool GivesOption(const std::vector<std::string>& args, const std::string& option);

// The position k of a rank the program reads from its command line (`int rank = atoi(argv[3]);`: a
// variable named like one rank, `rank`, `myRank`, `world_rank`, not a count of them nor a local
// rank), where `args` (`cuco init --args`) gives argv[k] a whole number: each of the harness's ranks
// is then started with its own rank there. 0 when none. `code`: main's file, comments stripped.
int RankFromArguments(const std::string& code, const std::vector<std::string>& args);

// The arguments to start a program with when none were given and the only one main reads with no
// default (ArgumentsWithoutDefault) is its rank (RankFromArguments): "0" at that position and at every
// one before it, which main does not read (`int rank = atoi(argv[1]);` of a program started once per
// rank with its rank as argument: {"0"}). Empty otherwise. `raw`: main's file; `code`: without comments.
std::vector<std::string> RankAloneArguments(const std::string& raw, const std::string& code,
                                            const std::vector<FoundConstant>& constants);

// `--args "4 128"` split at whitespace; an error naming the flag when an argument holds a quote,
// a backslash or a control character (the entry point writes each as a C string).
bool SplitProgramArguments(const std::string& line, std::vector<std::string>* out, std::string* error);

}  // namespace cuco::scaffold_internal
