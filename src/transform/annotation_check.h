// Annotation check: stage C of the LLM transform may only add EVOLVE marker lines to a file.
#pragma once

#include <string>

#include "util/status.h"

namespace cuco {

// Stage C's check: `annotated` is `original` plus EVOLVE marker lines only. The markers balance
// (no nesting), each is a line of its own starting with `//`, at least one block holds code, and
// every other line equals the original's in order. Errors name the first offending line.
Status CheckAnnotationOnly(const std::string& original, const std::string& annotated,
                           const std::string& path = "file");

}  // namespace cuco
