// Reading the program's C++/CUDA text as cuco init needs it: comments stripped with string
// literals kept (the printed formats are what the output regexes are guessed from), lines of
// offsets, literals skipped and collected, parentheses matched.
//
// Contract: every function is total on any text (unbalanced quotes, parentheses or comments end
// at the end of the text); offsets are byte offsets into the text passed in, and StripComments
// keeps the length and every newline, so offsets and lines of its result match the file.
// The scanning itself is util/source_text.h's.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "util/source_text.h"

namespace cuco::scaffold_internal {

// Comments replaced by spaces (newlines kept); string and char literals left as they are.
inline std::string StripComments(const std::string& src) { return BlankComments(src); }

// `text` with the lines of `ranges` ([first, last], 1-based) blanked, newlines kept: the lines the
// preprocessor skips in this build (Analysis::inactive_lines) are not the program's. `first_line`:
// the line of its file `text` starts at (a function's definition cut from it).
std::string BlankLines(std::string text, const std::vector<std::pair<int, int>>& ranges, int first_line = 1);

// The line of the first preprocessor conditional directive in text[begin, end) that the range does
// not hold whole (`#else` or `#endif` of an `#if` before `begin`, an `#if` whose `#endif` lies past
// `end`); 0 when every conditional there opens and closes inside it.
int UnbalancedConditional(const std::string& text, size_t begin, size_t end);

// The smallest byte range holding [begin, end) whose preprocessor conditionals are whole: a
// conditional with a directive in the range and another outside it (`#ifdef FLAG` before the range,
// its `#endif` in it) takes the range out to its `#if` line's start and its `#endif` line's end.
std::pair<size_t, size_t> WithConditionalsWhole(const std::string& text, size_t begin, size_t end);

// (LineOf and Trim are util/source_text.h's, cuco::LineOf and cuco::Trim.)

// Index just past the string or char literal starting at `i` (text[i] is the quote); a literal
// ends at its closing quote or at the end of its line.
size_t SkipLiteral(const std::string& t, size_t i);

// The ')' matching the '(' at `open`, skipping literals; npos when unbalanced.
size_t MatchParen(const std::string& t, size_t open);

// The string literals in t[from, to), adjacent ones ("a" "b") joined, escapes decoded.
std::vector<std::string> StringLiterals(const std::string& t, size_t from, size_t to);

// `s` in lower case (ASCII).
std::string Lower(std::string s);

bool Contains(const std::string& s, const std::string& part);

}  // namespace cuco::scaffold_internal
