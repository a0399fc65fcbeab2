// A buffer the timed loop reaches through an accessor of an object, not a pointer variable: an RAII
// wrapper's `buf.data()`, a std::unique_ptr's `p.get()`, a thrust::device_vector's
// `thrust::raw_pointer_cast(v.data())`. The harness rebinds pointer variables (program.h's Binder),
// so cuco init holds such an accessor in one: `auto* cuco_held_v = <the accessor as written>;` in
// front of the served loop (the object made it before the loop), the loop's body using the pointer,
// and the bind naming the pointer. The object must keep its storage across passes: the loop may
// only call that accessor on it and ask its size.
// Contract: pure functions of the text (tokens.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

struct HeldAccessor {
  std::string object;  // `v`
  std::string expr;    // the accessor as the loop writes it: `thrust::raw_pointer_cast(v.data())`
  std::string local;   // the pointer holding it: `cuco_held_v`
};

// How `body` (the loop's body) reaches `object`: every mention one accessor, the same text each
// time (`object.M()` or `object->M()` for M of data, get, ptr, data_ptr, device_data, optionally
// inside `thrust::raw_pointer_cast(...)`), besides size queries (`object.size()`, `.bytes()`,
// `.count()`, `.numel()`, `.length()`). nullopt, with *why in words a user can act on, otherwise.
std::optional<HeldAccessor> HoldAccessor(const std::string& object, const std::string& body, std::string* why);

// `body` with each held accessor's text replaced by its pointer (outside comments and literals).
std::string UseHeld(const std::string& body, const std::vector<HeldAccessor>& held);

// The pointers' declarations, for in front of the served loop: "auto* cuco_held_v = <expr>;\n  ".
std::string HeldDeclarations(const std::vector<HeldAccessor>& held);

}  // namespace cuco::scaffold_internal
