#include "util/text.h"

namespace cuco {

std::string TomlQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string TomlLiteralOrQuoted(const std::string& s) {
  if (s.find('\'') == std::string::npos && s.find('\n') == std::string::npos) return "'" + s + "'";
  return TomlQuoted(s);
}

std::string CapText(const std::string& s, size_t max) {
  if (s.size() <= max) return s;
  const std::string note = "\n[... " + std::to_string(s.size()) + " characters in all; cut here]\n";
  size_t keep = max > note.size() ? max - note.size() : 0;
  size_t nl = s.rfind('\n', keep);
  if (nl != std::string::npos && nl + 200 > keep) keep = nl;
  return s.substr(0, keep) + note;
}

}  // namespace cuco
