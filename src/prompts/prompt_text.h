// Prompt text: the small text helpers that the prompt texts and the code that
// assembles prompts (propose/, transform/) share. Pure
// functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "util/source_text.h"

namespace cuco::prompt_text {

using ::cuco::Trim;  // util/source_text.h: without leading and trailing whitespace

// The lines of `text` without their '\n'; a final newline does not start an empty line.
std::vector<std::string> SplitLines(const std::string& text);

// `code` in a Markdown code fence tagged `lang` ("" : untagged), ending in a newline.
std::string Fence(const std::string& lang, const std::string& code);

}  // namespace cuco::prompt_text
