// Pointers a program derives from a buffer before its loop and keeps: bound by copy.
//
// The harness binds a buffer by pointing the program's variable at its own buffer each iteration.
// A pointer the program computed from that variable before the loop (`w2 = d_params + n1;`, a
// table of per-tensor pointers filled by `assign_pointers(params, d_params, sizes, n)`) still points
// into the program's own buffer: the iteration would read and write there, not where the harness
// filled its inputs and reads its outputs. Such a buffer is bound by copy (`cuco_bind.input_copy`):
// the harness copies its inputs into the program's buffer and its outputs out of it.
#pragma once

#include <string>

namespace cuco::scaffold_internal {

// Whether `before_loop` (the loop's function up to its loop, comments blanked: NameableBeforeLoop)
// keeps a pointer derived from the buffer `name` elsewhere: an assignment whose right side is the
// buffer or an offset into it, made through no call (`float* w2 = d_params + n1;`, `ptrs[i] =
// d_params;`, `layer.w = &d_params[off];`), or the buffer handed to one of the program's functions
// (defined in `program_code`) that stores through another of its parameters (`ptrs[i] = cur;`,
// `s->w = ...;`, `*out = ...;`). Set into the "why" of *why when true.
bool PointersDerivedBeforeLoop(const std::string& before_loop, const std::string& program_code, const std::string& name,
                               std::string* why);

}  // namespace cuco::scaffold_internal
