#include "util/source_text.h"

#include <algorithm>
#include <cctype>
#include <regex>

namespace cuco {
namespace {

bool IsRawPrefix(std::string_view s) { return s == "R" || s == "u8R" || s == "uR" || s == "UR" || s == "LR"; }

// The classifier's state: the text, the byte classes, and where the scan is.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : t_(text), n_(text.size()), kind_(text.size(), SourceByte::kCode) {}

  std::vector<SourceByte> Run() {
    while (i_ < n_) {
      const unsigned char c = static_cast<unsigned char>(t_[i_]);
      if (c == '/' && At(i_ + 1) == '/') LineComment();
      else if (c == '/' && At(i_ + 1) == '*') BlockComment();
      else if (c == '"' || c == '\'') Quoted(i_);
      else if (std::isdigit(c) || (c == '.' && std::isdigit(static_cast<unsigned char>(At(i_ + 1))))) Number();
      else if (IsLexIdentStart(c)) Identifier();
      else ++i_;
    }
    return std::move(kind_);
  }

 private:
  char At(size_t k) const { return k < n_ ? t_[k] : '\0'; }
  void Mark(size_t from, size_t to, SourceByte k) { std::fill(kind_.begin() + from, kind_.begin() + std::min(to, n_), k); }

  // Just past a backslash-newline splice starting at t_[k] (spaces before the newline allowed, as
  // GCC does); 0 when there is none.
  size_t SpliceEnd(size_t k) const {
    if (At(k) != '\\') return 0;
    size_t j = k + 1;
    while (j < n_ && (t_[j] == ' ' || t_[j] == '\t' || t_[j] == '\r')) ++j;
    return j < n_ && t_[j] == '\n' ? j + 1 : 0;
  }

  void LineComment() {
    size_t k = i_;
    while (k < n_ && t_[k] != '\n') k = std::max(k + 1, SpliceEnd(k));
    Mark(i_, k, SourceByte::kComment);
    i_ = k;
  }

  void BlockComment() {
    const size_t e = t_.find("*/", i_ + 2);
    const size_t end = e == std::string_view::npos ? n_ : e + 2;
    Mark(i_, end, SourceByte::kComment);
    i_ = end;
  }

  // An ordinary string or character literal whose opening quote is t_[q].
  void Quoted(size_t q) {
    const char quote = t_[q];
    kind_[q] = SourceByte::kQuote;
    size_t k = q + 1;
    while (k < n_ && t_[k] != '\n' && t_[k] != quote) {
      if (t_[k] != '\\') ++k;
      else if (size_t s = SpliceEnd(k)) k = s;
      else k = std::min(n_, k + 2);
    }
    Mark(q + 1, k, SourceByte::kLiteral);
    if (k < n_ && t_[k] == quote) kind_[k++] = SourceByte::kQuote;
    i_ = k;
  }

  // A raw string whose opening quote is t_[q]; when what follows is no raw string's delimiter,
  // nothing (the quote is read next as an ordinary string's).
  void Raw(size_t q) {
    const size_t open = t_.find('(', q + 1);
    if (open == std::string_view::npos || open - q - 1 > 16) return;
    const std::string_view delim = t_.substr(q + 1, open - q - 1);
    if (delim.find_first_of(" \t\n\\)\"") != std::string_view::npos) return;
    const std::string close = ")" + std::string(delim) + "\"";
    const size_t c = t_.find(close, open + 1);
    kind_[q] = SourceByte::kQuote;
    if (c == std::string_view::npos) {
      Mark(q + 1, n_, SourceByte::kLiteral);
      i_ = n_;
      return;
    }
    const size_t last = c + close.size() - 1;  // the closing quote
    Mark(q + 1, last, SourceByte::kLiteral);
    kind_[last] = SourceByte::kQuote;
    i_ = last + 1;
  }

  // An identifier; a raw string when it is a raw prefix before a quote. (An encoding prefix before
  // an ordinary literal needs nothing: the quote is read next.)
  void Identifier() {
    size_t j = i_;
    while (j < n_ && IsLexIdentChar(static_cast<unsigned char>(t_[j]))) ++j;
    const std::string_view ident = t_.substr(i_, j - i_);
    i_ = j;
    if (At(j) == '"' && IsRawPrefix(ident)) Raw(j);
  }

  // A pp-number: digits, letters, dots, digit separators and exponent signs.
  void Number() {
    size_t j = i_ + 1;
    while (j < n_) {
      const char d = t_[j];
      if ((d == '+' || d == '-') && std::string_view("eEpP").find(t_[j - 1]) != std::string_view::npos) ++j;
      else if (d == '\'' && IsLexIdentChar(static_cast<unsigned char>(At(j + 1)))) j += 2;
      else if (IsLexIdentChar(static_cast<unsigned char>(d)) || d == '.') ++j;
      else break;
    }
    i_ = j;
  }

  std::string_view t_;
  size_t n_;
  std::vector<SourceByte> kind_;
  size_t i_ = 0;
};

// `text` with every byte whose class `blank` accepts turned into a space, newlines kept.
template <typename Pred>
std::string Blank(std::string_view text, Pred blank) {
  const std::vector<SourceByte> kind = ClassifySource(text);
  std::string out(text);
  for (size_t k = 0; k < out.size(); ++k)
    if (out[k] != '\n' && blank(kind[k])) out[k] = ' ';
  return out;
}

}  // namespace

std::vector<SourceByte> ClassifySource(std::string_view text) { return Scanner(text).Run(); }

std::string BlankComments(std::string_view text) {
  return Blank(text, [](SourceByte k) { return k == SourceByte::kComment; });
}

std::string BlankCommentsAndLiteralContents(std::string_view text) {
  return Blank(text, [](SourceByte k) { return k == SourceByte::kComment || k == SourceByte::kLiteral; });
}

std::string BlankCommentsAndLiterals(std::string_view text) {
  return Blank(text, [](SourceByte k) { return k != SourceByte::kCode; });
}

int LineOf(std::string_view text, size_t offset) {
  const size_t end = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
}

size_t OffsetOfLine(std::string_view text, int line) {
  size_t at = 0;
  for (int l = 1; l < line && at < text.size(); ++l) {
    const size_t nl = text.find('\n', at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  return at;
}

std::string NormalizeNewlines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i)
    if (!(text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) out += text[i];
  return out;
}

std::vector<std::string> SplitLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1)
    lines.emplace_back(text.substr(start, nl - start));
  lines.emplace_back(text.substr(start));
  return lines;
}

std::vector<std::string> SplitLinesKeepingNewlines(std::string_view text) {
  std::vector<std::string> lines;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.emplace_back(text.substr(pos, end - pos));
    pos = end;
  }
  return lines;
}

std::vector<std::string> LinesOf(std::string_view text) {
  std::vector<std::string> lines = SplitLines(text);
  if (lines.back().empty()) lines.pop_back();  // "" or a final newline: no line starts there
  return lines;
}

bool IsCIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
size_t SkipSpace(std::string_view text, size_t from) {
  while (from < text.size() && std::isspace(static_cast<unsigned char>(text[from]))) ++from;
  return from;
}

bool IsLexIdentStart(unsigned char c) { return std::isalpha(c) || c == '_' || c == '$' || c >= 0x80; }
bool IsLexIdentChar(unsigned char c) { return std::isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

bool IsCIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string IdentifierAt(std::string_view text, size_t at) {
  size_t e = at;
  while (e < text.size() && IsCIdentChar(text[e])) ++e;
  return e > at ? std::string(text.substr(at, e - at)) : "";
}

std::string Trim(std::string_view s, std::string_view chars) {
  const size_t b = s.find_first_not_of(chars);
  if (b == std::string_view::npos) return "";
  return std::string(s.substr(b, s.find_last_not_of(chars) - b + 1));
}

std::string TrimRight(std::string_view s, std::string_view chars) {
  const size_t e = s.find_last_not_of(chars);
  return e == std::string_view::npos ? "" : std::string(s.substr(0, e + 1));
}

std::string WithoutCasts(std::string e) {
  static const std::regex kNamedCast(R"(^(?:static|reinterpret|const)_cast\s*<[^;]*>\s*\(([\s\S]*)\)$)");
  for (int k = 0; k < 4; ++k) {
    e = Trim(e);
    std::smatch mm;
    if (std::regex_match(e, mm, kNamedCast)) {
      e = mm[1].str();
      continue;
    }
    if (e.empty() || e[0] != '(') break;
    const std::string masked = BlankCommentsAndLiteralContents(e);
    int depth = 0;
    size_t close = std::string::npos;
    for (size_t i = 0; i < masked.size(); ++i) {
      if (masked[i] == '(') ++depth;
      else if (masked[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    if (close == std::string::npos) break;
    e = close + 1 == e.size() ? e.substr(1, close - 1) : e.substr(close + 1);  // `(x)` or `(T*)x`
  }
  return Trim(e);
}

}  // namespace cuco
