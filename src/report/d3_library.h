// Where the report finds D3 (Debian's node-d3, 5.16), which it inlines into every page at report
// time: $CUCO_D3_JS when set, else /usr/share/nodejs/d3/dist/d3.min.js. No copy lives in the repo.
#pragma once

#include <string>

#include "util/status.h"

namespace cuco {

inline constexpr const char* kD3DefaultPath = "/usr/share/nodejs/d3/dist/d3.min.js";

// The path of d3.min.js, or NotFound saying what to install.
Result<std::string> FindD3();
// Its text, or NotFound/IOError naming the path and the package.
Result<std::string> ReadD3();

}  // namespace cuco
