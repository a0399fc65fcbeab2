// The integer constants of a program, and what each is for: `#define N 4096`,
// `const int M = 8192, K = 2 * M;` (constexpr, static, integer types), and the defaults of
// `--m`-style options (`get_arg(argc, argv, "--m", 4096)`, or an option loop's `if (strcmp(argv[i],
// "--m") == 0) M = atoi(argv[++i]);` after `int M = 4096;`), of positional arguments
// (`M = argc > 1 ? atoi(argv[1]) : 4096`, `if (argc > 1) M = atoi(argv[1]);` after `int M = 4096;`)
// and of environment variables (`getenv("SEQ") ? atoi(getenv("SEQ")) : 2048`, a helper
// `env_int("SEQ", 2048)`, `const char* s = getenv("SEQ"); ... s ? atoi(s) : 2048`). Values are evaluated with
// EvalIntExpr over the constants found earlier in the file; anything that is not a constant
// expression of those is left out.
//
// Contract: FindConstants reads comment-stripped code (StripComments) and returns constants in
// source order, lines 1-based; ClassifyConstant is a pure function of the constant's name and
// value and the variables known to hold the world size.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

struct FoundConstant {
  std::string name;   // as the program spells it (options: with their dashes, "--m"; environment
                      // variables: the variable, "SEQ"; positional arguments: the variable set, "M")
  int64_t value = 0;
  int line = 0;
  std::string how;    // "#define", "const", "default of --m", "default of argv[1]", "default of $SEQ"
  bool option = false;
  int argv_index = 0;  // > 0: the default of argv[argv_index]
  std::string env;     // non-empty: the default of this environment variable
  std::string variable{};  // an option parsed in a loop: the variable it sets (`-g` -> "NG"), else ""
};

// M from cfg.M or cfg->M: the name a member chain is known by.
std::string LastComponent(const std::string& expr);

// The program reads `c` from its command line or its environment, so a harness can pass another
// value: an option, a positional argument or an environment variable.
bool Passed(const FoundConstant& c);

std::vector<FoundConstant> FindConstants(const std::string& code);

// The C and C++ functions a program reads a whole number from text with (atoi, std::stoi, strtol,
// strtoull, ...): every place that recognises `n = atoi(argv[1])` takes them from here.
bool IsIntegerParser(const std::string& name);
// The same names as a regex alternation ("atoi|atol|..."), for patterns that match the call.
const std::string& IntegerParserAlternation();

// Each variable `code` assigns a whole number parsed from argv[k] (`int n = atoi(argv[2]);`,
// `num_gpus = argc > 2 ? atoi(argv[2]) : 3;`): its name, k, and the byte offset of the assignment.
struct ArgvInteger {
  std::string variable;
  int index = 0;
  size_t at = 0;
};
std::vector<ArgvInteger> ArgvIntegers(const std::string& code);

// A name from an option ("--batch-size" -> "batch_size", "--m" -> "M") or a constant, usable as
// a size name (C identifier, shorter than cuco::Sizes::kMaxName).
std::string SizeName(const FoundConstant& c);

// `name` holds the world size: one of `world_vars` (MPI_Comm_size's / ncclCommCount's outputs)
// or named like a rank count (world, nranks, num_gpus, ...), never like a rank (`world_rank`).
bool IsWorldName(const std::string& name, const std::set<std::string>& world_vars);
// IsWorldName of the constant's name, or of the variable an option sets (`-g` setting `NG`, a
// variable the program gives ncclCommInitAll as its rank count).
bool NamesTheWorld(const FoundConstant& c, const std::set<std::string>& world_vars);

// kSize: a problem size ([sizes]); kTuning: a tuning constant that stays in the code (tile,
// block, chunk, ...); kWarmup / kIters: the timing loop's counts; kIgnored: seeds, flags, device
// ids, library macros and values below 2.
enum class ConstRole { kSize, kWorld, kWarmup, kIters, kTuning, kIgnored };

ConstRole ClassifyConstant(const FoundConstant& c, const std::set<std::string>& world_vars);

}  // namespace cuco::scaffold_internal
