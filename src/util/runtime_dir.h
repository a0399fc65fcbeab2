// Where cuco's runtime/ folder (the harness, supervisor and device headers candidates build
// against) is: the one locator every stage that needs runtime/ asks.
#pragma once

#include <filesystem>

namespace cuco {

// $CUCO_RUNTIME_DIR when set and not empty; else the runtime/ of the checkout the running binary
// sits in (build/src/cli/cuco, wherever the checkout was moved: the first folder above the binary
// holding runtime/include/cuco/harness.h); else the runtime/ of the source tree it was built from.
std::filesystem::path RuntimeDir();

// The source tree this binary was built from (the one file told it is runtime_dir.cc, so that every
// other object is the same whichever checkout builds it).
std::filesystem::path SourceDir();

}  // namespace cuco
