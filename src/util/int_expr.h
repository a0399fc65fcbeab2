// The value of a C integer constant expression as a program writes it in `#define N 4096`,
// `const int K = 2 * M;` or an option's default (cuco init), or a workload.toml's [work] formula: decimal or hex literals (digit separators and
// u/l suffixes allowed), names already known, unary + -, binary * / % + - << >> with C's
// precedence, and parentheses.
//
// Contract: nullopt for anything else (floating literals, unknown names, casts, calls, trailing
// text), for division or remainder by zero, for shifts out of [0, 62] (<<) or [0, 63] (>>), and
// for any intermediate result outside int64_t. Never throws.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace cuco {

std::optional<int64_t> EvalIntExpr(const std::string& text, const std::map<std::string, int64_t>& names);

}  // namespace cuco
