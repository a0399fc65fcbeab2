// Lambdas a program hands a benchmark helper that calls them once a pass
// (`run_benchmark(warmup, iters, [&]() { ncclGroupStart(); ... })`, the helper in a header or
// another file): the lambda's body is the iteration, the helper's loop the timing around it.
//   Repeaters         the program's functions whose loop calls one of their own parameters;
//   LastHandedLambda  the last lambda written as an argument of a call to one of them, in a token
//                     range, whose body calls the communication.
// Read from the token scan (tokens.h); comments and literals are never read.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

// The names of the functions defined in `text` that call a parameter inside a loop of their body
// (`for (...) body();`, `fn(i)`, `std::forward<F>(f)()`).
std::set<std::string> Repeaters(const std::string& text);

struct HandedLambda {
  std::string callee;        // the helper called ("run_benchmark" of `gpu_bench::run_benchmark(`)
  size_t open = 0, close = 0;  // the tokens `{` and `}` of the lambda's body
};

// Tokens [from, to]: the last lambda taking no parameters passed as an argument to one of
// `repeaters` whose body calls one of `names` (the communication), outermost first; nullopt when
// none. A lambda taking one (`for_each_gpu(n, [&](int g) {...})`) is one GPU's part, not an iteration.
std::optional<HandedLambda> LastHandedLambda(const std::vector<Tok>& t, size_t from, size_t to,
                                             const std::set<std::string>& repeaters, const std::set<std::string>& names);

}  // namespace cuco::scaffold_internal
