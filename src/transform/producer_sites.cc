#include "transform/producer_sites.h"

#include <cctype>
#include <regex>
#include <set>

#include "util/source_text.h"

namespace cuco::transform_internal {
namespace {

bool Space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// A word that begins a statement which is not a plain call.
bool ControlWord(const std::string& w) {
  static const std::set<std::string> kWords = {"if",   "else",    "for",  "while", "do",       "switch", "case",
                                               "default", "return", "goto", "break", "continue", "try",    "catch"};
  return kWords.count(w) > 0;
}

// Where the statement holding `pos` begins: one past the nearest `;`, `{` or `}` before it outside
// parentheses and brackets (*stop: that byte's position, npos at the start of the text). A call
// wrapping `pos` (NCCLCHECK(...)) is part of the statement; npos when `pos` is inside any other
// unclosed parenthesis (a for header, an if or while condition) or bracket.
size_t StatementStart(const std::string& m, size_t pos, size_t* stop) {
  int depth = 0;
  for (size_t i = pos; i-- > 0;) {
    const char ch = m[i];
    if (ch == ')' || ch == ']') ++depth;
    else if (ch == '(' || ch == '[') {
      if (--depth >= 0) continue;
      size_t e = i;
      while (e > 0 && Space(m[e - 1])) --e;
      size_t b = e;
      while (b > 0 && IsCIdentChar(m[b - 1])) --b;
      if (ch == '[' || b == e || ControlWord(m.substr(b, e - b))) return std::string::npos;
      depth = 0;  // the wrapping call's name: go on before it
      i = b;
    } else if (depth == 0 && (ch == ';' || ch == '{' || ch == '}')) {
      *stop = i;
      return i + 1;
    }
  }
  *stop = std::string::npos;
  return 0;
}

size_t SkipSpace(const std::string& m, size_t i, size_t end) {
  while (i < end && Space(m[i])) ++i;
  return i;
}

// The statement's first word, when it begins with one.
std::string FirstWord(const std::string& m, size_t at) {
  size_t e = at;
  while (e < m.size() && IsCIdentChar(m[e])) ++e;
  return m.substr(at, e - at);
}

std::string WithoutSpaces(const std::string& s) {
  std::string o;
  for (char ch : s)
    if (!Space(ch)) o += ch;
  return o;
}

// Whether `word` (a name or member chain, spaces removed) occurs in `code` (spaces removed) with no
// identifier character on either side.
bool MentionsWhole(const std::string& code, const std::string& word) {
  for (size_t at = code.find(word); at != std::string::npos; at = code.find(word, at + 1)) {
    const bool left = at > 0 && (IsCIdentChar(code[at - 1]) || code[at - 1] == '.' || code[at - 1] == '>');
    const size_t end = at + word.size();
    const bool right = end < code.size() && (IsCIdentChar(code[end]) || code[end] == '.' || code.compare(end, 2, "->") == 0);
    if (!left && !right) return true;
  }
  return false;
}

}  // namespace

std::optional<ProducerSite> FindProducerSite(const SeedSource& src, const SeedCall& c, std::string* why) {
  const std::string& m = src.masked();
  const auto args = src.Args(c);
  const std::string buffer = args.empty() ? "" : Trim(args[0]);
  static const std::regex kPlain(R"(^[A-Za-z_]\w*(\s*(\.|->)\s*[A-Za-z_]\w*)*$)");
  if (!std::regex_match(buffer, kPlain)) {
    *why = "its buffer `" + buffer + "` is not a plain name";
    return std::nullopt;
  }
  size_t stop = 0;
  const size_t coll = StatementStart(m, c.name_pos, &stop);
  if (coll == std::string::npos || stop == std::string::npos) {
    *why = "it is not a statement of its own";
    return std::nullopt;
  }
  const size_t coll_first = SkipSpace(m, coll, c.name_pos);
  if (ControlWord(FirstWord(m, coll_first))) {
    *why = "it is the body of `" + FirstWord(m, coll_first) + "` without braces";
    return std::nullopt;
  }
  if (m[stop] != ';') {
    *why = m[stop] == '{' ? "no statement comes before it in its braces" : "the code before it is a braced block";
    return std::nullopt;
  }
  size_t prev_stop = 0;
  const size_t prev = StatementStart(m, stop, &prev_stop);
  if (prev == std::string::npos) {
    *why = "the statement before it is not a plain statement";
    return std::nullopt;
  }
  const size_t first = SkipSpace(m, prev, stop);
  const std::string code = m.substr(first, stop - first);
  const std::string word = FirstWord(m, first);
  if (word.empty() || ControlWord(word) || code.find('#') != std::string::npos ||
      code.find("<<<") != std::string::npos || code.find('(') == std::string::npos) {
    *why = "the statement before it (line " + std::to_string(src.LineOf(first)) + ") is not a call";
    return std::nullopt;
  }
  if (!MentionsWhole(WithoutSpaces(code), WithoutSpaces(buffer))) {
    *why = "the statement before it (line " + std::to_string(src.LineOf(first)) + ") does not name `" + buffer + "`";
    return std::nullopt;
  }
  if (!src.InBlock(first) || !src.InBlock(c.name_pos) || src.BraceDepth(first) == 0) {
    *why = "the statement before it is not in the same EVOLVE block";
    return std::nullopt;
  }
  for (const auto& [b, e] : src.blocks())
    if ((first >= b && first < e) != (c.name_pos >= b && c.name_pos < e)) {
      *why = "the statement before it is in another EVOLVE block";
      return std::nullopt;
    }
  ProducerSite site;
  site.buffer = buffer;
  site.producer_line = src.LineOf(first);
  const size_t line_start = src.LineStart(site.producer_line);
  if (line_start > (prev_stop == std::string::npos ? 0 : prev_stop) && SkipSpace(m, line_start, first) == first) {
    site.insert_at = line_start;
    site.indent = src.text().substr(line_start, first - line_start);
  } else {
    site.insert_at = prev;
  }
  return site;
}

}  // namespace cuco::transform_internal
