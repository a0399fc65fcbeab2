#include "scaffold/generated_text.h"

#include <regex>

#include "util/text.h"

namespace cuco::scaffold_internal {

std::string CommentText(std::string s, size_t width) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  s = std::regex_replace(s, std::regex("  +"), " ");
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  while (!s.empty() && s.back() == '\\') s.pop_back();  // a trailing backslash would continue the comment
  return s;
}

std::string EscapeNewlines(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

std::string TomlList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + TomlQuoted(v[i]);
  return out + "]";
}

std::string KeyLine(const std::string& kv, const std::string& comment) {
  if (comment.empty()) return kv + "\n";
  std::string line = kv;
  if (line.size() < 26) line.resize(26, ' ');
  else line += "  ";
  return line + "# " + comment + "\n";
}

}  // namespace cuco::scaffold_internal
