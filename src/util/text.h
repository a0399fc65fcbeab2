// Small text helpers shared by the stages that write files or prompts.
#pragma once

#include <cstddef>
#include <string>

namespace cuco {

// `s` as a TOML basic string: quoted, with '"', '\' and newlines escaped.
std::string TomlQuoted(const std::string& s);

// `s` as a TOML literal string ('...', nothing escaped: best for regexes) when it holds no quote
// or newline, else TomlQuoted(s).
std::string TomlLiteralOrQuoted(const std::string& s);

// At most `max` characters of `s`, cut at a line boundary when one is near, with a note saying
// how long it was.
std::string CapText(const std::string& s, size_t max);

}  // namespace cuco
