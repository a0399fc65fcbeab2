#include "scaffold/carried_scalars.h"

#include <algorithm>
#include <regex>

namespace cuco::scaffold_internal {
namespace {

bool ArithmeticType(const std::string& word) {
  static const std::regex type(
      "double|float|int|long|short|unsigned|signed|bool|size_t|ptrdiff_t|(u?int(8|16|32|64)_t)");
  return std::regex_match(word, type);
}

bool Adjacent(const std::vector<Tok>& t, size_t a) { return a + 1 < t.size() && t[a].end == t[a + 1].begin; }

// How token `i` (the variable, not a member of another object) is used: 'w' assigned (`x = ...`),
// 'c' changed after a read (`x += ...`, `++x`, `x--`, `&x` handed on), 'r' read.
char Use(const std::vector<Tok>& t, size_t i) {
  const size_t n = t.size();
  if (i + 1 < n && t[i + 1].text == "=" && !(i + 2 < n && t[i + 2].text == "=" && Adjacent(t, i + 1))) return 'w';
  if (i + 2 < n && std::string("+-*/%&|^").find(t[i + 1].text) != std::string::npos && t[i + 1].text.size() == 1 &&
      t[i + 2].text == "=" && Adjacent(t, i + 1) && !(i + 3 < n && t[i + 3].text == "=" && Adjacent(t, i + 2)))
    return 'c';
  if (i + 2 < n && (t[i + 1].text == "+" || t[i + 1].text == "-") && t[i + 2].text == t[i + 1].text && Adjacent(t, i + 1))
    return 'c';  // x++
  if (i >= 2 && (t[i - 1].text == "+" || t[i - 1].text == "-") && t[i - 2].text == t[i - 1].text && Adjacent(t, i - 2))
    return 'c';  // ++x
  if (i >= 2 && t[i - 1].text == "&" && (t[i - 2].text == "(" || t[i - 2].text == ",")) return 'c';
  return 'r';
}

// The names a declaration statement [s, e) declares as scalars: each declarator's first identifier,
// none behind `*` or `&` or followed by `[`.
std::vector<std::string> ScalarDeclarators(const std::vector<Tok>& t, size_t s, size_t e) {
  std::vector<std::string> names;
  size_t k = s;
  while (k < e && t[k].ident && (ArithmeticType(t[k].text) || t[k].text == "std")) ++k;  // the type's words
  if (k == s) return names;
  for (bool at_start = true; k < e; ++k) {
    const std::string& x = t[k].text;
    if (at_start) {
      if (!t[k].ident) return names;  // `*`, `&`: a pointer or reference
      if (k + 1 >= e || t[k + 1].text != "[") names.push_back(x);
      at_start = false;
    }
    if (x == "(" || x == "[" || x == "{") k = Match(t, k);
    if (k < e && t[k].text == ",") at_start = true;
  }
  return names;
}

}  // namespace

std::vector<std::string> CarriedScalars(const std::vector<Tok>& t, size_t body_open, size_t first, size_t last,
                                        const std::vector<std::pair<size_t, size_t>>& also,
                                        const std::set<std::string>& skip) {
  std::vector<std::string> carried;
  if (body_open >= t.size() || first >= t.size() || last >= t.size() || first <= body_open) return carried;
  std::vector<std::pair<size_t, size_t>> ranges = {{first, last}};
  ranges.insert(ranges.end(), also.begin(), also.end());
  std::vector<size_t> open = {body_open};
  for (size_t i = body_open + 1; i < first; ++i) {
    if (t[i].text == "{") open.push_back(i);
    if (t[i].text == "}" && open.size() > 1) open.pop_back();
    // A statement of its own (not a `for` header's declaration) starting with an arithmetic type.
    const std::string& before = t[i - 1].text;
    if (!t[i].ident || !ArithmeticType(t[i].text) || !(before == ";" || before == "{" || before == "}") ||
        Match(t, open.back()) <= last)
      continue;
    const size_t e = std::min(StatementEnd(t, i), first);  // its `;`
    for (const std::string& name : ScalarDeclarators(t, i, e)) {
      if (skip.count(name) || std::count(carried.begin(), carried.end(), name)) continue;
      char first_use = 0;
      bool changed = false, declared_again = false;
      for (const auto& [a, b] : ranges)
        for (size_t k = a; k <= b && k < t.size(); ++k) {
          if (!(t[k].ident && t[k].text == name) || FollowsMemberAccess(t, k)) continue;
          if (k > 0 && t[k - 1].ident && ArithmeticType(t[k - 1].text)) declared_again = true;
          const char u = Use(t, k);
          if (first_use == 0) first_use = u;
          changed = changed || u != 'r';
        }
      if (first_use != 0 && first_use != 'w' && changed && !declared_again) carried.push_back(name);
    }
    i = e;
  }
  return carried;
}

}  // namespace cuco::scaffold_internal
