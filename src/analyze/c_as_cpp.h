// A C source read as C++: a harness is one C++/CUDA unit, so cuco builds a program's .c files as C++.
// Where C takes what C++ does not, the C++ is written out, each at the place clang's error points:
//   - a conversion C makes by itself (malloc's void* to any object pointer, an int to an enum):
//     `(T)(expr)`, T as clang names the type;
//   - an enumerator of an enum declared inside a struct, which C puts in the file's scope and C++ in
//     the struct's: `S::NAME`, as clang's "did you mean 'S::NAME'" offers.
// Nothing else changes, and every line stays where it was.
#pragma once

#include <string>
#include <vector>

#include "analyze/frontend.h"

namespace cuco::analyze_internal {

// Writes `before` ahead of the bytes [begin, end) and `after` behind them.
struct CppEdit {
  size_t begin = 0, end = 0;
  std::string before, after;
};

// The edits clang's errors on a C source parsed as C++ ask for:
//   "assigning to 'T' from incompatible type 'U'",
//   "cannot initialize a variable (return object, parameter, ...) of type 'T' with an rvalue of type 'U'",
//   a call whose one candidate is not viable for an argument ("cannot convert argument of incomplete
//   type 'U' to 'T' for 1st argument", "no known conversion from 'U' to 'T' ...", on the note's range),
//   "use of undeclared identifier 'X'; did you mean 'S::X'?" (its fix).
// A type that cannot be written as a cast (an array, an unnamed or lambda type) is left alone, and so
// is every other error.
// `text`, the source the errors are of: where clang's note on a call's argument carries no range
// (the candidate declared in a system header: cudaMalloc's), the argument is found in the call.
std::vector<CppEdit> EditsCppNeeds(const std::vector<FileDiagnostic>& errors, const std::string& text = "");

// `text` with each edit written in; an edit overlapping one before it is left out.
std::string WithEdits(const std::string& text, std::vector<CppEdit> edits);

}  // namespace cuco::analyze_internal
