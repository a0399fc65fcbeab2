#include "prompts/key_lines.h"

#include <cctype>
#include <cstdlib>
#include <set>
#include <vector>

#include "util/source_text.h"
#include "workload/evolve_blocks.h"

namespace cuco {

std::string KeyLines(const std::string& code, const std::string& feedback, const std::string& reference,
                     size_t max_chars) {
  const std::vector<std::string> lines = LinesOf(code);
  std::set<int> referenced;
  for (size_t p = feedback.find(':'); p != std::string::npos; p = feedback.find(':', p + 1)) {
    size_t q = p + 1;
    while (q < feedback.size() && std::isdigit(static_cast<unsigned char>(feedback[q]))) ++q;
    if (q == p + 1 || q >= feedback.size() || q - p > 7 || feedback[q] != ':') continue;
    const int n = std::atoi(feedback.substr(p + 1, q - p - 1).c_str());
    for (int k = n - 1; k <= n + 1; ++k)
      if (k >= 1 && k <= static_cast<int>(lines.size())) referenced.insert(k);
  }
  std::set<std::string> ref;
  for (const auto& l : LinesOf(reference)) ref.insert(Trim(l));
  std::vector<int> changed;
  if (auto split = SplitEvolveBlocks(code, "candidate"); split.ok()) {
    for (const auto& b : split->blocks)
      for (int k = b.start_line + 1; k < b.end_line; ++k) {
        const std::string t = Trim(lines[k - 1]);
        if (!t.empty() && !ref.count(t) && !referenced.count(k)) changed.push_back(k);
      }
  }
  std::string out;
  auto add = [&](int k) {
    std::string line = "  " + std::to_string(k) + ": " + lines[k - 1] + "\n";
    if (out.size() + line.size() > max_chars) return false;
    out += line;
    return true;
  };
  int prev = -1;
  for (int k : referenced) {
    if (prev > 0 && k != prev + 1 && !out.empty()) out += "  ...\n";
    if (!add(k)) return out + "  ...\n";
    prev = k;
  }
  if (!changed.empty()) {
    if (!out.empty()) out += "  lines that differ from the parent/seed:\n";
    for (int k : changed)
      if (!add(k)) return out + "  ...\n";
  }
  return out;
}

}  // namespace cuco
