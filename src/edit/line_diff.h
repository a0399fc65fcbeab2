// UnifiedDiff: the change from one text to another as a unified diff (`diff -u` format), from
// a longest-common-subsequence match of their lines. Common leading and trailing lines are
// matched first; a middle of more than `max_cells` line pairs is shown as one replaced hunk.
#pragma once

#include <cstdint>
#include <string>

namespace cuco {

// "" when the texts are equal. Labels go on the ---/+++ lines.
std::string UnifiedDiff(const std::string& from, const std::string& to, const std::string& from_label,
                        const std::string& to_label, int context = 3, int64_t max_cells = 4'000'000);

}  // namespace cuco
