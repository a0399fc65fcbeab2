// The regexes program mode reads a program's output with, guessed from what it prints
// (prints.h): the time line ("Time: %.3f ms" -> `Time:\s*([0-9.eE+-]+)\s*ms`) and the verdict
// lines (a word such as PASS / FAILED in a format, or in a literal printed through its first %s:
// printf("Verification: %s", ok ? "PASS" : "FAIL")).
//
// Contract: every regex is ECMAScript, matches the printed line's label literally (specials
// escaped, each run of whitespace as \s*), and a time regex's first group is the number. The
// first print that fits wins; nullopt when none does.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scaffold/prints.h"

namespace cuco::scaffold_internal {

struct RegexGuess {
  std::string regex;
  int line = 0;
  std::string shown;  // the format, for the comment
  std::string unit;   // time: "ms", "us", "s", "ns" or "" (unknown)
};

// A floating conversion (%f, %g, %e) after a word such as Time, Elapsed, Latency, Duration or
// Took; the unit printed right after it, when there is one, is matched too and named in `unit`.
// Where no print has such a word: the first floating conversion a time unit follows (`ring step:
// %.3f ms`), labelled by the text before it, in a print with no other such number (`1 GPU: %f s, %d
// GPUs: %f s` names two times, and which is the program's is not known).
std::optional<RegexGuess> GuessTimeRegex(const std::vector<PrintCall>& prints);

// The pass (want_pass) or fail pattern.
std::optional<RegexGuess> GuessVerdictRegex(const std::vector<PrintCall>& prints, bool want_pass);

// ECMAScript regex for `text` as printed: specials escaped, each run of whitespace `\s*`.
std::string RegexFor(const std::string& text);

}  // namespace cuco::scaffold_internal
