// A C++ lexer for the deny-list scan: source text and `cc -E` output to preprocessing tokens.
//
// LexCpp runs translation phases 1-3 the way GCC does for -std=c++20: backslash-newline splices
// (also with spaces before the newline) are removed, comments become whitespace, and the text is
// split into preprocessing tokens: identifiers, pp-numbers (digit separators, exponents with
// signs), string and character literals with encoding prefixes (u8, u, U, L) and raw strings with
// delimiters (R"d(...)d"), punctuators (longest match; digraphs <% %> <: :> %: %:%: are mapped to
// { } [ ] # ##, with the C++11 `<::` rule), and any other byte as a token of its own. Trigraphs are
// not replaced (C++17 removed them). Universal character names stay as spelled in identifiers.
#pragma once

#include <string>
#include <vector>

namespace cuco {

enum class CppTokenKind { kIdentifier, kNumber, kString, kChar, kPunct, kOther };

struct CppToken {
  CppTokenKind kind = CppTokenKind::kOther;
  std::string text;            // the spelling without splices; digraphs as their primary spelling
  int line = 0;                // 1-based physical line of the lexed text where the token starts
  bool first_on_line = false;  // first token of its logical line (splices joined, comments as spaces)
};

// Lexes C++ source text (phases 1-3, see above). Never fails: an unterminated literal ends at the
// end of its line (a raw string: of the text) as a kOther token; an unterminated comment yields a
// kOther token "/*" and runs to the end of the text.
std::vector<CppToken> LexCpp(const std::string& text);

// A token of preprocessor output with the place it came from, as the linemarkers say.
struct MappedToken {
  CppToken token;
  std::string file;  // the file named by the last linemarker ("" before the first)
  int file_line = 0; // 1-based line in that file (a macro's expansion: the line of its invocation)
};

// Lexes the output of `cc -E` / `nvcc -E`. Linemarker lines (`# N "file" flags`, `#line N "file"`)
// are consumed and set the file and line of the tokens that follow; every other line, #pragma
// lines included, yields its tokens. Filenames have their escapes (\\ \") decoded.
std::vector<MappedToken> LexPreprocessed(const std::string& text);

// The value of a string literal token (without prefix, quotes or raw delimiters), with the simple,
// octal and hex escapes of ordinary strings decoded (\u escapes are kept as written).
std::string StringLiteralValue(const CppToken& token);

}  // namespace cuco
