// What a helper's code is read under (program_defaults.h's ProgramDefaults): its parameters hold
// what its callers pass, and nothing else of the program's does: a name the helper reaches
// otherwise (a member through a pointer it is handed, a global) may not be the program's variable of
// that name (llm.c's `zero_stage`). Enumerators keep their values.
//   CalleeDefaults     at one call, given its arguments: each parameter holds its argument's value,
//                      or its default's where the call passes none; a parameter given the rank is one.
//   DefaultsOverCalls  over every call of the helper in the text: a parameter every call gives one
//                      value holds it; one a call gives the rank, or to which calls in the arms of a
//                      branch each rank decides give different values (`if (rank == 0) run<0>();
//                      else run<1>();`), is a rank variable; any other has no one value.
// Template parameters are parameters, their arguments a call's `<...>`.
//
// Contract: pure functions of the text (comments stripped, literals kept).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analyze/analysis.h"
#include "scaffold/program_defaults.h"

namespace cuco::scaffold_internal {

// One call's arguments: the template's (`<0>`) and the function's, as written.
struct CallArguments {
  std::vector<std::string> template_args, args;
};

// `def`: the helper's definition (template head included), as DefinitionLines finds it.
ProgramDefaults CalleeDefaults(const std::string& def, const AnalyzedFunction& fn, const CallArguments& call,
                               const ProgramDefaults& caller);

// Over the calls of `fn` in `text` (its definition and declarations skipped), each read under
// `caller_defaults(line of the call)`: what the code holding it is read under.
ProgramDefaults DefaultsOverCalls(const std::string& text, const AnalyzedFunction& fn,
                                  const std::function<ProgramDefaults(int line)>& caller_defaults);

}  // namespace cuco::scaffold_internal
