// Prompt text: the one copy of the small text helpers that the prompt texts and the code that
// assembles prompts (propose/, transform/) share, until util/ has a source-text helper. Pure
// functions of their arguments.
#pragma once

#include <string>
#include <vector>

namespace cuco::prompt_text {

// `s` without leading and trailing whitespace (space, \t, \n, \v, \f, \r).
std::string Trim(const std::string& s);

// The lines of `text` without their '\n'; a final newline does not start an empty line.
std::vector<std::string> SplitLines(const std::string& text);

// `code` in a Markdown code fence tagged `lang` ("" : untagged), ending in a newline.
std::string Fence(const std::string& lang, const std::string& code);

}  // namespace cuco::prompt_text
