#include "workload/cpp_tokens.h"

#include <cctype>
#include <cstdlib>

#include "util/source_text.h"

namespace cuco {
namespace {


// Phases 1-2: the text with splices removed, and the physical line of every remaining byte.
void Splice(const std::string& in, std::string* out, std::vector<int>* line_of) {
  out->clear();
  line_of->clear();
  int line = 1;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == '\\') {
      size_t j = i + 1;
      while (j < in.size() && (in[j] == ' ' || in[j] == '\t' || in[j] == '\r')) ++j;
      if (j < in.size() && in[j] == '\n') {
        ++line;
        i = j;
        continue;
      }
    }
    out->push_back(in[i]);
    line_of->push_back(line);
    if (in[i] == '\n') ++line;
  }
  line_of->push_back(line);  // a sentinel for the end
}

// Punctuators, longest first within each leading byte (a linear scan is fine for this size).
const char* const kPuncts[] = {"%:%:", "...", "<=>", "->*", "<<=", ">>=", "::", "->", "++", "--", "<<", ">>", "<=",
                               ">=",   "==",  "!=",  "&&",  "||",  "+=",  "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                               "##",   ".*",  "<%",  "%>",  "<:",  ":>",  "%:"};

std::string Primary(const std::string& p) {
  if (p == "<%") return "{";
  if (p == "%>") return "}";
  if (p == "<:") return "[";
  if (p == ":>") return "]";
  if (p == "%:") return "#";
  if (p == "%:%:") return "##";
  return p;
}

bool IsEncodingPrefix(const std::string& s) { return s == "u8" || s == "u" || s == "U" || s == "L"; }
bool IsRawPrefix(const std::string& s) { return s == "R" || s == "u8R" || s == "uR" || s == "UR" || s == "LR"; }

}  // namespace

std::vector<CppToken> LexCpp(const std::string& text) {
  std::string s;
  std::vector<int> line_of;
  Splice(text, &s, &line_of);
  std::vector<CppToken> toks;
  bool at_line_start = true;
  const size_t n = s.size();
  auto at = [&](size_t k) -> char { return k < n ? s[k] : '\0'; };
  auto emit = [&](CppTokenKind kind, size_t b, size_t e, std::string spelled = {}) {
    CppToken t;
    t.kind = kind;
    t.text = spelled.empty() ? s.substr(b, e - b) : std::move(spelled);
    t.line = line_of[b];
    t.first_on_line = at_line_start;
    at_line_start = false;
    toks.push_back(std::move(t));
  };
  // A quoted literal from s[q] (the opening quote) to its closing quote, or to the end of the line.
  auto quoted_end = [&](size_t q, bool* closed) {
    char quote = s[q];
    size_t k = q + 1;
    while (k < n && s[k] != '\n') {
      if (s[k] == '\\') { k += 2; continue; }
      if (s[k] == quote) { *closed = true; return k + 1; }
      ++k;
    }
    *closed = false;
    return std::min(k, n);
  };
  size_t i = 0;
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') { at_line_start = true; ++i; continue; }
    if (std::isspace(c)) { ++i; continue; }
    if (c == '/' && at(i + 1) == '/') {
      while (i < n && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && at(i + 1) == '*') {
      size_t e = s.find("*/", i + 2);
      if (e == std::string::npos) emit(CppTokenKind::kOther, i, i + 2);  // an unterminated comment
      i = e == std::string::npos ? n : e + 2;
      continue;
    }
    if (IsLexIdentStart(c) || (c == '\\' && (at(i + 1) == 'u' || at(i + 1) == 'U'))) {
      size_t j = i;
      while (j < n) {
        if (IsLexIdentChar(static_cast<unsigned char>(s[j]))) { ++j; continue; }
        if (s[j] == '\\' && (at(j + 1) == 'u' || at(j + 1) == 'U')) { j += at(j + 1) == 'u' ? 6 : 10; continue; }
        break;
      }
      j = std::min(j, n);
      std::string ident = s.substr(i, j - i);
      if (IsRawPrefix(ident) && at(j) == '"') {
        // R"delim( ... )delim"
        size_t open = s.find('(', j + 1);
        std::string delim = open == std::string::npos ? "" : s.substr(j + 1, open - j - 1);
        bool ok = open != std::string::npos && delim.size() <= 16 &&
                  delim.find_first_of(" \t\n\\)") == std::string::npos;
        if (ok) {
          size_t close = s.find(")" + delim + "\"", open + 1);
          size_t e = close == std::string::npos ? n : close + delim.size() + 2;
          emit(close == std::string::npos ? CppTokenKind::kOther : CppTokenKind::kString, i, e);
          i = e;
          continue;
        }
      }
      if (IsEncodingPrefix(ident) && (at(j) == '"' || at(j) == '\'')) {
        bool closed = false;
        size_t e = quoted_end(j, &closed);
        emit(!closed ? CppTokenKind::kOther : at(j) == '"' ? CppTokenKind::kString : CppTokenKind::kChar, i, e);
        i = e;
        continue;
      }
      emit(CppTokenKind::kIdentifier, i, j);
      i = j;
      continue;
    }
    if (std::isdigit(c) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i + 1))))) {
      size_t j = i + 1;
      while (j < n) {
        char d = s[j];
        if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P')) {
          ++j;
          continue;
        }
        if (d == '\'' && IsLexIdentChar(static_cast<unsigned char>(at(j + 1)))) { j += 2; continue; }
        if (IsLexIdentChar(static_cast<unsigned char>(d)) || d == '.') { ++j; continue; }
        break;
      }
      emit(CppTokenKind::kNumber, i, j);
      i = j;
      continue;
    }
    if (c == '"' || c == '\'') {
      bool closed = false;
      size_t e = quoted_end(i, &closed);
      emit(!closed ? CppTokenKind::kOther : c == '"' ? CppTokenKind::kString : CppTokenKind::kChar, i, e);
      i = e;
      continue;
    }
    std::string best;
    for (const char* p : kPuncts) {
      std::string ps(p);
      if (ps.size() > best.size() && s.compare(i, ps.size(), ps) == 0) best = ps;
    }
    // C++11 [lex.pptoken]/3: `<::` is `<` `::` unless followed by `:` or `>`.
    if (best == "<:" && at(i + 2) == ':' && at(i + 3) != ':' && at(i + 3) != '>') best.clear();
    if (best.empty()) {
      emit(std::ispunct(c) ? CppTokenKind::kPunct : CppTokenKind::kOther, i, i + 1);
      ++i;
      continue;
    }
    emit(CppTokenKind::kPunct, i, i + best.size(), Primary(best));
    i += best.size();
  }
  return toks;
}

std::vector<MappedToken> LexPreprocessed(const std::string& text) {
  std::vector<CppToken> toks = LexCpp(text);
  std::vector<MappedToken> out;
  out.reserve(toks.size());
  std::string file;
  int base_out_line = 0, base_file_line = 0;  // output line `base_out_line` is `base_file_line` of `file`
  for (size_t k = 0; k < toks.size();) {
    const CppToken& t = toks[k];
    if (t.first_on_line && t.text == "#") {
      size_t m = k + 1;
      if (m < toks.size() && toks[m].line == t.line && toks[m].kind == CppTokenKind::kIdentifier &&
          toks[m].text == "line")
        ++m;
      if (m < toks.size() && toks[m].line == t.line && toks[m].kind == CppTokenKind::kNumber) {
        int n = std::atoi(toks[m].text.c_str());
        if (m + 1 < toks.size() && toks[m + 1].line == t.line && toks[m + 1].kind == CppTokenKind::kString) {
          file = StringLiteralValue(toks[m + 1]);
        }
        base_out_line = t.line + 1;
        base_file_line = n;
        k = m;
        while (k < toks.size() && toks[k].line == t.line) ++k;
        continue;
      }
    }
    out.push_back({t, file, base_file_line + (t.line - base_out_line)});
    ++k;
  }
  return out;
}

std::string StringLiteralValue(const CppToken& token) {
  const std::string& t = token.text;
  size_t q = t.find('"');
  if (q == std::string::npos || t.size() < q + 2) return "";
  if (q > 0 && t[q - 1] == 'R') {
    size_t open = t.find('(', q);
    if (open == std::string::npos) return "";
    size_t dlen = open - q - 1;
    if (t.size() < open + 1 + dlen + 2) return "";
    return t.substr(open + 1, t.size() - (open + 1) - dlen - 2);
  }
  std::string body = t.substr(q + 1, t.size() - q - 2), v;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) { v.push_back(body[i]); continue; }
    char e = body[++i];
    auto digits = [&](int base, size_t max) {
      size_t j = i;
      std::string d;
      while (j < body.size() && d.size() < max &&
             (base == 16 ? std::isxdigit(static_cast<unsigned char>(body[j])) : (body[j] >= '0' && body[j] <= '7')))
        d.push_back(body[j++]);
      i = j - 1;
      return static_cast<char>(std::strtol(d.c_str(), nullptr, base));
    };
    switch (e) {
      case 'n': v.push_back('\n'); break;
      case 't': v.push_back('\t'); break;
      case 'r': v.push_back('\r'); break;
      case 'a': v.push_back('\a'); break;
      case 'b': v.push_back('\b'); break;
      case 'f': v.push_back('\f'); break;
      case 'v': v.push_back('\v'); break;
      case 'x': ++i; v.push_back(digits(16, 64)); break;
      case 'u': case 'U': v.push_back('\\'); v.push_back(e); break;
      default:
        if (e >= '0' && e <= '7') v.push_back(digits(8, 3));
        else v.push_back(e);  // \\ \" \' \?
    }
  }
  return v;
}

}  // namespace cuco
