#include "scaffold/program_text.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace cuco::scaffold_internal {
namespace {

// C escapes of a string literal's body decoded (\n, \t, \", \\; others kept as the character).
std::string DecodeEscapes(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char e = body[++i];
    out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
  }
  return out;
}

// A preprocessor conditional's directive at a line's start; group 1 its name (`ifdef`, `endif`).
const std::regex& ConditionalDirective() {
  static const std::regex directive(R"(^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b)");
  return directive;
}

}  // namespace

size_t SkipLiteral(const std::string& t, size_t i) {
  const char q = t[i];
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') ++i;
    else if (t[i] == q || t[i] == '\n') return i + 1;
  }
  return t.size();
}

size_t MatchParen(const std::string& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size();) {
    if (t[i] == '"' || t[i] == '\'') {
      i = SkipLiteral(t, i);
      continue;
    }
    if (t[i] == '(') ++depth;
    if (t[i] == ')' && --depth == 0) return i;
    ++i;
  }
  return std::string::npos;
}

std::vector<std::string> StringLiterals(const std::string& t, size_t from, size_t to) {
  std::vector<std::string> out;
  bool joinable = false;
  for (size_t i = from; i < to && i < t.size();) {
    if (t[i] == '\'') {
      i = SkipLiteral(t, i);
      joinable = false;
      continue;
    }
    if (t[i] == '"') {
      const size_t end = SkipLiteral(t, i);
      std::string body = DecodeEscapes(t.substr(i + 1, end >= i + 2 ? end - i - 2 : 0));
      if (joinable) out.back() += body;
      else out.push_back(body);
      joinable = true;
      i = end;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(t[i]))) joinable = false;
    ++i;
  }
  return out;
}


std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string BlankLines(std::string text, const std::vector<std::pair<int, int>>& ranges, int first_line) {
  int line = first_line;
  for (char& c : text) {
    if (c == '\n') {
      ++line;
      continue;
    }
    for (const auto& [a, b] : ranges)
      if (line >= a && line <= b) c = ' ';
  }
  return text;
}

int UnbalancedConditional(const std::string& text, size_t begin, size_t end) {
  std::vector<int> open;  // the lines of the conditionals opened in the range, innermost last
  for (size_t at = begin; at < end && at < text.size();) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    std::smatch m;
    const std::string line = text.substr(at, eol - at);
    if (std::regex_search(line, m, ConditionalDirective())) {
      const std::string d = m[1].str();
      const int n = LineOf(text, at);
      if (d.rfind("if", 0) == 0) open.push_back(n);
      else if (open.empty()) return n;  // #elif, #else or #endif of a conditional opened before the range
      else if (d == "endif") open.pop_back();
    }
    at = eol + 1;
  }
  return open.empty() ? 0 : open.front();
}

std::pair<size_t, size_t> WithConditionalsWhole(const std::string& text, size_t begin, size_t end) {
  std::vector<std::vector<std::pair<size_t, size_t>>> conditionals;  // each: its directives' lines [start, end)
  std::vector<size_t> open;                                           // indices into conditionals
  for (size_t at = 0; at < text.size();) {
    const size_t eol = std::min(text.find('\n', at), text.size());
    std::smatch m;
    const std::string line = text.substr(at, eol - at);
    if (std::regex_search(line, m, ConditionalDirective())) {
      const std::string d = m[1].str();
      if (d.rfind("if", 0) == 0) {
        open.push_back(conditionals.size());
        conditionals.push_back({});
      }
      if (!open.empty()) conditionals[open.back()].push_back({at, eol});
      if (d == "endif" && !open.empty()) open.pop_back();
    }
    at = eol + 1;
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& lines : conditionals) {
      bool in = false, out = false;
      for (const auto& [s, e] : lines) (s >= begin && s < end ? in : out) = true;
      if (in && out && (lines.front().first < begin || lines.back().second > end)) {
        begin = std::min(begin, lines.front().first), end = std::max(end, lines.back().second);
        grew = true;
      }
    }
  }
  return {begin, end};
}

}  // namespace cuco::scaffold_internal
