// Communication a function never reaches: a program whose NCCL code main does not call (an entry
// point commented out in favour of an MPI one, a mode left unused) is told so, with where that code
// is, instead of "no loop reaches the communication".
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

// The program's functions `fn` calls, directly or through the functions it calls, as the
// analysis's call ops give them (not through function pointers or threads); `fn` included.
// UnreachedCommunication follows the program's function pointers too (ProgramFacts::pointer_targets).
std::set<std::string> CalledFrom(const Analysis& a, const std::string& fn);

// The parameters of `params` that `body` (a function's body, comments and literals blanked) calls,
// each in backquotes, joined by ", ": "`fn`" for `run_on_gpus(int n, Fn fn)` calling `fn(g)`; "" for none.
std::string CalledParameters(const std::string& body, const std::vector<std::string>& params);

// When `fn` (a function of main's file, f.raw) issues no NCCL call itself and reaches none of the
// functions issuing one (`direct`, CommNamesOf's) through its calls, the functions it names without
// calling them (a thread's, a callback) and the program's function pointers: why, in one line starting with fn's `file:line:`,
// naming those functions with their file:line and each line of fn's definition calling one of
// them, or a function reaching one, in a comment (a call commented out). nullopt when fn reaches
// one, or the program issues none.
std::optional<std::string> UnreachedCommunication(const ProgramFacts& f, const std::string& fn,
                                                  const std::set<std::string>& direct);

}  // namespace cuco::scaffold_internal
