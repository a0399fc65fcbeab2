#include "scaffold/print_condition.h"

#include <set>
#include <vector>

#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

namespace {

// Tokens that make what follows them in a statement conditional.
bool IsConditionWord(const Tok& t) {
  static const std::set<std::string> words = {"if", "else", "switch", "case", "default", "catch", "?"};
  return words.count(t.text) > 0;
}

// The `(` matching the `)` at `close`, or t.size().
size_t OpeningParen(const std::vector<Tok>& t, size_t close) {
  int depth = 0;
  for (size_t i = close + 1; i-- > 0;) {
    if (t[i].text == ")") ++depth;
    if (t[i].text == "(" && --depth == 0) return i;
  }
  return t.size();
}

// Whether tokens [from, to) hold a condition word.
bool AnyConditionWord(const std::vector<Tok>& t, size_t from, size_t to) {
  for (size_t i = from; i < to && i < t.size(); ++i)
    if (IsConditionWord(t[i])) return true;
  return false;
}

}  // namespace

bool PrintedUnderACondition(const std::string& code, const PrintCall& print) {
  const std::vector<Tok> t = Scan(code);
  size_t p = 0;
  while (p < t.size() && !(t[p].line == print.line && t[p].text == print.callee)) ++p;
  if (p == t.size()) return true;
  // The print's own statement: a brace-less branch (`if (bad) printf(...);`, `else puts(...)`) or a `?:`.
  size_t end = p;
  while (end < t.size() && t[end].text != ";") ++end;
  size_t s = StatementStart(t, p);
  if (AnyConditionWord(t, s, end)) return true;
  // Each block around it, out to the function's body.
  int inner = 0;  // blocks closed between i and the print
  for (size_t i = s; i-- > 0;) {
    if (t[i].text == "}") ++inner;
    if (t[i].text != "{") continue;
    if (inner > 0) {
      --inner;
      continue;
    }
    if (i > 0 && t[i - 1].text == ")") {
      const size_t open = OpeningParen(t, i - 1);
      if (open == 0 || open == t.size()) return false;
      const std::string& head = t[open - 1].text;
      if (head == "if" || head == "switch" || head == "catch") return true;
      if (head != "for" && head != "while") return false;  // a function's (or lambda's) body
      i = open - 1;                                        // a loop: on to the statement holding it
    }
    const size_t block = StatementStart(t, i);  // `else {`, `case 1: {`, `if (x) for (...) {`
    if (AnyConditionWord(t, block, i)) return true;
    i = block;
  }
  return false;
}

bool InDirective(const std::string& code, int line) {
  const std::vector<std::string> lines = SplitLines(code);
  if (line < 1 || static_cast<size_t>(line) > lines.size()) return false;
  size_t first = static_cast<size_t>(line) - 1;  // the directive's first line: back over continued lines
  while (first > 0 && !lines[first - 1].empty() && lines[first - 1].back() == '\\') --first;
  const size_t hash = lines[first].find_first_not_of(" \t");
  return hash != std::string::npos && lines[first][hash] == '#';
}

}  // namespace cuco::scaffold_internal
