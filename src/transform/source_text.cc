#include "transform/source_text.h"

#include <algorithm>
#include <cctype>

#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {

std::string NormalizeNewlines(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i)
    if (!(s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n')) out += s[i];
  return out;
}

std::string TailChars(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t from = s.size() - max;
  size_t nl = s.find('\n', from);
  if (nl != std::string::npos && nl < from + 200) from = nl + 1;
  return "[... " + std::to_string(from) + " characters before]\n" + s.substr(from);
}

bool IsIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool IsIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string BlankCommentsAndLiterals(const std::string& text) {
  std::string t = text;
  const size_t n = t.size();
  auto blank = [&](size_t from, size_t to) {
    for (size_t k = from; k < to && k < n; ++k)
      if (t[k] != '\n') t[k] = ' ';
  };
  size_t i = 0;
  while (i < n) {
    const char c = text[i];
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t e = text.find('\n', i);
      if (e == std::string::npos) e = n;
      blank(i, e);
      i = e;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      e = e == std::string::npos ? n : e + 2;
      blank(i, e);
      i = e;
    } else if (c == '"' && i > 0 && text[i - 1] == 'R' && (i < 2 || !IsIdent(text[i - 2]) || text[i - 2] == 'u' ||
                                                           text[i - 2] == 'U' || text[i - 2] == 'L' || text[i - 2] == '8')) {
      size_t open = text.find('(', i + 1);
      if (open == std::string::npos || open - i > 17) {  // not a raw string after all
        ++i;
        continue;
      }
      const std::string close = ")" + text.substr(i + 1, open - i - 1) + "\"";
      size_t e = text.find(close, open + 1);
      e = e == std::string::npos ? n : e + close.size();
      blank(i, e);
      i = e;
    } else if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(text[i - 1])) &&
                                           i + 1 < n && std::isxdigit(static_cast<unsigned char>(text[i + 1]))))) {
      // A string or character literal ('\'' between hex digits is a digit separator).
      size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      e = std::min(n, e + 1);
      blank(i, e);
      i = e;
    } else {
      ++i;
    }
  }
  return t;
}

bool HasEvolveBlocks(const std::string& code) {
  auto split = SplitEvolveBlocks(code, "code", /*require_blocks=*/false);
  return split.ok() && !split->blocks.empty();
}

}  // namespace cuco::transform_internal
