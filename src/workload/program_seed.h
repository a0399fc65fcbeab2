// A harness-mode seed made of the user's program itself (cuco init: src/scaffold/program_harness.h,
// runtime/include/cuco/program/program.h) is known by the line its frozen top includes. cuco init
// writes that line; `cuco transform` and `cuco run` read it (its generation 0 is the seed as it is).
#pragma once

#include <string>

namespace cuco {

inline constexpr const char kProgramSeedInclude[] = "#include <cuco/program/candidate.h>";

inline bool IsProgramSeed(const std::string& seed_text) {
  return seed_text.find(kProgramSeedInclude) != std::string::npos;
}

}  // namespace cuco
