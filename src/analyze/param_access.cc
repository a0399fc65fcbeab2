#include "analyze/param_access.h"

#include <cctype>

#include "util/source_text.h"

namespace cuco {
namespace {

// From an opening bracket at i, the offset after its matching close; npos when unbalanced.
size_t SkipBalanced(const std::string& s, size_t i) {
  const char open = s[i], close = open == '[' ? ']' : ')';
  int depth = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == open) ++depth;
    else if (s[i] == close && --depth == 0) return i + 1;
  }
  return std::string::npos;
}

}  // namespace

ParamAccess AccessAt(const std::string& s, size_t begin, size_t end) {
  const ParamAccess both{true, true}, read{true, false}, write{false, true};
  if (end > s.size() || begin >= end) return both;
  // Before: unary * (a dereference) or & (address taken), ++/-- (pre-increment of the element).
  size_t b = begin;
  while (b > 0 && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  bool deref = false, address_of = false;
  if (b > 0 && (s[b - 1] == '*' || s[b - 1] == '&')) {
    size_t p = b - 1;
    while (p > 0 && std::isspace(static_cast<unsigned char>(s[p - 1]))) --p;
    const bool binary = p > 0 && (IsCIdentChar(s[p - 1]) || s[p - 1] == ')' || s[p - 1] == ']');
    if (!binary) {
      if (s[b - 1] == '&' && !(p > 0 && s[p - 1] == '&')) address_of = true;  // &p or &p[i]: escapes
      if (s[b - 1] == '*') deref = true;
    }
  }
  if (address_of) return both;
  const bool pre_incdec = b >= 2 && ((s[b - 1] == '+' && s[b - 2] == '+') || (s[b - 1] == '-' && s[b - 2] == '-'));
  // After: subscripts and member accesses, then the operator that decides.
  size_t i = SkipSpace(s, end);
  bool indexed = false;
  while (i < s.size()) {
    if (s[i] == '[') {
      i = SkipBalanced(s, i);
      if (i == std::string::npos) return both;
      indexed = true;
    } else if (indexed && s[i] == '.' && i + 1 < s.size() && IsCIdentChar(s[i + 1])) {
      ++i;
      while (i < s.size() && IsCIdentChar(s[i])) ++i;
    } else {
      break;
    }
    i = SkipSpace(s, i);
  }
  if (!indexed && !deref) return both;  // p itself: arithmetic, a call argument, an alias
  if (pre_incdec) return both;
  if (i >= s.size()) return read;
  const char c = s[i], n = i + 1 < s.size() ? s[i + 1] : '\0', n2 = i + 2 < s.size() ? s[i + 2] : '\0';
  if (c == '=' && n != '=') return write;
  if ((c == '+' || c == '-') && n == c) return both;  // p[i]++
  if (n == '=' && (c == '+' || c == '-' || c == '*' || c == '/' || c == '%' || c == '&' || c == '|' || c == '^'))
    return both;
  if ((c == '<' || c == '>') && n == c && n2 == '=') return both;  // <<=, >>=
  return read;
}

bool KernelParamsFromText(const std::string& s, const std::string& name, KernelParams* out) {
  for (size_t at = s.find(name); at != std::string::npos; at = s.find(name, at + 1)) {
    if ((at > 0 && IsCIdentChar(s[at - 1])) || (at + name.size() < s.size() && IsCIdentChar(s[at + name.size()]))) continue;
    size_t open = SkipSpace(s, at + name.size());
    if (open >= s.size() || s[open] != '(') continue;
    // A definition: `__global__` in its declaration (back to the last `;`, `}` or `{`), a body after.
    size_t decl = at;
    while (decl > 0 && s[decl - 1] != ';' && s[decl - 1] != '}' && s[decl - 1] != '{') --decl;
    if (s.substr(decl, at - decl).find("__global__") == std::string::npos) continue;
    const size_t close = SkipBalanced(s, open);
    if (close == std::string::npos) return false;
    size_t body = SkipSpace(s, close);
    if (body >= s.size() || s[body] != '{') continue;
    int depth = 0;
    size_t end = body;
    for (; end < s.size(); ++end) {
      if (s[end] == '{') ++depth;
      if (s[end] == '}' && --depth == 0) break;
    }
    // The parameters: split at top-level commas; a name is the last identifier.
    std::vector<std::string> names;
    size_t from = open + 1;
    int paren = 0;
    for (size_t i = open + 1; i < close; ++i) {
      if (s[i] == '(' || s[i] == '<') ++paren;
      if (s[i] == ')' || s[i] == '>') --paren;
      if ((s[i] == ',' && paren == 0) || i + 1 == close) {
        const size_t stop = s[i] == ',' && paren == 0 ? i : close;
        const std::string p = s.substr(from, stop - from);
        size_t e = p.size();
        while (e > 0 && !IsCIdentChar(p[e - 1])) --e;
        size_t b = e;
        while (b > 0 && IsCIdentChar(p[b - 1])) --b;
        const int index = static_cast<int>(names.size());
        names.push_back(p.substr(b, e - b));
        const size_t star = p.find('*');
        if (star != std::string::npos) {
          out->pointers.push_back(index);
          if (p.substr(0, star).find("const") != std::string::npos) out->const_pointers.push_back(index);
        }
        from = i + 1;
      }
    }
    out->names = names;
    out->body_begin = body, out->body_end = end;
    for (int index : out->pointers) {
      const std::string& n = names[static_cast<size_t>(index)];
      ParamAccess acc;
      bool seen = false;
      for (size_t r = s.find(n, body); r != std::string::npos && r < end; r = s.find(n, r + 1)) {
        if ((r > 0 && IsCIdentChar(s[r - 1])) || (r + n.size() < s.size() && IsCIdentChar(s[r + n.size()]))) continue;
        seen = true;
        acc |= AccessAt(s, r, r + n.size());
      }
      if (acc.read || !seen) out->read.push_back(index);
      if (acc.write || !seen) out->written.push_back(index);
    }
    return true;
  }
  return false;
}

}  // namespace cuco
