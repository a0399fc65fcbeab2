#include "scaffold/handed_lambdas.h"

namespace cuco::scaffold_internal {
namespace {

// The parameter names of the list whose `(` is token `open`: each parameter's last identifier
// before its `,`, `)` or default `=` at the list's own depth.
std::set<std::string> ParameterNames(const std::vector<Tok>& t, size_t open, size_t close) {
  std::set<std::string> out;
  int depth = 0;
  bool in_default = false;
  for (size_t i = open + 1; i < close; ++i) {
    const std::string& s = t[i].text;
    if (s == "(" || s == "[" || s == "{" || s == "<") ++depth;
    if (s == ")" || s == "]" || s == "}" || s == ">") --depth;
    if (depth != 0) continue;
    if (s == "=") in_default = true;
    if (s == ",") in_default = false;
    const bool ends = i + 1 == close || t[i + 1].text == "," || t[i + 1].text == "=";
    if (!in_default && t[i].ident && ends) out.insert(s);
  }
  return out;
}

// Whether tokens [from, to] call parameter `p`: `p(`, or `p)(` (`std::forward<F>(p)()`).
bool CallsParameter(const std::vector<Tok>& t, size_t from, size_t to, const std::string& p) {
  for (size_t i = from; i + 1 <= to && i + 1 < t.size(); ++i) {
    if (!t[i].ident || t[i].text != p) continue;
    if (FollowsMemberAccess(t, i)) continue;  // a member of that name
    if (t[i + 1].text == "(") return true;
    if (t[i + 1].text == ")" && i + 2 < t.size() && t[i + 2].text == "(") return true;
  }
  return false;
}

// The identifier naming the function whose argument list holds token `i` (the `(` left open before
// it), or "".
std::string CalleeOf(const std::vector<Tok>& t, size_t i) {
  int depth = 0;
  for (size_t j = i; j-- > 0;) {
    const std::string& s = t[j].text;
    if (s == ")" || s == "]" || s == "}") ++depth;
    if (s == "[" || s == "{") {
      if (depth == 0) return "";
      --depth;
    }
    if (s == "(") {
      if (depth == 0) return j > 0 && t[j - 1].ident ? t[j - 1].text : "";
      --depth;
    }
    if (s == ";") return "";
  }
  return "";
}

}  // namespace

std::set<std::string> Repeaters(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  std::set<std::string> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].ident || KeywordBeforeParen(t[i].text) || t[i + 1].text != "(") continue;
    if (FollowsMemberAccess(t, i)) continue;  // a call on an object, not a definition
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size() || t[close + 1].text != "{") continue;
    const size_t body_close = Match(t, close + 1);
    if (body_close >= t.size()) continue;
    const std::set<std::string> params = ParameterNames(t, i + 1, close);
    for (size_t k = close + 2; k < body_close && !out.count(t[i].text); ++k) {
      if (!IsLoopAt(t, k)) continue;
      const size_t end = StatementEnd(t, k);
      for (const std::string& p : params)
        if (end < t.size() && CallsParameter(t, k, end, p)) out.insert(t[i].text);
    }
  }
  return out;
}

std::optional<HandedLambda> LastHandedLambda(const std::vector<Tok>& t, size_t from, size_t to,
                                             const std::set<std::string>& repeaters, const std::set<std::string>& names) {
  std::optional<HandedLambda> last;
  for (size_t i = from; i <= to && i < t.size(); ++i) {
    if (t[i].text != "[" || i == 0 || (t[i - 1].text != "(" && t[i - 1].text != ",")) continue;
    size_t j = Match(t, i);
    if (j >= t.size()) continue;
    ++j;
    // A body called as it is (`[&]()`, `[&]`): a lambda taking an index (`[&](int gpu)`) is a step of
    // a loop over GPUs or peers, one part of the iteration, never the whole.
    if (j < t.size() && t[j].text == "(") {
      const size_t params_close = Match(t, j);
      const bool none = params_close == j + 1 || (params_close == j + 2 && t[j + 1].text == "void");
      if (!none) continue;
      j = params_close + 1;
    }
    while (j < t.size() && j <= to && t[j].text != "{" && t[j].text != ")" && t[j].text != ";" && t[j].text != ",") ++j;
    if (j > to || j >= t.size() || t[j].text != "{") continue;  // `mutable`, `-> T` skipped; anything else: no lambda
    const size_t close = Match(t, j);
    if (close > to || close >= t.size()) continue;
    const std::string callee = CalleeOf(t, i);
    if (repeaters.count(callee) && close > j + 1 && Calls(t, j + 1, close - 1, names)) last = HandedLambda{callee, j, close};
    i = close;  // outermost: a lambda inside this one is its body's business
  }
  return last;
}

}  // namespace cuco::scaffold_internal
