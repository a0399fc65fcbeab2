// Small text helpers shared by the stages that write files or prompts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cuco {

// `s` as a TOML basic string: quoted, with '"', '\' and every control character but tab escaped
// (\n, \r, \b, \f, else \uXXXX), so that any string reads back as itself.
std::string TomlQuoted(const std::string& s);

// `s` as a TOML literal string ('...', nothing escaped: best for regexes) when it holds no quote
// or control character but tab, else TomlQuoted(s).
std::string TomlLiteralOrQuoted(const std::string& s);

// At most `max` characters of `s`, cut at a line boundary when one is near, with a note saying
// how long it was.
std::string CapText(const std::string& s, size_t max);

// The last `max` characters of `s`, from a line start when one is near, after a note saying how
// many characters came before ("[... 1234 characters before]"); `s` itself when it fits. (CapText
// keeps the head instead.)
std::string TailChars(const std::string& s, size_t max);

// `text` with every occurrence of `from` (not empty) replaced by `to`, left to right.
std::string ReplaceAll(std::string text, const std::string& from, const std::string& to);

// The last non-blank line of `text` (trailing whitespace dropped), "" when there is none.
std::string LastLine(const std::string& text);

// The edit (Levenshtein) distance between `a` and `b`: insertions, deletions, substitutions.
size_t EditDistance(const std::string& a, const std::string& b);

// For "did you mean": the `candidates` closest to `word`, at most `max`: those starting with a
// `word` of 3 or more characters, else those at the smallest edit distance up to
// max(1, (size+2)/3).
std::vector<std::string> ClosestNames(const std::string& word, const std::vector<std::string>& candidates,
                                      size_t max = 3);

// "'a'", "'a' or 'b'", "'a', 'b' or 'c'".
std::string QuotedAlternatives(const std::vector<std::string>& names);

}  // namespace cuco
