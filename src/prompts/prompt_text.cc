#include "prompts/prompt_text.h"

#include <cctype>
#include <sstream>

namespace cuco::prompt_text {

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
