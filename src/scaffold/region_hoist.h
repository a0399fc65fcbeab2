// A region served whole (TimedLoop::region) becomes the body of the harness's serve lambda, so a
// variable it declares at its top level is gone for the code after it. HoistDeclarations moves such
// declarations in front of the serve call.
#pragma once

#include <string>

namespace cuco::scaffold_internal {

struct HoistedRegion {
  std::string declarations;  // "T name{};\n  " per hoisted variable, for before the serve call
  std::string region;        // the region, each hoisted declaration left as its assignment
  std::string kept;          // the first name `after` uses that the region declares and keeps (auto, const, ...)
};

// `region`: the region's statements; `after`: the text that follows it (main's rest). A top-level
// declaration of one variable with a plain type (identifiers, `::` and `*`: `ncclResult_t r = f();`,
// `float* p;`; never auto, const or static) whose name `after` uses is hoisted: declared
// value-initialised, and `name = value;` (or nothing) left where it stood; one of several variables
// with a plain type and no initialiser (`cudaEvent_t a, b;`) one of which `after` uses is moved in
// front as written. Others stay as written, and `kept` names the first of them `after` uses.
HoistedRegion HoistDeclarations(const std::string& region, const std::string& after);

}  // namespace cuco::scaffold_internal
