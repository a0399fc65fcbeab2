// Prompt text: what the prompt texts and the code that assembles prompts (propose/, transform/)
// share beyond util's text helpers (lines: util/source_text.h LinesOf; Trim). Pure functions of
// their arguments.
#pragma once

#include <string>

namespace cuco::prompt_text {

// `code` in a Markdown code fence tagged `lang` ("" : untagged), ending in a newline.
std::string Fence(const std::string& lang, const std::string& code);

}  // namespace cuco::prompt_text
