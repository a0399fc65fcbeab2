#include "util/text.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace cuco {

namespace {

// TOML forbids raw control characters other than tab in both string kinds.
bool IsTomlControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (u < 0x20 && c != '\t') || u == 0x7f;
}

}  // namespace

std::string TomlQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    if (IsTomlControl(c)) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string TomlLiteralOrQuoted(const std::string& s) {
  const bool literal_ok = std::none_of(s.begin(), s.end(), [](char c) { return c == '\'' || IsTomlControl(c); });
  return literal_ok ? "'" + s + "'" : TomlQuoted(s);
}

std::string CapText(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  const std::string note = "\n[... " + std::to_string(s.size()) + " characters in all; cut here]\n";
  size_t keep = max > note.size() ? max - note.size() : 0;
  size_t nl = s.rfind('\n', keep);
  if (nl != std::string::npos && nl + 200 > keep) keep = nl;
  return s.substr(0, keep) + note;
}

std::string TailChars(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  size_t from = s.size() - max;
  size_t nl = s.find('\n', from);
  if (nl != std::string::npos && nl < from + 200) from = nl + 1;
  return "[... " + std::to_string(from) + " characters before]\n" + s.substr(from);
}

std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  if (from.empty()) return text;
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n\r \t");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::vector<std::string> ClosestNames(const std::string& word, const std::vector<std::string>& candidates, size_t max) {
  const size_t limit = std::max<size_t>(1, (word.size() + 2) / 3);
  std::vector<std::pair<size_t, std::string>> close;  // a prefix match counts as distance 0
  for (const std::string& c : candidates) {
    if (c == word) continue;
    const size_t d = word.size() >= 3 && c.rfind(word, 0) == 0 ? 0 : EditDistance(word, c);
    if (d <= limit) close.emplace_back(d, c);
  }
  std::sort(close.begin(), close.end());
  std::vector<std::string> out;
  for (const auto& [d, c] : close)  // only the closest
    if (d == close.front().first && out.size() < max && std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  return out;
}

std::string QuotedAlternatives(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + ("'" + names[i] + "'");
  return out;
}

}  // namespace cuco
