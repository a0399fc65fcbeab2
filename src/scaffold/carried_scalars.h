// Host scalars a loop carries from pass to pass, held at their value when it starts.
//
// A solver's pass ends by keeping a host scalar for the next (`rs_old = rs_new;` in a CG, `++step` of
// Adam's bias correction): run twice on the same inputs, the iteration computes with another value
// each time, and no run can be checked against another. cuco init copies each such variable before
// the serve call and assigns the copy back at the top of every harness iteration (HoldCopies), as
// it holds random generators (held_random_state.h): each iteration is the loop's first pass.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

// Of the function whose body opens at token `body_open`, the variables of an arithmetic type (`double
// rs_old = ...;`, `int step = 0, k;`: no pointer, array, reference or const) declared by a statement
// before token `first`, in a block that holds the loop [first, last], that the loop (or one of
// `also`, the token ranges of the lambdas it calls) reads before it assigns them (an assignment under
// a condition of the loop's, `if (done) stop = true;`, may not happen: it assigns nothing first), and changes
// (`=`, `+=`, `++`, or its address handed on), in the order declared; none of `skip` (the loop's own
// variable, its pinned counter), and none the loop declares again.
std::vector<std::string> CarriedScalars(const std::vector<Tok>& t, size_t body_open, size_t first, size_t last,
                                        const std::vector<std::pair<size_t, size_t>>& also,
                                        const std::set<std::string>& skip);

}  // namespace cuco::scaffold_internal
