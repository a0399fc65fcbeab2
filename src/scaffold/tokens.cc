#include "scaffold/tokens.h"

#include <cctype>

#include "util/source_text.h"

namespace cuco::scaffold_internal {

// Identifiers and single punctuation characters; comments, literals and preprocessor lines skipped.
std::vector<Tok> Scan(const std::string& s) {
  std::vector<Tok> out;
  int line = 1;
  bool line_start = true;
  for (size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line, ++i, line_start = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // a directive, with its continuation lines
      while (i < s.size() && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size()) line += s[i + 1] == '\n', ++i;
        ++i;
      }
      continue;
    }
    line_start = false;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t e = s.find("*/", i + 2);
      const size_t stop = e == std::string::npos ? s.size() : e + 2;
      for (size_t k = i; k < stop; ++k) line += s[k] == '\n';
      i = stop;
      continue;
    }
    if (c == '"' || c == '\'') {
      size_t k = i + 1;
      while (k < s.size() && s[k] != c && s[k] != '\n') k += s[k] == '\\' ? 2 : 1;
      i = k + 1;
      continue;
    }
    if (IsCIdentStart(c)) {
      size_t k = i;
      while (k < s.size() && IsCIdentChar(s[k])) ++k;
      out.push_back({s.substr(i, k - i), i, k, line, true});
      i = k;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t k = i;
      while (k < s.size() && (std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '.' || s[k] == '\'')) ++k;
      i = k;
      continue;
    }
    out.push_back({std::string(1, c), i, i + 1, line, false});
    ++i;
  }
  return out;
}

size_t Match(const std::vector<Tok>& t, size_t open) {
  const std::string o = t[open].text;
  const std::string c = o == "(" ? ")" : o == "{" ? "}" : "]";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  return t.size();
}

size_t StatementStart(const std::vector<Tok>& t, size_t p, size_t floor) {
  size_t s = p;
  while (s > floor && t[s - 1].text != ";" && t[s - 1].text != "{" && t[s - 1].text != "}") --s;
  return s;
}

size_t StatementEnd(const std::vector<Tok>& t, size_t i) {
  if (i >= t.size()) return t.size();
  if (t[i].text == "{") return Match(t, i);
  if (t[i].ident && (t[i].text == "for" || t[i].text == "while" || t[i].text == "switch")) {
    if (i + 1 >= t.size() || t[i + 1].text != "(") return t.size();
    const size_t close = Match(t, i + 1);
    return close >= t.size() ? close : StatementEnd(t, close + 1);
  }
  if (t[i].ident && t[i].text == "if") {
    if (i + 1 >= t.size() || t[i + 1].text != "(") return t.size();
    size_t e = StatementEnd(t, Match(t, i + 1) + 1);
    if (e + 1 < t.size() && t[e + 1].text == "else") e = StatementEnd(t, e + 2);
    return e;
  }
  if (t[i].ident && t[i].text == "do") {
    size_t e = StatementEnd(t, i + 1);  // body
    while (e < t.size() && t[e].text != ";") ++e;
    return e;
  }
  int depth = 0;
  for (size_t k = i; k < t.size(); ++k) {
    if (t[k].text == "(" || t[k].text == "{" || t[k].text == "[") ++depth;
    if (t[k].text == ")" || t[k].text == "}" || t[k].text == "]") --depth;
    if (depth == 0 && t[k].text == ";") return k;
  }
  return t.size();
}

bool IsLoopAt(const std::vector<Tok>& t, size_t i) {
  if (i + 1 >= t.size() || !t[i].ident) return false;
  if (t[i].text == "for" || t[i].text == "while") return t[i + 1].text == "(";
  return t[i].text == "do" && LoopConditionOpen(t, i) < t.size();
}

size_t LoopBodyFirst(const std::vector<Tok>& t, size_t loop) {
  if (t[loop].text == "do") return loop + 1;
  const size_t close = Match(t, loop + 1);
  return close < t.size() ? close + 1 : t.size();
}

size_t LoopBodyLast(const std::vector<Tok>& t, size_t loop) {
  return t[loop].text == "do" ? StatementEnd(t, loop + 1) : StatementEnd(t, loop);
}

size_t LoopConditionOpen(const std::vector<Tok>& t, size_t loop) {
  if (t[loop].text != "do") return loop + 1 < t.size() && t[loop + 1].text == "(" ? loop + 1 : t.size();
  const size_t body_last = StatementEnd(t, loop + 1);
  if (body_last + 2 >= t.size() || t[body_last + 1].text != "while" || t[body_last + 2].text != "(") return t.size();
  return body_last + 2;
}

bool KeywordBeforeParen(const std::string& word) {
  static const std::set<std::string> k = {"if", "for", "while", "switch", "catch", "return", "sizeof", "decltype"};
  return k.count(word) > 0;
}

bool FollowsMemberAccess(const std::vector<Tok>& t, size_t i) {
  if (i == 0 || i > t.size()) return false;
  if (t[i - 1].text == ".") return true;
  return i > 1 && t[i - 1].text == ">" && t[i - 2].text == "-" && t[i - 2].end == t[i - 1].begin;
}

size_t FunctionDefinition(const std::vector<Tok>& t, const std::string& name, size_t* body) {
  // The `{` of a definition whose parameters close at `close`: right after, or after the qualifiers
  // a member function's definition may carry (`) const {`, `) noexcept override {`).
  auto body_after = [&](size_t close) {
    size_t k = close + 1;
    while (k < t.size() && (t[k].text == "const" || t[k].text == "noexcept" || t[k].text == "override" ||
                            t[k].text == "final" || t[k].text == "volatile"))
      ++k;
    return k < t.size() && t[k].text == "{" ? k : t.size();
  };
  size_t member = t.size(), member_body = t.size();
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == name && t[i + 1].text == "(")) continue;
    if (FollowsMemberAccess(t, i)) continue;
    const size_t close = Match(t, i + 1);
    const bool qualified = i > 0 && t[i - 1].text == ":";
    if (!qualified && close + 1 < t.size() && t[close + 1].text == "{") {
      *body = close + 1;
      return i;
    }
    // `Class<T>::name(...) {` at file or namespace scope: a member defined out of its class.
    if (qualified && member == t.size() && i > 1 && t[i - 2].text == ":" && body_after(close) < t.size())
      member = i, member_body = body_after(close);
  }
  if (member < t.size()) *body = member_body;
  return member;
}

size_t MemberObject(const std::vector<Tok>& t, size_t i) {
  if (i >= t.size() || !FollowsMemberAccess(t, i)) return t.size();
  const size_t operator_tokens = t[i - 1].text == "." ? 1 : 2;
  if (i < operator_tokens + 1) return t.size();  // `.x` at the start: no object
  const size_t object = i - operator_tokens - 1;
  return t[object].ident ? object : t.size();
}

bool Calls(const std::vector<Tok>& t, size_t from, size_t to, const std::set<std::string>& names) {
  for (size_t i = from; i <= to && i < t.size(); ++i) {
    if (!(t[i].ident && names.count(t[i].text) && i + 1 < t.size() && (t[i + 1].text == "(" || t[i + 1].text == "<")))
      continue;
    // `object.method(` or `object->method(` listed as "object.method": that object's method reaches nothing.
    const size_t object = MemberObject(t, i);
    if (object < t.size() && names.count(t[object].text + "." + t[i].text)) continue;
    return true;
  }
  return false;
}

size_t AfterAttributes(const std::vector<Tok>& t, size_t s, size_t e) {
  while (s + 1 < e && s + 1 < t.size()) {
    if (t[s].text == "[" && t[s + 1].text == "[") s = Match(t, s) + 1;
    else if ((t[s].text == "__attribute__" || t[s].text == "alignas") && t[s + 1].text == "(") s = Match(t, s + 1) + 1;
    else break;
  }
  return s;
}

size_t DeclaredNameToken(const std::vector<Tok>& t, size_t s, size_t e) {
  static const std::set<std::string> kStatements = {"return", "delete", "throw", "goto", "if", "for", "while",
                                                    "switch", "do", "else", "case", "using", "typedef"};
  s = AfterAttributes(t, s, e);
  if (s >= e || e >= t.size()) return 0;
  size_t k = s;  // the type's tokens: names, `::`, `*`, `&`, `<...>`, `,` inside them
  while (k < e && (t[k].ident || t[k].text == ":" || t[k].text == "*" || t[k].text == "&" || t[k].text == "<" ||
                   t[k].text == ">" || (t[k].text == "," && k > s && t[k - 1].text != ")")))
    ++k;
  const size_t name = k - 1;
  const bool declares = k > s + 1 && t[name].ident && t[name - 1].text != ":" && !kStatements.count(t[s].text) && t[s].ident &&
                        (t[k].text == "=" || t[k].text == "(" || t[k].text == "{" || t[k].text == "[" ||
                         t[k].text == ";" || t[k].text == ",");
  return declares ? name : 0;
}

std::string RenameTokens(const std::string& text, const std::vector<std::pair<std::string, std::string>>& renames,
                         RenameScope scope) {
  if (renames.empty()) return text;
  const std::vector<Tok> t = Scan(text);
  std::string out;
  size_t at = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (!t[i].ident || (!scope.members && FollowsMemberAccess(t, i)) ||
        (scope.calls_only && !(i + 1 < t.size() && t[i + 1].text == "(")))
      continue;
    for (const auto& [from, to] : renames)
      if (t[i].text == from) {
        out += text.substr(at, t[i].begin - at) + to;
        at = t[i].end;
        break;
      }
  }
  return out + text.substr(at);
}

std::string LoopJumpsAsReturn(const std::string& body) {
  const std::vector<Tok> t = Scan(body);
  // The loops inside the body, and its switches (whose `break` is theirs), as token spans.
  std::vector<std::pair<size_t, size_t>> loops, switches;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].ident && (t[i].text == "for" || t[i].text == "while" || t[i].text == "do")) loops.push_back({i, StatementEnd(t, i)});
    if (t[i].ident && t[i].text == "switch") switches.push_back({i, StatementEnd(t, i)});
  }
  auto inside = [](const std::vector<std::pair<size_t, size_t>>& spans, size_t i) {
    for (const auto& [first, last] : spans)
      if (i > first && i <= last) return true;
    return false;
  };
  std::string out = body;
  for (size_t i = t.size(); i-- > 0;) {
    if (!t[i].ident || (t[i].text != "continue" && t[i].text != "break") || inside(loops, i)) continue;
    if (t[i].text == "break" && inside(switches, i)) continue;
    out.replace(t[i].begin, t[i].end - t[i].begin, t[i].text == "break" ? "return cuco_program::loop_ended()" : "return");
  }
  return out;
}

}  // namespace cuco::scaffold_internal
