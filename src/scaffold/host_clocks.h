// The program's host clocks inside the seed's EVOLVE blocks. The deny list keeps every clock out
// of candidates' blocks (a candidate must not time itself); a program that times itself there
// (`auto t0 = std::chrono::steady_clock::now();` in its loop, a helper's clock_gettime) keeps its
// code, spelled to read cuco's ticking clock instead (cuco/program/impl/host_clock.h: one
// millisecond a read, never the real time).
#pragma once

#include <string>

#include "util/status.h"

namespace cuco::scaffold_internal {

// `text` with `std::chrono` and `chrono` (outside comments and literals) spelled
// `cuco_program::host_time`, and the calls clock_gettime( and gettimeofday( spelled
// `cuco_program::host_time::ticking_clock_gettime(` and `...::ticking_gettimeofday(`.
std::string TickingClockSpellings(const std::string& text);

// `seed` with TickingClockSpellings applied to the body of every EVOLVE block, the frozen text
// unchanged; `path` names the file in errors (blocks that do not balance).
Result<std::string> TickingClocksInBlocks(const std::string& seed, const std::string& path);

}  // namespace cuco::scaffold_internal
