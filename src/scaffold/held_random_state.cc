#include "scaffold/held_random_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

namespace cuco::scaffold_internal {
namespace {

// A type of <random> whose object holds a state the iteration would carry on: an engine or a
// distribution (std::random_device is neither: it cannot be held).
bool GeneratorType(const std::string& word) {
  static const std::regex type(
      "mt19937(_64)?|default_random_engine|minstd_rand0?|ranlux(24|48)(_base)?|knuth_b|[a-z_]+_distribution|"
      "(linear_congruential|mersenne_twister|subtract_with_carry|discard_block|independent_bits|shuffle_order)_engine");
  return std::regex_match(word, type);
}

// The token ending the statement that starts at `s` (its `;` at the statement's own bracket depth),
// or t.size().
size_t StatementSemicolon(const std::vector<Tok>& t, size_t s, size_t limit) {
  int depth = 0;
  for (size_t i = s; i < limit; ++i) {
    const std::string& x = t[i].text;
    if (x == "(" || x == "[" || x == "{") ++depth;
    if (x == ")" || x == "]" || x == "}") --depth;
    if (depth < 0) return t.size();
    if (depth == 0 && x == ";") return i;
  }
  return t.size();
}

// Whether tokens [from, to] name `name` as a variable (not a member of another object).
bool Names(const std::vector<Tok>& t, size_t from, size_t to, const std::string& name) {
  for (size_t i = from; i <= to && i < t.size(); ++i)
    if (t[i].ident && t[i].text == name && !FollowsMemberAccess(t, i)) return true;
  return false;
}

// Whether tokens [from, to] call the C function `name` (`rand(`, `std::rand(`), not a member.
bool CallsC(const std::vector<Tok>& t, size_t from, size_t to, const std::string& name) {
  for (size_t i = from; i + 1 <= to && i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == name && t[i + 1].text == "(") || FollowsMemberAccess(t, i)) continue;
    const bool qualified = i >= 2 && t[i - 1].text == ":" && t[i - 2].text == ":";
    if (!qualified || (i >= 3 && t[i - 3].text == "std")) return true;
  }
  return false;
}

}  // namespace

HeldRandomState RandomStateDrawn(const std::vector<Tok>& t, size_t body_open, size_t first, size_t last,
                                 const std::vector<std::pair<size_t, size_t>>& also) {
  HeldRandomState held;
  if (body_open >= t.size() || first >= t.size() || last >= t.size() || first <= body_open) return held;
  std::vector<std::pair<size_t, size_t>> ranges = {{first, last}};
  ranges.insert(ranges.end(), also.begin(), also.end());
  auto drawn = [&](auto&& test) {
    return std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) { return test(r.first, r.second); });
  };
  // The blocks open at each token before the loop: a declaration counts where its block holds the loop.
  std::vector<size_t> open = {body_open};
  for (size_t i = body_open + 1; i < first; ++i) {
    if (t[i].text == "{") open.push_back(i);
    if (t[i].text == "}" && open.size() > 1) open.pop_back();
    if (!t[i].ident || !GeneratorType(t[i].text) || Match(t, open.back()) <= last) continue;
    const size_t s = StatementStart(t, i, open.back() + 1);
    const size_t e = StatementSemicolon(t, s, first);
    if (e >= t.size()) continue;
    const size_t name = DeclaredNameToken(t, s, e);
    if (name == 0 || name <= s || (name < i && t[s].text != "auto")) continue;  // the type first, or `auto g = std::mt19937(...)`
    const std::string& n = t[name].text;
    if (std::find(held.generators.begin(), held.generators.end(), n) == held.generators.end() &&
        drawn([&](size_t a, size_t b) { return Names(t, a, b, n); }))
      held.generators.push_back(n);
    i = e;
  }
  // The C library's generators, where the iteration does not seed them itself.
  static const std::vector<std::pair<std::vector<std::string>, std::string>> c_generators = {
      {{"rand"}, "srand"}, {{"random"}, "srandom"}, {{"drand48", "lrand48", "mrand48"}, "srand48"}};
  for (const auto& [draws, seed] : c_generators) {
    const bool calls = std::any_of(draws.begin(), draws.end(), [&](const std::string& d) {
      return drawn([&](size_t a, size_t b) { return CallsC(t, a, b, d); });
    });
    if (calls && !drawn([&](size_t a, size_t b) { return CallsC(t, a, b, seed); }))
      held.restarts.push_back(seed + (seed == "srand48" ? "(0)" : "(1)"));
  }
  return held;
}

namespace {

// The assignments of each of `names` from its copy, one line each; the copies' declarations into
// *before_serve.
std::string CopiesBack(const std::vector<std::string>& names, std::string* before_serve) {
  std::string top;
  for (const std::string& n : names) {
    *before_serve += fmt::format("auto cuco_held_{0} = {0};\n  ", n);
    top += fmt::format("        {0} = cuco_held_{0};\n", n);
  }
  return top;
}

}  // namespace

std::string HoldRandomState(const HeldRandomState& held, const std::string& body, std::string* before_serve) {
  if (held.empty()) return body;
  std::string top = CopiesBack(held.generators, before_serve);
  for (const std::string& r : held.restarts) top += "        " + r + ";\n";
  return "{\n" + top + "        " + body + "\n      }";
}

std::string HoldCopies(const std::vector<std::string>& names, const std::string& body, std::string* before_serve) {
  if (names.empty()) return body;
  return "{\n" + CopiesBack(names, before_serve) + "        " + body + "\n      }";
}

}  // namespace cuco::scaffold_internal
