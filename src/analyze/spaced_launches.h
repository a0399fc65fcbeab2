// Kernel launches written with their chevrons apart (`init << <grid, 256 >> > (x, n);`, as Visual
// Studio's formatter leaves them): nvcc takes them, clang does not, and cuco's own scans look for
// `<<<`. The program's text is read with each such launch's chevrons joined, the spaces moved
// behind them (`init <<< grid, 256 >>>  (x, n)`): the same length, every line and offset where it
// was, and the same program for nvcc.
#pragma once

#include <string>

namespace cuco::analyze_internal {

// `text` with the chevrons of each spaced launch joined. `operator<< <T>` (a template-id) and code
// in comments or literals are left alone; so is a launch whose closing chevrons are not followed by
// its arguments' `(`.
std::string WithLaunchChevronsJoined(const std::string& text);

}  // namespace cuco::analyze_internal
