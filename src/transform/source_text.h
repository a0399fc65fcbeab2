// Source text: how the LLM transform reads a C++/CUDA file as text (transform/ internal; comment and
// literal blanking is util/source_text.h's). Pure functions of their arguments.
#pragma once

#include <cstddef>
#include <string>

namespace cuco::transform_internal {

// What every EVOLVE-BLOCK-START / EVOLVE-BLOCK-END marker line contains.
inline constexpr const char* kEvolveMarker = "EVOLVE-BLOCK-";

// The last `max` characters of `s`, from a line start when one is near, after a note saying how
// many characters came before; `s` itself when it fits.
std::string TailChars(const std::string& s, size_t max);

bool IsIdentStart(char c);  // [A-Za-z_]
bool IsIdent(char c);       // [A-Za-z0-9_]

// Whether `code` has well-formed EVOLVE blocks (at least one).
bool HasEvolveBlocks(const std::string& code);

}  // namespace cuco::transform_internal
