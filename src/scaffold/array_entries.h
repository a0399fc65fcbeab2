// Arrays whose entries are buffers of the iteration, each its own: per-layer weights `float* w[L]`
// and activations `act[l + 1]`, a struct per layer (`std::vector<Layer> layers(L)`, `layers[l].w`),
// a double buffer `buf[0]` / `buf[1]`, a member array (`pool.buffers[b]`). The analysis names such a
// buffer without its subscript (`layers.w`); cuco init binds each entry (`layers[0].w` ...
// `layers[3].w`) with the role the merged accesses give the array. Only where the process makes one
// communicator: there an array is per layer, per peer or a double buffer, never per GPU.
// Contract: pure functions of the text (tokens.h, pointer_arrays.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scaffold/loop_choice.h"

namespace cuco::scaffold_internal {

struct ArrayEntries {
  std::string array;                 // the subscripted part of the chain: `layers`, `pool.buffers`
  std::string length;                // as the program spells it (`L + 1`), "" when not found
  std::vector<std::string> entries;  // `layers[0].w`, ...; empty when they cannot be bound (*why)
};

// The entries of `chain` (a buffer as the analysis names it, subscripts dropped) where `code` (the
// program's files, headers included) subscripts one part of it and declares that part an array
// (`T* a[N]`, `T a[N]`, std::vector / std::array, a member array of pointers: pointer_arrays.h):
// one per element, its length evaluated under `run`. nullopt when no part is such an array (a
// pointer). Empty `entries`, with *why in words a user can act on, when two parts are subscripted,
// the length is not found or not a number under `run`, or is over `max_entries`.
std::optional<ArrayEntries> EntriesOf(const std::string& chain, const std::string& code, const ProgramDefaults& run,
                                      int max_entries, std::string* why);

// The length `code` gives the array `name` of any element type, as the program spells it:
// PointerArrayLength's forms, and `T name[count]`, `std::vector<T> name(count)`, `std::array<T,
// count> name`; "" when none is found, or two disagree.
std::string ArrayLength(const std::string& code, const std::string& name);

}  // namespace cuco::scaffold_internal
