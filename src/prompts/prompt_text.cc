#include "prompts/prompt_text.h"

namespace cuco::prompt_text {

std::string Fence(const std::string& lang, const std::string& code) {
  std::string s = "```" + lang + "\n" + code;
  if (!code.empty() && code.back() != '\n') s += '\n';
  return s + "```\n";
}

}  // namespace cuco::prompt_text
