// A guard in front of toml++ (Debian's libtomlplusplus-dev 3.3.0), which every cuco TOML reader
// uses. toml++ 3.3.0's whitespace classifier (is_non_ascii_horizontal_whitespace) reaches
// __builtin_unreachable -- undefined behaviour -- for most code points in U+00A1..U+0499,
// U+2C8E..U+3087 and U+FBF6..U+FEFE whenever it asks whether one is whitespace: outside strings
// and comments, inside a multi-line basic string right after a backslash, and inside strings when
// it scans an invalid value. Found by tests/fuzz/fuzz_workload and fuzz_run_config
// (docs/fuzzing.md). Such characters stay allowed in comments; in strings they must be written as
// \uXXXX escapes (other non-ASCII text, e.g. "—" or emoji, is not affected). A comment is a '#'
// outside every kind of TOML string, at the start of a line or after whitespace.
#pragma once

#include <string>

#include "util/status.h"

namespace cuco {

// True for the code points on which toml++ 3.3.0's whitespace classifier is undefined.
bool TomlppWhitespaceUndefined(char32_t c);

// Ok unless `text` holds such a code point outside a comment; then an error naming path:line, the
// code point and its escape. Call before toml::parse.
Status CheckTomlForParser(const std::string& text, const std::string& path);

}  // namespace cuco
