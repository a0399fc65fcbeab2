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
#include <set>
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
// `.count()`, `.numel()`, `.length()`). `begin()` is an accessor too where `program_code` declares
// one returning a pointer (`T* begin() const { return ptr_.get(); }`, DeepBench's Tensor), not an
// iterator (a container's). nullopt, with *why in words a user can act on, otherwise.
std::optional<HeldAccessor> HoldAccessor(const std::string& object, const std::string& body, std::string* why,
                                         const std::string& program_code = "");

// Whether `program_code` declares a method `begin()` returning a pointer (`T* begin() const {`).
bool DeclaresPointerBegin(const std::string& program_code);

// `body` with each held accessor's text replaced by its pointer (outside comments and literals).
std::string UseHeld(const std::string& body, const std::vector<HeldAccessor>& held);

// The pointers' declarations, for in front of the served loop: "auto* cuco_held_v = <expr>;\n  ".
std::string HeldDeclarations(const std::vector<HeldAccessor>& held);

// Whether the lambda of `statement` (`auto step = [&](int i) {...};`) captures by reference by
// default (`[&]`, `[&, n]`): it then sees a pointer declared before it rebound by the harness.
bool CapturesByReference(const std::string& statement);

// main's lambdas the loop calls ([begin, end) of each statement in `text`, in the text's order, all
// before the loop), each held accessor they use replaced by its pointer, the pointer declared in
// front of the first lambda using it (the lambda captures it by reference: CapturesByReference).
struct HeldInLambdas {
  std::string text;                  // `text` so edited
  std::vector<std::string> lambdas;  // each lambda's statement as `text` now holds it
  std::set<std::string> declared;    // objects whose pointer is declared so (not again before the loop)
  size_t after = 0;                  // offsets of `text` at or after this one (the last lambda's end) ...
  long shift = 0;                    // ... move by this many bytes
};
HeldInLambdas UseHeldInLambdas(const std::string& text, const std::vector<std::pair<size_t, size_t>>& lambdas,
                               const std::vector<HeldAccessor>& held);

}  // namespace cuco::scaffold_internal
