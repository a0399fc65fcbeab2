// The live progress line of `cuco evolve` on stderr: one line rewritten in place when stderr
// is a terminal, plain lines (only when something changed) otherwise.
#pragma once

#include <cstdio>
#include <string>

#include "search/evolution.h"

namespace cuco {

// "gen 3 explore | 14 candidates (2 in flight) | best #9 0.974 ms, 1.68x over seed | 5.2/min |
//  elapsed 4m12s, ETA 3m05s (max_candidates) | failures: compile_error 1, wrong_result 2 | $0.00"
std::string FormatProgress(const SearchProgress& p);
// The same line without what changes every second (the rate, elapsed time and ETA): a plain
// (non-terminal) progress stream prints a line only when this changes.
std::string ProgressKey(const SearchProgress& p);

// `line` made to fit `width` columns: whole " | " fields are left out from the end (the first
// ones say the most), and a first field still too wide is cut, ending in "...". Bytes count as
// columns (the line is ASCII but for the user's own names).
std::string FitToWidth(const std::string& line, int width);

// The width of the terminal `fd` is, from the terminal (TIOCGWINSZ), else $COLUMNS, else 80.
int TerminalWidth(int fd);

// On a terminal each update redraws the line, fitted to the terminal's width as it is then (read
// each time: the window may be resized), so it never wraps; elsewhere it prints whole lines.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(std::FILE* out = stderr);
  void Update(const SearchProgress& p);
  // Ends the in-place line (a newline) so later output starts clean.
  void Done();

 private:
  std::FILE* out_;
  bool tty_;
  bool open_line_ = false;
  std::string last_;
};

}  // namespace cuco
