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
