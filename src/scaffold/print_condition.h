// Whether a program's print runs under a condition (cuco init's verdict line, output_regex.h): a
// pass line printed whatever happens says the program ran to its end, not that its results are
// right (NCCL's examples end `printf("[MPI Rank %d] Success \n", myRank);`).
//
// Contract: reads comment-stripped code (the text FindPrints read); pure.
#pragma once

#include <string>

#include "scaffold/prints.h"

namespace cuco::scaffold_internal {

// Whether `print` (found in `code`) runs under a condition of the function holding it: in a branch
// of an `if`, `else`, `switch` or `catch` (braced or not, at any depth), or beside a `?:` in its
// statement. A loop is not a condition; a print cuco cannot find again counts as conditional.
bool PrintedUnderACondition(const std::string& code, const PrintCall& print);

// Whether `line` of `code` is part of a preprocessor directive (a `#define` and the lines its `\`
// continues): an error-checking macro's "Failed" print says a call failed, not a result.
bool InDirective(const std::string& code, int line);

}  // namespace cuco::scaffold_internal
