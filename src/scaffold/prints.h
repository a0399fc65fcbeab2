// What a program prints: its printf-family calls (printf, fprintf, puts, fputs) and its
// std::cout / std::cerr chains, each read as a format and the string literals among its other
// arguments. The output regexes (output_regex.h) are guessed from these.
//
// Contract: FindPrints reads comment-stripped code (StripComments) and returns the prints in
// line order; a call without a string literal, or a chain that prints nothing, is left out.
#pragma once

#include <string>
#include <vector>

namespace cuco::scaffold_internal {

struct PrintCall {
  std::string format;                 // iostream chains: literals, "%s" for an operand holding
                                      // literals, "%g" for any other operand
  std::vector<std::string> literals;  // string literals among the other arguments
  int line = 0;
  std::string callee;                 // "printf", "fprintf", "puts", "fputs", "cout" or "cerr"
};

std::vector<PrintCall> FindPrints(const std::string& code);

}  // namespace cuco::scaffold_internal
