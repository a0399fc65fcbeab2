#include "analyze/param_access.h"

#include <cctype>

#include "util/source_text.h"

namespace cuco {
namespace {

size_t SkipSpace(const std::string& s, size_t i) {
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  return i;
}

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

}  // namespace cuco
