// What a program's variables hold when it is started as cuco's harness starts it (without
// arguments, or with `cuco init --args`), and a three-valued evaluator of its integer, boolean and
// string expressions over them: BranchTruth says whether a branch runs (loop_choice.h's loops,
// branches_run.h's arms), a condition over the rank, or over what cannot be known, said so.
//
// Contract: pure functions of the text; the text is comment-stripped, literals kept.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

// The values a program started without arguments gives its variables, as far as its text says:
// integer and boolean variables initialised from an option's default (`get_argval(argv, ..., "-nx",
// 16384)`, `arg_int(argc, argv, "--batch", 512)`), a flag query (`get_arg(argv, ..., "-csv")`:
// absent), `argc > 1 ? ... : d`, `getenv("X") ? ... : d`, or a literal; variables holding the rank.
// Enumerations count as integers: a variable of an enum type the program declares, initialised with
// one of its enumerators (`TimingMode mode = TimingMode::Throughput;`), holds that enumerator's value.
// With `args` (`cuco init --args`, what the user starts it with), `atoi(argv[k])` and its kin read
// the k-th of them when it is a whole number, and `argc` is their count plus one.
struct ProgramDefaults {
  std::map<std::string, int64_t> values;
  std::vector<std::string> args;  // empty: started without arguments
  std::set<std::string> rank_vars;
  // Enumerator -> value: `Enum::Name` for every enumerator, and `Name` too for an unscoped enum.
  std::map<std::string, int64_t> enumerators;
  // String variables initialised from a literal and not assigned again (but while reading the
  // command line, when the program is given no arguments): compared with `==`, `!=` and strcmp.
  std::map<std::string, std::string> strings;
};
// Read from `code` (comment-stripped text, literals kept) with the program's rank variables.
// `elsewhere`, the program's other files (comment-stripped), gives their enumerations and, for a
// program started without arguments, the members set to one value outside reading the command
// line: an options parser's defaults (`Args args; args.tp_mode = TpMode::Summa; for (...argv...)`),
// which conditions read by the member's name (`args.tp_mode == TpMode::Summa`).
ProgramDefaults DefaultsOf(const std::string& code, const std::set<std::string>& rank_vars,
                           const std::vector<std::string>& args = {}, const std::string& elsewhere = "");

// The value of the integer expression `expr` of the program under `d`; nullopt when not one value.
std::optional<int64_t> ValueUnder(const std::string& expr, const ProgramDefaults& d);

enum class Truth { kTrue, kFalse, kUnknown, kPerRank };
// `text`[begin, end): a condition (or any integer expression) of the program.
Truth BranchTruth(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d);

}  // namespace cuco::scaffold_internal
