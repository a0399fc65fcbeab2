// Key lines: the few lines of a failed candidate worth showing a model, so that it sees the
// mistake without the whole file (both paths: the proposer's failures, the transform's judge).
#pragma once

#include <cstddef>
#include <string>

namespace cuco {

// The lines of `code` worth showing for a failed candidate: lines named in `feedback`
// ("file:LINE:") with a line of context, then lines of its EVOLVE blocks absent from `reference`
// (e.g. the seed or its parent); numbered, at most max_chars.
std::string KeyLines(const std::string& code, const std::string& feedback, const std::string& reference,
                     size_t max_chars);

}  // namespace cuco
