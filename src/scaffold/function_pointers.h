// Calls through function pointers the program stores its own functions in: a table of operations
// (nccl-tests' `struct testColl { ...; testResult_t (*runColl)(...); }` filled `{"AllReduce", ...,
// AllReduceRunColl}`, called `args->collTest->runColl(...)`), a member assigned (`ops.run =
// run_allreduce;`, `.run = run_allreduce` in an initialiser) or a variable (`coll_fn fn =
// run_allreduce;`). cuco init follows such a call into the functions stored in the pointer, as it
// follows a direct call: the loop calling it reaches what they reach, and the buffers it passes are
// accessed as the first of them accesses its parameters.
// Contract: a pure function of the text (tokens.h); a pointer may name several functions (a table
// of several operations), in the order the text stores them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

// The pointers (a member's or a variable's name) `code` stores any of `functions` in, each with the
// functions stored, first stored first. A name that is itself one of `functions` is left out (a
// method of that name, not a pointer).
std::map<std::string, std::vector<std::string>> FunctionPointerTargets(const std::string& code,
                                                                      const std::set<std::string>& functions);

}  // namespace cuco::scaffold_internal
