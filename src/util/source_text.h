// C++ source as text: trimming, the line of an offset, and blanking comments and literals so
// that a scan of what is left sees only code, at the same offsets and on the same lines.
//
// One scanner, ClassifySource, reads the text as translation phases 1-3 would, without removing
// anything: `//` comments (continued past a backslash-newline splice) and `/* */` comments; string
// and character literals with their encoding prefixes (u8 u U L), escapes (\" \\ \') and splices;
// raw strings with any prefix (R"d(...)d", u8R, uR, UR, LR; a delimiter of at most 16 characters);
// and pp-numbers, so a digit separator (1'000, 0x1'FF) never opens a character literal. Never
// fails: an unterminated comment or raw string runs to the end of the text; an unterminated
// ordinary literal ends at the end of its line (the newline itself is code).
//
// The blankers replace the bytes they blank with spaces but keep every '\n'.
#pragma once

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cuco {

// What a byte of C++ source is part of. A literal's prefix (u8, L, R...) and suffix are code; its
// quotes are kQuote; everything between them, a raw string's delimiters and parentheses
// included, is kLiteral.
enum class SourceByte : uint8_t { kCode, kComment, kQuote, kLiteral };

// One entry per byte of `text` (see the contract above).
std::vector<SourceByte> ClassifySource(std::string_view text);

// Comments blanked; literals kept whole.
std::string BlankComments(std::string_view text);

// Comments and the contents of literals blanked; the quotes kept ("     "), so the code still
// shows where a literal stood.
std::string BlankCommentsAndLiteralContents(std::string_view text);

// Comments and literals blanked, quotes included.
std::string BlankCommentsAndLiterals(std::string_view text);

// The 1-based line holding byte `offset` of `text` (an offset past the end: the last line).
int LineOf(std::string_view text, size_t offset);

// The byte offset where 1-based line `line` of `text` begins (text.size() past its last line; 0 below 1).
size_t OffsetOfLine(std::string_view text, int line);

// Whether the token `s` is a null pointer constant as programs spell one: `nullptr` or `NULL`.
inline bool IsNullPointerLiteral(std::string_view s) { return s == "nullptr" || s == "NULL"; }

// Whether `base`, a pointer's value as BufferBase gives it, is memory made right there (`new int[n]`,
// `malloc(bytes)` after a cast): a pointer given it aliases no other buffer.
inline bool IsFreshAllocation(std::string_view base) {
  for (std::string_view made : {"new", "malloc", "calloc", "aligned_alloc", "std::malloc", "std::calloc"})
    if (base.substr(0, made.size()) == made &&
        (base.size() == made.size() || !(std::isalnum(static_cast<unsigned char>(base[made.size()])) || base[made.size()] == '_')))
      return true;
  return false;
}

// The characters std::isspace accepts in the "C" locale.
inline constexpr std::string_view kSpaceChars = " \t\n\v\f\r";

// `s` without leading and trailing `chars`; TrimRight: without trailing ones only.
std::string Trim(std::string_view s, std::string_view chars = kSpaceChars);
std::string TrimRight(std::string_view s, std::string_view chars = kSpaceChars);

// The expression `e` without the casts and parentheses around it: `(const void*)data`,
// `static_cast<float*>(data)` and `(data)` are `data`; `(T*)x + 1` is `x + 1`.
std::string WithoutCasts(std::string e);

// `text` with every "\r\n" as "\n" (a lone '\r' stays).
std::string NormalizeNewlines(std::string_view text);

// The line splitters; every other file splits lines with one of these three.
//
// `text` cut at every '\n', the newlines dropped: the pieces joined with "\n" give `text` back (so
// a text ending in a newline ends in an empty piece, and "" is one empty piece). For rewriting a
// text and joining it again.
std::vector<std::string> SplitLines(std::string_view text);

// `text`'s lines with their newlines kept (the last may lack one); "" has none. For comparing
// lines byte for byte, the newline included.
std::vector<std::string> SplitLinesKeepingNewlines(std::string_view text);

// `text`'s lines as an editor numbers them, the newlines dropped: a final newline ends the last
// line rather than starting an empty one, and "" has no line ("a\n" is {"a"}, "a\n\n" is {"a", ""}).
// For reading a text line by line (line i + 1 is element i); whether `text` ends in a newline is
// `!text.empty() && text.back() == '\n'`.
std::vector<std::string> LinesOf(std::string_view text);

// The offset of the first non-space character (std::isspace) at or after `from`; text.size() if none.
size_t SkipSpace(std::string_view text, size_t from);

// How the lexers read identifiers: letters, digits (not first), '_', '$' and every byte of a
// UTF-8 sequence (>= 0x80), as GCC and clang accept them.
bool IsLexIdentStart(unsigned char c);
bool IsLexIdentChar(unsigned char c);

// Whether `c` may start, or continue, a C identifier: [A-Za-z_], [A-Za-z0-9_] (ASCII only).
bool IsCIdentStart(char c);
bool IsCIdentChar(char c);

// The run of identifier characters (IsCIdentChar) starting at `at`: "" where none starts there or
// `at` is past the end. It does not look back: from the middle of a word, the word's rest.
std::string IdentifierAt(std::string_view text, size_t at);

}  // namespace cuco
