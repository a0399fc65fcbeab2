#include "transform/source_text.h"

#include <algorithm>
#include <cctype>

#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {

std::string TailChars(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t from = s.size() - max;
  size_t nl = s.find('\n', from);
  if (nl != std::string::npos && nl < from + 200) from = nl + 1;
  return "[... " + std::to_string(from) + " characters before]\n" + s.substr(from);
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }


bool HasEvolveBlocks(const std::string& code) {
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  return split.ok() && !split->blocks.empty();
}

}  // namespace cuco::transform_internal
