#include "scaffold/swaps.h"

#include <algorithm>
#include <map>
#include <regex>

#include "util/source_text.h"

namespace cuco::scaffold_internal {

std::vector<Swap> SwapsIn(const std::string& text, size_t begin, size_t end) {
  std::vector<Swap> out;
  if (begin >= end || end > text.size()) return out;
  static const std::regex swap_re(R"(\bswap\s*\(\s*([A-Za-z_][\w.]*)\s*,\s*([A-Za-z_][\w.]*)\s*\))");
  // `tmp = a; a = b; b = tmp;`, the temporary declared there or before (`float *tmp = a;`, `auto t = a;`).
  static const std::regex rotate_re(
      R"((?:^|[;{}\s*&])([A-Za-z_]\w*)\s*=\s*([A-Za-z_][\w.]*)\s*;\s*\2\s*=\s*([A-Za-z_][\w.]*)\s*;\s*\3\s*=\s*\1\s*;)");
  const std::string code = BlankCommentsAndLiterals(text.substr(0, end));
  const auto from = code.begin() + static_cast<std::ptrdiff_t>(begin);
  for (auto it = std::sregex_iterator(from, code.end(), swap_re); it != std::sregex_iterator(); ++it)
    out.push_back({LineOf(text, begin + static_cast<size_t>(it->position(0))), (*it)[1].str(), (*it)[2].str()});
  for (auto it = std::sregex_iterator(from, code.end(), rotate_re); it != std::sregex_iterator(); ++it) {
    const size_t second = code.find_first_not_of(" \t\r\n", begin + static_cast<size_t>(it->position(0)) + (*it)[0].str().find(';') + 1);
    if ((*it)[2].str() != (*it)[3].str()) out.push_back({LineOf(text, second), (*it)[2].str(), (*it)[3].str()});
  }
  std::stable_sort(out.begin(), out.end(), [](const Swap& x, const Swap& y) { return x.line < y.line; });
  return out;
}

std::string NameAtStart(const std::string& name, int line, const std::vector<Swap>& swaps) {
  if (line <= 0) return name;
  std::map<std::string, std::string> held;  // name -> the start name of the buffer it holds now
  auto now = [&](const std::string& n) { return held.count(n) ? held[n] : n; };
  for (const Swap& s : swaps) {
    if (s.line >= line) break;
    const std::string a = now(s.a), b = now(s.b);
    held[s.a] = b;
    held[s.b] = a;
  }
  return now(name);
}

bool Swapped(const std::string& name, const std::vector<Swap>& swaps) {
  for (const Swap& s : swaps)
    if (s.a == name || s.b == name) return true;
  return false;
}

}  // namespace cuco::scaffold_internal
