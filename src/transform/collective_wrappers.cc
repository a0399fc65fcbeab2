#include "transform/collective_wrappers.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <regex>

#include "util/source_text.h"

namespace cuco::transform_internal {
namespace {

bool Blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

size_t SpaceBack(const std::string& m, size_t end) {
  while (end > 0 && Blank(m[end - 1])) --end;
  return end;
}

// The identifier ending at `end` (spaces before `end` skipped); *begin where it starts.
std::string WordBefore(const std::string& m, size_t end, size_t* begin) {
  end = SpaceBack(m, end);
  size_t b = end;
  while (b > 0 && IsCIdentChar(m[b - 1])) --b;
  *begin = b;
  return m.substr(b, end - b);
}

// Where the code before a body's `{` at `open` ends once a function's qualifiers are skipped
// (`) const noexcept override {`, `) mutable {`, `) -> int {`).
size_t BeforeQualifiers(const std::string& m, size_t open) {
  static const std::set<std::string> kQualifiers = {"const", "noexcept", "override", "final", "mutable", "volatile"};
  size_t e = SpaceBack(m, open);
  for (;;) {
    size_t b = 0;
    const std::string w = WordBefore(m, e, &b);
    if (w.empty()) return e;
    if (kQualifiers.count(w) > 0) {
      e = SpaceBack(m, b);
      continue;
    }
    // A trailing return type: `) -> T {`.
    size_t arrow = SpaceBack(m, b);
    while (arrow > 0 && (IsCIdentChar(m[arrow - 1]) || m[arrow - 1] == ':' || m[arrow - 1] == '*' || Blank(m[arrow - 1])))
      --arrow;
    if (arrow >= 2 && m.compare(arrow - 2, 2, "->") == 0) return SpaceBack(m, arrow - 2);
    return e;
  }
}

bool KeywordBeforeParen(const std::string& w) {
  return w == "if" || w == "for" || w == "while" || w == "switch" || w == "catch" || w == "sizeof" || w == "return";
}

// The parameter's name: `const float* data` -> data, `size_t n = 0` -> n, `int v[4]` -> v.
std::string ParamName(const std::string& param) {
  std::string p = param;
  int depth = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '(' || p[i] == '<' || p[i] == '[') ++depth;
    else if (p[i] == ')' || p[i] == '>' || p[i] == ']') --depth;
    else if (p[i] == '=' && depth == 0) {
      p.resize(i);
      break;
    }
  }
  p = Trim(p);
  if (!p.empty() && p.back() == ']') {
    const size_t open = p.rfind('[');
    p = Trim(p.substr(0, open == std::string::npos ? 0 : open));
  }
  size_t b = p.size();
  while (b > 0 && IsCIdentChar(p[b - 1])) --b;
  return b > 0 || p.find(' ') != std::string::npos ? p.substr(b) : "";  // a lone word is a type
}

struct Enclosing {
  std::string name;
  std::vector<std::string> params;
  size_t body = 0;  // its `{`
};

// Whether the body at `open` (masked) only communicates: it launches no kernel and calls nothing but
// NCCL, the CUDA runtime, MPI, check macros (upper case) and members (`this->stream()`), so a layer
// function computing before its collective is no wrapper of it.
bool OnlyCommunicates(const std::string& m, size_t open) {
  int depth = 0;
  size_t close = open;
  for (; close < m.size(); ++close) {
    if (m[close] == '{') ++depth;
    else if (m[close] == '}' && --depth == 0) break;
  }
  const std::string body = m.substr(open, close - open);
  if (body.find("<<<") != std::string::npos) return false;
  static const std::regex kCall(R"(([A-Za-z_]\w*)\s*\()");
  static const std::set<std::string> kAllowed = {"if", "for", "while", "switch", "return", "sizeof", "static_cast",
                                                 "reinterpret_cast", "const_cast", "printf", "fprintf", "exit",
                                                 "abort", "assert", "throw"};
  for (auto it = std::sregex_iterator(body.begin(), body.end(), kCall); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str();
    const size_t at = static_cast<size_t>(it->position(1));
    const size_t before = SpaceBack(body, at);
    const bool member = (before >= 1 && body[before - 1] == '.') || (before >= 2 && body.compare(before - 2, 2, "->") == 0);
    const bool macro = std::all_of(name.begin(), name.end(), [](char c) { return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
    if (member || macro || kAllowed.count(name) || name.rfind("nccl", 0) == 0 || name.rfind("cuda", 0) == 0 ||
        name.rfind("MPI_", 0) == 0)
      continue;
    return false;
  }
  return true;
}

// The innermost function or named lambda (`auto f = [&](float* y) {`) whose body holds `pos` (`m`: the
// text, comments and literals blanked).
std::optional<Enclosing> EnclosingFunction(const std::string& m, size_t pos) {
  int depth = 0;
  for (size_t i = pos; i-- > 0;) {
    if (m[i] == '}') {
      ++depth;
      continue;
    }
    if (m[i] != '{') continue;
    if (depth > 0) {
      --depth;
      continue;
    }
    const size_t e = BeforeQualifiers(m, i);
    if (e == 0 || m[e - 1] != ')') continue;  // a class, namespace or plain block
    const size_t open = OpenerOf(m, e - 1);
    if (open == std::string::npos) return std::nullopt;
    Enclosing f;
    f.body = i;
    for (const std::string& p : SplitArgs(m.substr(open + 1, e - 2 - open))) f.params.push_back(ParamName(p));
    const size_t before = SpaceBack(m, open);
    if (before > 0 && m[before - 1] == ']') {  // a lambda: named by the variable it initialises
      const size_t cap = OpenerOf(m, before - 1);
      const size_t eq = cap == std::string::npos ? 0 : SpaceBack(m, cap);
      if (eq == 0 || m[eq - 1] != '=') return std::nullopt;
      size_t b = 0;
      f.name = WordBefore(m, eq - 1, &b);
      return f.name.empty() ? std::nullopt : std::optional<Enclosing>(f);
    }
    size_t b = 0;
    f.name = WordBefore(m, open, &b);
    if (f.name.empty()) return std::nullopt;
    if (KeywordBeforeParen(f.name)) continue;  // an if, for or while body: the function is further out
    return f;
  }
  return std::nullopt;
}

// Whether the identifier at [at, end) followed by `(` at `open` is a call, not a definition or declaration.
bool IsCall(const SeedSource& src, size_t at, size_t open) {
  const std::string& m = src.masked();
  const size_t close = src.MatchParen(open);
  if (close == std::string::npos) return false;
  // A definition: `) const {`, `) : member(x) {` (a constructor's), `) -> T {`.
  size_t after = close + 1;
  for (;;) {
    while (after < m.size() && Blank(m[after])) ++after;
    size_t w = after;
    while (w < m.size() && IsCIdentChar(m[w])) ++w;
    const std::string word = m.substr(after, w - after);
    if (word != "const" && word != "noexcept" && word != "override" && word != "final" && word != "mutable") break;
    after = w;
  }
  if (after < m.size() && (m[after] == '{' || (m[after] == ':' && (after + 1 >= m.size() || m[after + 1] != ':'))))
    return false;
  if (m.compare(after, 2, "->") == 0) return false;
  size_t e = SpaceBack(m, at);
  if (e >= 2 && m.compare(e - 2, 2, "->") == 0) return true;
  if (e >= 1 && m[e - 1] == '.') return true;
  while (e >= 2 && m.compare(e - 2, 2, "::") == 0) {  // Class::f( : what comes before the class decides
    size_t b = 0;
    WordBefore(m, e - 2, &b);
    e = SpaceBack(m, b);
  }
  if (e == 0) return false;
  if (IsCIdentChar(m[e - 1])) {
    size_t b = 0;
    const std::string w = WordBefore(m, e, &b);
    return w == "return" || w == "else" || w == "do";
  }
  return m[e - 1] != '*' && m[e - 1] != '&' && m[e - 1] != '>';  // `float* f(`, `vector<int> f(`: declarations
}

// A call in masked text: its name, the name's first byte and its `(`.
struct NamedCall {
  std::string name;
  size_t at = 0, open = 0;
};

// Each call in `m` (masked) of one of `names`.
std::vector<NamedCall> CallsOf(const std::string& m, const std::set<std::string>& names) {
  std::vector<NamedCall> out;
  for (size_t i = 0; i < m.size(); ++i) {
    if (!IsCIdentStart(m[i]) || (i > 0 && IsCIdentChar(m[i - 1]))) continue;
    size_t e = i;
    while (e < m.size() && IsCIdentChar(m[e])) ++e;
    size_t open = e;
    while (open < m.size() && Blank(m[open])) ++open;
    if (names.count(m.substr(i, e - i)) && open < m.size() && m[open] == '(') out.push_back({m.substr(i, e - i), i, open});
    i = e - 1;
  }
  return out;
}

}  // namespace

std::vector<CollectiveWrapper> FindCollectiveWrappers(const std::string& text, const std::string& file,
                                                      const std::set<std::string>& collectives,
                                                      const std::function<bool(size_t)>& in_block) {
  const std::string m = BlankCommentsAndLiteralContents(text);
  std::vector<CollectiveWrapper> out;
  for (const auto& [name, i, open] : CallsOf(m, collectives)) {
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t k = open; k < m.size() && close == std::string::npos; ++k) {
      if (m[k] == '(') ++depth;
      else if (m[k] == ')' && --depth == 0) close = k;
    }
    if (close == std::string::npos) break;
    const std::vector<std::string> args = SplitArgs(text.substr(open + 1, close - open - 1));
    const std::string first = args.empty() ? "" : WithoutCasts(args[0]);
    const std::optional<Enclosing> f = first.empty() ? std::nullopt : EnclosingFunction(m, i);
    if (!f || !OnlyCommunicates(m, f->body)) continue;
    for (size_t k = 0; k < f->params.size(); ++k) {
      if (f->params[k] != first) continue;
      bool known = false;
      for (const CollectiveWrapper& w : out) known = known || (w.name == f->name && w.param == k);
      if (!known) out.push_back({f->name, k, name, file + ":" + std::to_string(LineOf(text, i)), in_block(i)});
      break;
    }
  }
  return out;
}

std::vector<std::string> FunctionsCalling(const std::string& text, const std::set<std::string>& names) {
  const std::string m = BlankCommentsAndLiteralContents(text);
  std::vector<std::string> out;
  for (const auto& [name, i, open] : CallsOf(m, names))
    if (const std::optional<Enclosing> f = EnclosingFunction(m, i);
        f && std::find(out.begin(), out.end(), f->name) == out.end())
      out.push_back(f->name);
  return out;
}

std::vector<SeedCall> WrapperCalls(const SeedSource& src, const CollectiveWrapper& w) {
  const std::string& m = src.masked();
  std::vector<SeedCall> out;
  for (size_t at = m.find(w.name); at != std::string::npos; at = m.find(w.name, at + 1)) {
    const size_t end = at + w.name.size();
    if ((at > 0 && IsCIdentChar(m[at - 1])) || (end < m.size() && IsCIdentChar(m[end])) || !src.InBlock(at)) continue;
    size_t open = end;
    while (open < m.size() && Blank(m[open])) ++open;
    if (open >= m.size() || m[open] != '(' || !IsCall(src, at, open)) continue;
    SeedCall c;
    c.name = w.name;
    c.name_pos = at;
    c.name_end = end;
    c.open = open;
    c.close = src.MatchParen(open);
    c.line = src.LineOf(at);
    c.in_block = true;
    out.push_back(c);
  }
  return out;
}

}  // namespace cuco::transform_internal
