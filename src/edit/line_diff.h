// UnifiedDiff: the change from one text to another as a unified diff (`diff -u` format), from
// a longest-common-subsequence match of their lines. Common leading and trailing lines are
// matched first; a middle of more than `max_cells` line pairs is shown as one replaced hunk.
// The one unified diff writer of cuco: the search's candidate records use the `diff -u` style;
// the LLM transform's prompts and attempt records use a style with looser line ends
// (DiffStyle below).
#pragma once

#include <cstdint>
#include <string>

namespace cuco {

struct DiffStyle {
  int context = 3;                  // unchanged lines around each change
  int64_t max_cells = 4'000'000;    // larger middles: one replaced hunk
  // true (diff -u): a last line without '\n' differs from the same line with one and is marked
  // "\ No newline at end of file"; false: line ends are not compared and nothing is marked.
  bool mark_missing_newline = true;
  // true (diff -u): a one-line range is written "N"; false: always "N,COUNT".
  bool short_ranges = true;
};

// "" when the texts are equal. Labels go on the ---/+++ lines.
std::string UnifiedDiff(const std::string& from, const std::string& to, const std::string& from_label,
                        const std::string& to_label, const DiffStyle& style);
std::string UnifiedDiff(const std::string& from, const std::string& to, const std::string& from_label,
                        const std::string& to_label, int context = 3, int64_t max_cells = 4'000'000);

}  // namespace cuco
