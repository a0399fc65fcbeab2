#include "scaffold/derived_pointers.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <set>
#include <vector>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {
namespace {

// The parameters' names and the body of function `fn` as `code` defines it (the first definition,
// FunctionDefinition); false when it defines none.
bool Definition(const std::string& code, const std::string& fn, std::vector<std::string>* params, std::string* body) {
  const std::vector<Tok> t = Scan(code);
  size_t open = 0;
  const size_t at = FunctionDefinition(t, fn, &open);
  const size_t end = at < t.size() ? Match(t, open) : t.size();
  if (end >= t.size()) return false;
  params->clear();
  std::string last;
  for (size_t k = at + 2; k < open; ++k) {
    if (t[k].ident) last = t[k].text;
    if (t[k].text == "," || k + 1 == open) params->push_back(last), last.clear();
  }
  *body = code.substr(t[open].begin, t[end].end - t[open].begin);
  return true;
}

// Whether `body` stores through parameter `p` (`p[i] = `, `p->m = `, `*p = `) a value made from one of
// `derived` (the buffer's parameter and the locals set from it: `float *cur = base;`).
bool StoresDerivedThrough(const std::string& body, const std::string& p, const std::set<std::string>& derived) {
  const std::regex store("\\b" + p + "\\s*(\\[[^\\]]*\\]|->\\s*\\w+(\\s*\\[[^\\]]*\\])?)\\s*=([^=;][^;]*);|\\*\\s*" + p +
                         "\\s*=([^=;][^;]*);");
  static const std::regex word("[A-Za-z_]\\w*");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), store); it != std::sregex_iterator(); ++it) {
    const std::string value = (*it)[3].matched ? (*it)[3].str() : (*it)[4].str();
    for (auto w = std::sregex_iterator(value.begin(), value.end(), word); w != std::sregex_iterator(); ++w)
      if (derived.count(w->str())) return true;
  }
  return false;
}

// The buffer's parameter `base` and the locals of `body` set from it without a call (`float *cur =
// base;`, `q = cur + n;`), to a fixpoint.
std::set<std::string> DerivedIn(const std::string& body, const std::string& base) {
  std::set<std::string> derived = {base};
  static const std::regex assign("([A-Za-z_]\\w*)\\s*=\\s*([^=;][^;]*);");
  static const std::regex word("[A-Za-z_]\\w*");
  for (bool grew = true; grew;) {
    grew = false;
    for (auto it = std::sregex_iterator(body.begin(), body.end(), assign); it != std::sregex_iterator(); ++it) {
      const std::string lhs = (*it)[1].str(), rhs = (*it)[2].str();
      if (derived.count(lhs) || rhs.find('(') != std::string::npos) continue;
      for (auto w = std::sregex_iterator(rhs.begin(), rhs.end(), word); w != std::sregex_iterator(); ++w)
        if (derived.count(w->str())) {
          derived.insert(lhs), grew = true;
          break;
        }
    }
  }
  return derived;
}

}  // namespace

bool PointersDerivedBeforeLoop(const std::string& before_loop, const std::string& program_code, const std::string& name,
                               std::string* why) {
  const std::vector<Tok> t = Scan(before_loop);
  static const std::regex casts("static_cast|reinterpret_cast|const_cast");
  for (size_t i = 0; i < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == name) || FollowsMemberAccess(t, i)) continue;
    const size_t s = StatementStart(t, i);
    // An assignment `lhs = <the buffer, an offset into it>` whose left side is not the buffer.
    size_t eq = t.size();
    int depth = 0;
    for (size_t k = s; k < i; ++k) {
      const std::string& x = t[k].text;
      if (x == "(" || x == "[" || x == "{") ++depth;
      if ((x == ")" || x == "]" || x == "}") && --depth < 0) depth = 0;  // a `for (...)` header closing before it
      const bool compare = k + 1 < t.size() && t[k + 1].text == "=" && t[k + 1].begin == t[k].end;
      const bool after_op = k > 0 && t[k - 1].end == t[k].begin && std::string("=!<>+-*/%&|^").find(t[k - 1].text) != std::string::npos;
      if (depth == 0 && x == "=" && !compare && !after_op) eq = k;
      if (depth == 0 && x == ",") eq = t.size();  // another declarator (`double *a = NULL, *d_w;`)
    }
    if (eq < t.size() && !(eq == s + 1 && t[s].text == name)) {
      bool called = false;  // `x = f(d_params)`: what f returns, not the buffer
      bool compared = false;  // `same = d_w == d_v`, `p = c ? d_w : d_v` kept as a pointer too, but rarely
      const size_t end = std::min(t.size(), StatementEnd(t, s) + 1);
      for (size_t k = eq + 1; k < end; ++k) {
        called |= t[k].ident && k + 1 < t.size() && t[k + 1].text == "(" && !std::regex_match(t[k].text, casts);
        if (t[k].ident && std::regex_match(t[k].text, casts) && k + 1 < end && t[k + 1].text == "<")
          while (k < end && t[k].text != ">") ++k;  // the cast's type
        else
          compared |= t[k].text == "=" || t[k].text == "!" || t[k].text == "<" || t[k].text == ">" ||
                      t[k].text == "|" || t[k].text == "?" || (t[k].text == "&" && k + 1 < end && t[k + 1].text == "&");
      }
      if (!called && !compared) {
        *why = fmt::format("`{}` is kept before the loop", before_loop.substr(t[s].begin, t[i].end - t[s].begin));
        return true;
      }
    }
    // An argument of a call of the program's own function that stores through another parameter.
    size_t open = i, argument = 0;
    depth = 0;
    for (size_t k = i; k > s; --k) {
      const std::string& x = t[k - 1].text;
      if (x == ")" || x == "]" || x == "}") ++depth;
      if ((x == "(" || x == "[" || x == "{") && depth-- == 0) {
        open = k - 1;
        break;
      }
      if (x == "," && depth == 0) ++argument;
    }
    if (open == i || open == 0 || t[open].text != "(" || !t[open - 1].ident) continue;
    std::vector<std::string> params;
    std::string body;
    if (!Definition(program_code, t[open - 1].text, &params, &body) || argument >= params.size()) continue;
    const std::set<std::string> derived = DerivedIn(body, params[argument]);
    for (size_t p = 0; p < params.size(); ++p)
      if (p != argument && !params[p].empty() && StoresDerivedThrough(body, params[p], derived)) {
        *why = fmt::format("`{}` is handed to {}, which stores through its parameter `{}`", name, t[open - 1].text,
                           params[p]);
        return true;
      }
  }
  return false;
}

}  // namespace cuco::scaffold_internal
