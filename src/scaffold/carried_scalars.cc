#include "scaffold/carried_scalars.h"

#include <algorithm>
#include <regex>
#include <set>

namespace cuco::scaffold_internal {
namespace {

bool ArithmeticType(const std::string& word) {
  static const std::regex type(
      "double|float|int|long|short|unsigned|signed|bool|size_t|ptrdiff_t|(u?int(8|16|32|64)_t)");
  return std::regex_match(word, type);
}

bool Adjacent(const std::vector<Tok>& t, size_t a) { return a + 1 < t.size() && t[a].end == t[a + 1].begin; }

// Whether the assignment's right side, from token `from` to its `;`, reads `name`.
bool ReadsOnTheRight(const std::vector<Tok>& t, size_t from, const std::string& name) {
  for (size_t k = from; k < t.size() && t[k].text != ";" && t[k].text != "{" && t[k].text != "}"; ++k)
    if (t[k].ident && t[k].text == name && !FollowsMemberAccess(t, k)) return true;
  return false;
}

// How token `i` (the variable, not a member of another object) is used: 'w' assigned (`x = ...`),
// 'c' changed after a read (`x += ...`, `x = x / 2`, `++x`, `x--`, `&x` handed on), 'r' read.
char Use(const std::vector<Tok>& t, size_t i) {
  const size_t n = t.size();
  if (i + 1 < n && t[i + 1].text == "=" && !(i + 2 < n && t[i + 2].text == "=" && Adjacent(t, i + 1)))
    return ReadsOnTheRight(t, i + 2, t[i].text) ? 'c' : 'w';
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

// Whether token `k`, inside the range opening at `first` (a loop, from its keyword; a lambda's body,
// from its `{`), runs only under a condition of the range: in a statement of `if`, `else`, `case` or
// an inner loop, or in a block such a statement opens. A write there may not happen, so the value the
// variable had before the range can reach a later read.
bool Conditional(const std::vector<Tok>& t, size_t first, size_t k) {
  const size_t s = StatementStart(t, k, first);
  const std::string& w = t[s].text;
  if (s != first && (w == "if" || w == "else" || w == "for" || w == "while" || w == "do" || w == "switch" ||
                     w == "case" || w == "default"))
    return true;
  std::vector<size_t> open;
  for (size_t i = first; i < k; ++i) {
    if (t[i].text == "{") open.push_back(i);
    if (t[i].text == "}" && !open.empty()) open.pop_back();
  }
  for (size_t j = 1; j < open.size(); ++j) {  // open[0]: the range's own body
    const std::string& before = t[open[j] - 1].text;
    if (before == ")" || before == "else" || before == "do" || before == ":") return true;
  }
  return false;
}

// The names the file gives an arithmetic type: `typedef double real_t;`, `using index_t = std::size_t;`.
std::set<std::string> ArithmeticAliases(const std::vector<Tok>& t) {
  std::set<std::string> aliases;
  auto arithmetic_words = [&](size_t k, size_t e) {  // [k, e) only arithmetic words and `std ::`
    bool any = false;
    for (; k < e; ++k)
      if (t[k].ident && ArithmeticType(t[k].text)) any = true;
      else if (!(t[k].text == "std" || t[k].text == ":")) return false;
    return any;
  };
  for (size_t i = 0; i + 3 < t.size(); ++i) {
    if (t[i].text != "typedef" && t[i].text != "using") continue;
    size_t e = i + 1;
    while (e < t.size() && t[e].text != ";" && t[e].text != "{" && t[e].text != "(") ++e;
    if (e >= t.size() || t[e].text != ";") continue;
    if (t[i].text == "typedef" && t[e - 1].ident && arithmetic_words(i + 1, e - 1)) aliases.insert(t[e - 1].text);
    if (t[i].text == "using" && t[i + 1].ident && t[i + 2].text == "=" && arithmetic_words(i + 3, e))
      aliases.insert(t[i + 1].text);
  }
  return aliases;
}

// Whether token `k` names an arithmetic type: a word of one, or an alias of the file's.
bool TypeWord(const std::vector<Tok>& t, size_t k, const std::set<std::string>& aliases) {
  return t[k].ident && (ArithmeticType(t[k].text) || aliases.count(t[k].text));
}

// The index past the type that starts the declaration statement at `s` (before `e`) where that type
// is arithmetic: storage words (`static`, `register`, `volatile`), `std ::`, then words of an
// arithmetic type or an alias of one; or `auto`, whose declarators are then taken only where
// initialised by a bare number (ScalarDeclarators). `s` when the statement is no such declaration.
size_t ArithmeticTypeEnd(const std::vector<Tok>& t, size_t s, size_t e, const std::set<std::string>& aliases,
                         bool* is_auto) {
  size_t k = s;
  while (k < e && (t[k].text == "static" || t[k].text == "register" || t[k].text == "volatile")) ++k;
  *is_auto = k < e && t[k].text == "auto";
  if (*is_auto) return k + 1;
  const size_t words = k;
  while (k < e && (TypeWord(t, k, aliases) || t[k].text == "std" ||
                   (t[k].text == ":" && k > words && (t[k - 1].text == "std" || t[k - 1].text == ":"))))
    ++k;
  for (size_t w = words; w < k; ++w)
    if (TypeWord(t, w, aliases)) return k;
  return s;
}

// The names the declaration statement [s, e) declares as scalars, its type ending before `k`: each
// declarator's first identifier, none behind `*` or `&` or followed by `[`; with `auto`, only those
// initialised by a bare number (`auto err = 1.0;`: the scan skips numbers, so `=` then `,` or `;`).
std::vector<std::string> ScalarDeclarators(const std::vector<Tok>& t, size_t k, size_t e, bool is_auto) {
  std::vector<std::string> names;
  for (bool at_start = true; k < e; ++k) {
    const std::string& x = t[k].text;
    if (at_start) {
      if (!t[k].ident) return names;  // `*`, `&`: a pointer or reference
      size_t v = k + 2;
      if (v < e && (t[v].text == "-" || t[v].text == "+")) ++v;
      const bool number = k + 1 < e && t[k + 1].text == "=" && (v >= e || t[v].text == ",");
      if ((k + 1 >= e || t[k + 1].text != "[") && (!is_auto || number)) names.push_back(x);
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
  const std::set<std::string> aliases = ArithmeticAliases(t);
  std::vector<size_t> open = {body_open};
  for (size_t i = body_open + 1; i < first; ++i) {
    if (t[i].text == "{") open.push_back(i);
    if (t[i].text == "}" && open.size() > 1) open.pop_back();
    // A statement of its own (not a `for` header's declaration) starting with an arithmetic type.
    const std::string& before = t[i - 1].text;
    if (!t[i].ident || !(before == ";" || before == "{" || before == "}") || Match(t, open.back()) <= last) continue;
    const size_t e = std::min(StatementEnd(t, i), first);  // its `;`
    bool is_auto = false;
    const size_t type_end = ArithmeticTypeEnd(t, i, e, aliases, &is_auto);
    if (type_end == i) continue;
    for (const std::string& name : ScalarDeclarators(t, type_end, e, is_auto)) {
      if (skip.count(name) || std::count(carried.begin(), carried.end(), name)) continue;
      char first_use = 0;
      bool changed = false, declared_again = false;
      for (const auto& [a, b] : ranges)
        for (size_t k = a; k <= b && k < t.size(); ++k) {
          if (!(t[k].ident && t[k].text == name) || FollowsMemberAccess(t, k)) continue;
          if (k > 0 && (TypeWord(t, k - 1, aliases) || t[k - 1].text == "auto")) declared_again = true;
          const char u = Use(t, k);
          if (first_use == 0) first_use = u == 'w' && Conditional(t, a, k) ? 'c' : u;  // it may keep its value
          changed = changed || u != 'r';
        }
      if (first_use != 0 && first_use != 'w' && changed && !declared_again) carried.push_back(name);
    }
    i = e;
  }
  return carried;
}

}  // namespace cuco::scaffold_internal
