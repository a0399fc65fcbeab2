// The language standard cuco builds a program's code in, from the program's own -std= flag, and
// nvcc's language flags.
#pragma once

#include <string>

namespace cuco {

// `std_flag` (a "-std=..." flag) as cuco's builds take it: a standard older than C++17 (C++98-14 in
// any spelling, or a C standard from a C program's line: the harness is one C++ unit) becomes C++17,
// the oldest cuco's headers and CUDA 13's CUB/Thrust take; the GNU dialect is kept unless
// `nvcc_spelling`, which writes every standard as nvcc names it (c++17, never gnu++17 or c++1z).
// Any other flag comes back as it is.
std::string AtLeastCpp17(const std::string& std_flag, bool nvcc_spelling);

// nvcc's language flags (--expt-relaxed-constexpr, --extended-lambda and their spellings): what a
// program's device code means depends on them; a host compiler and clang know none of them.
bool IsNvccLanguageFlag(const std::string& flag);

}  // namespace cuco
