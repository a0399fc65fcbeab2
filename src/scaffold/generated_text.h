// Lines of the files cuco init writes: text made safe for a one-line // or # comment, and TOML
// `key = value` lines whose trailing comments line up.
//
// Contract: CommentText's result holds no newline, tab or trailing backslash (it cannot end or
// continue the comment it is put in) and is at most `width` characters; KeyLine's result is one
// line ending in '\n'.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuco::scaffold_internal {

// One line, at most `width` characters, safe inside a // comment.
std::string CommentText(std::string s, size_t width = 110);

// A printed format as the program's source writes it (newlines as \n).
std::string EscapeNewlines(const std::string& s);

// ["a", "b"]: a TOML array of basic strings.
std::string TomlList(const std::vector<std::string>& v);

// `key = value` padded so that a trailing `# comment` lines up (no comment: the line as is).
std::string KeyLine(const std::string& kv, const std::string& comment = "");

}  // namespace cuco::scaffold_internal
