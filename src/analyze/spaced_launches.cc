#include "analyze/spaced_launches.h"

#include <cctype>

#include "util/source_text.h"

namespace cuco::analyze_internal {

namespace {

bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// From `at` (the first `>` of `>>`), the `>`s of the closing chevrons, spaces between them
// allowed: the position of the third, or npos where they are not three followed by `(`.
size_t ThirdCloser(const std::string& code, size_t at) {
  size_t k = at + 2;
  while (k < code.size() && Space(code[k])) ++k;
  if (k >= code.size() || code[k] != '>') return std::string::npos;
  size_t after = k + 1;
  while (after < code.size() && Space(code[after])) ++after;
  return after < code.size() && code[after] == '(' ? k : std::string::npos;
}

// Moves the spaces of [first, third] behind its three chevrons (`<< <` -> `<<< `).
void Join(std::string& text, size_t first, size_t third, char chevron) {
  const std::string spaces = text.substr(first + 2, third - first - 2);
  text.replace(first, third - first + 1, std::string(3, chevron) + spaces);
}

}  // namespace

std::string WithLaunchChevronsJoined(const std::string& text) {
  const std::string code = BlankCommentsAndLiterals(text);
  std::string out = text;
  for (size_t i = 0; i + 2 < code.size(); ++i) {
    if (code[i] != '<' || code[i + 1] != '<' || (i > 0 && code[i - 1] == '<')) continue;
    size_t k = i + 2;
    while (k < code.size() && Space(code[k])) ++k;
    if (k >= code.size() || code[k] != '<' || k == i + 2) continue;  // `<<<` as written, or a shift
    size_t before = i;  // the launch's kernel (or its template arguments' `>`) comes before it
    while (before > 0 && Space(code[before - 1])) --before;
    if (before == 0) continue;
    const char c = code[before - 1];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '>')) continue;
    size_t word = before;
    while (word > 0 && (std::isalnum(static_cast<unsigned char>(code[word - 1])) || code[word - 1] == '_')) --word;
    if (code.compare(word, before - word, "operator") == 0) continue;
    // Its closing chevrons: the first `>>` after it at the depth of its own brackets.
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t j = k + 1; j + 1 < code.size() && close == std::string::npos; ++j) {
      const char d = code[j];
      if (d == '(' || d == '[' || d == '{') ++depth;
      else if (d == ')' || d == ']' || d == '}') {
        if (--depth < 0) break;
      } else if (d == ';') break;
      else if (depth == 0 && d == '>' && code[j + 1] == '>') close = j;
    }
    if (close == std::string::npos) continue;
    const size_t third = ThirdCloser(code, close);
    if (third == std::string::npos) continue;
    Join(out, i, k, '<');
    if (third > close + 2) Join(out, close, third, '>');  // `>>>` as written stays
    i = third;
  }
  return out;
}

}  // namespace cuco::analyze_internal
