#include "prompts/prompt_text.h"

#include <cctype>
#include <sstream>

namespace cuco::prompt_text {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) out.push_back(line);
  return out;
}

std::string Fence(const std::string& lang, const std::string& code) {
  std::string s = "```" + lang + "\n" + code;
  if (!code.empty() && code.back() != '\n') s += '\n';
  return s + "```\n";
}

}  // namespace cuco::prompt_text
