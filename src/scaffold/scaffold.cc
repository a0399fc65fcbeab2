#include "scaffold/scaffold.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "util/files.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// The program's text.

// Comments replaced by spaces (newlines kept), so offsets and lines still match the file.
std::string StripComments(const std::string& src) {
  std::string out = src;
  enum { kCode, kLine, kBlock, kString, kChar } state = kCode;
  for (size_t i = 0; i < src.size(); ++i) {
    const char c = src[i], next = i + 1 < src.size() ? src[i + 1] : '\0';
    switch (state) {
      case kCode:
        if (c == '/' && next == '/') state = kLine, out[i] = ' ';
        else if (c == '/' && next == '*') state = kBlock, out[i] = out[i + 1] = ' ', ++i;
        else if (c == '"') state = kString;
        else if (c == '\'') state = kChar;
        break;
      case kLine:
        if (c == '\n') state = kCode;
        else out[i] = ' ';
        break;
      case kBlock:
        if (c == '*' && next == '/') state = kCode, out[i] = out[i + 1] = ' ', ++i;
        else if (c != '\n') out[i] = ' ';
        break;
      case kString:
      case kChar:
        if (c == '\\') ++i;
        else if ((state == kString && c == '"') || (state == kChar && c == '\'') || c == '\n') state = kCode;
        break;
    }
  }
  return out;
}

int LineOf(const std::string& text, size_t offset) {
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(std::min(offset, text.size())), '\n'));
}

// Index just past the string or char literal starting at `i` (text[i] is the quote).
size_t SkipLiteral(const std::string& t, size_t i) {
  const char q = t[i];
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') ++i;
    else if (t[i] == q || t[i] == '\n') return i + 1;
  }
  return t.size();
}

// The ')' matching the '(' at `open`, skipping literals; npos when unbalanced.
size_t MatchParen(const std::string& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size();) {
    if (t[i] == '"' || t[i] == '\'') {
      i = SkipLiteral(t, i);
      continue;
    }
    if (t[i] == '(') ++depth;
    if (t[i] == ')' && --depth == 0) return i;
    ++i;
  }
  return std::string::npos;
}

// C escapes of a string literal's body decoded (\n, \t, \", \\; others kept as the character).
std::string DecodeEscapes(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char e = body[++i];
    out += e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
  }
  return out;
}

// The string literals in t[from, to), adjacent ones ("a" "b") joined, decoded.
std::vector<std::string> StringLiterals(const std::string& t, size_t from, size_t to) {
  std::vector<std::string> out;
  bool joinable = false;
  for (size_t i = from; i < to && i < t.size();) {
    if (t[i] == '\'') {
      i = SkipLiteral(t, i);
      joinable = false;
      continue;
    }
    if (t[i] == '"') {
      const size_t end = SkipLiteral(t, i);
      std::string body = DecodeEscapes(t.substr(i + 1, end >= i + 2 ? end - i - 2 : 0));
      if (joinable) out.back() += body;
      else out.push_back(body);
      joinable = true;
      i = end;
      continue;
    }
    if (!std::isspace(static_cast<unsigned char>(t[i]))) joinable = false;
    ++i;
  }
  return out;
}

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool Contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// One line, at most `width` characters, safe inside a // comment.
std::string CommentText(std::string s, size_t width = 110) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  s = std::regex_replace(s, std::regex("  +"), " ");
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  while (!s.empty() && s.back() == '\\') s.pop_back();  // a trailing backslash would continue the comment
  return s;
}

// A printed format as the program's source writes it (newlines as \n).
std::string EscapeNewlines(const std::string& s) {
  std::string out;
  for (char c : s) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Integer constants: `#define N 4096`, `const int M = 8192, K = 2 * M;`, defaults of `--m`-style
// options. Values are evaluated by a small integer expression parser (literals, names found
// earlier, + - * / % << >> and parentheses); anything else is not a constant to us.

class IntExpr {
 public:
  IntExpr(const std::string& text, const std::map<std::string, int64_t>& names) : t_(text), names_(names) {}
  std::optional<int64_t> Parse() {
    auto v = Shift();
    Skip();
    if (!v || pos_ != t_.size()) return std::nullopt;
    return v;
  }

 private:
  void Skip() {
    while (pos_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[pos_]))) ++pos_;
  }
  bool Eat(const char* op) {
    Skip();
    const size_t n = std::strlen(op);
    if (t_.compare(pos_, n, op) != 0) return false;
    // `<` alone is not an operator here; keep `<<` from matching `<<=` and the like.
    if (pos_ + n < t_.size() && t_[pos_ + n] == '=') return false;
    pos_ += n;
    return true;
  }
  static std::optional<int64_t> Checked(__int128 v) {
    if (v > INT64_MAX || v < INT64_MIN) return std::nullopt;
    return static_cast<int64_t>(v);
  }
  std::optional<int64_t> Shift() {
    auto l = Add();
    while (l) {
      if (Eat("<<")) {
        auto r = Add();
        if (!r || *r < 0 || *r > 62) return std::nullopt;
        l = Checked(static_cast<__int128>(*l) << *r);
      } else if (Eat(">>")) {
        auto r = Add();
        if (!r || *r < 0 || *r > 63) return std::nullopt;
        l = *l >> *r;
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<int64_t> Add() {
    auto l = Mul();
    while (l) {
      if (Eat("+")) {
        auto r = Mul();
        if (!r) return std::nullopt;
        l = Checked(static_cast<__int128>(*l) + *r);
      } else if (Eat("-")) {
        auto r = Mul();
        if (!r) return std::nullopt;
        l = Checked(static_cast<__int128>(*l) - *r);
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<int64_t> Mul() {
    auto l = Unary();
    while (l) {
      if (Eat("*")) {
        auto r = Unary();
        if (!r) return std::nullopt;
        l = Checked(static_cast<__int128>(*l) * *r);
      } else if (Eat("/") || Eat("%")) {
        const bool div = t_[pos_ - 1] == '/';
        auto r = Unary();
        if (!r || *r == 0) return std::nullopt;
        l = div ? *l / *r : *l % *r;
      } else {
        break;
      }
    }
    return l;
  }
  std::optional<int64_t> Unary() {
    if (Eat("-")) {
      auto v = Unary();
      return v ? Checked(-static_cast<__int128>(*v)) : std::nullopt;
    }
    if (Eat("+")) return Unary();
    Skip();
    if (pos_ >= t_.size()) return std::nullopt;
    if (t_[pos_] == '(') {
      ++pos_;
      auto v = Shift();
      if (!v || !Eat(")")) return std::nullopt;
      return v;
    }
    if (std::isdigit(static_cast<unsigned char>(t_[pos_]))) {
      size_t end = pos_;
      while (end < t_.size() && (std::isxdigit(static_cast<unsigned char>(t_[end])) || t_[end] == 'x' ||
                                 t_[end] == 'X' || t_[end] == '\''))
        ++end;
      std::string digits = t_.substr(pos_, end - pos_);
      digits.erase(std::remove(digits.begin(), digits.end(), '\''), digits.end());
      while (end < t_.size() && std::strchr("uUlL", t_[end])) ++end;
      if (end < t_.size() && (t_[end] == '.' || std::isalpha(static_cast<unsigned char>(t_[end])))) return std::nullopt;
      pos_ = end;
      try {
        size_t used = 0;
        const bool hex = digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
        const long long v = std::stoll(digits, &used, hex ? 16 : 10);
        if (used != digits.size()) return std::nullopt;
        return static_cast<int64_t>(v);
      } catch (...) {
        return std::nullopt;
      }
    }
    if (std::isalpha(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_') {
      size_t end = pos_;
      while (end < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[end])) || t_[end] == '_')) ++end;
      auto it = names_.find(t_.substr(pos_, end - pos_));
      if (it == names_.end()) return std::nullopt;
      pos_ = end;
      return it->second;
    }
    return std::nullopt;
  }

  const std::string& t_;
  const std::map<std::string, int64_t>& names_;
  size_t pos_ = 0;
};

struct FoundConstant {
  std::string name;   // as the program spells it (options: without dashes)
  int64_t value = 0;
  int line = 0;
  std::string how;    // "#define", "const", "default of --m"
  bool option = false;
};

std::vector<FoundConstant> FindConstants(const std::string& code) {
  std::vector<FoundConstant> found;
  std::map<std::string, int64_t> known;
  auto add = [&](FoundConstant c) {
    if (!c.option) known[c.name] = c.value;
    found.push_back(std::move(c));
  };
  struct Hit {
    size_t offset;
    int kind;  // 0 define, 1 const declaration, 2 option default
    std::smatch m;
  };
  std::vector<Hit> hits;
  static const std::regex define_re(R"((^|\n)[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+))");
  static const std::regex const_re(
      R"(\b(?:static\s+|inline\s+)*(?:constexpr|const)\s+(?:static\s+)?(?:(?:unsigned|signed)\s+)?(?:long\s+long|long|int|short|unsigned|auto|(?:std::)?size_t|(?:std::)?u?int(?:8|16|32|64)_t)(?:\s+int)?\s+(?=[A-Za-z_]))");
  static const std::regex option_re(R"xx("(-{1,2}[A-Za-z][\w-]*)"\s*,\s*([^,()";]+?)\s*\))xx");
  for (auto [re, kind] : {std::pair{&define_re, 0}, std::pair{&const_re, 1}, std::pair{&option_re, 2}})
    for (auto it = std::sregex_iterator(code.begin(), code.end(), *re); it != std::sregex_iterator(); ++it)
      hits.push_back({static_cast<size_t>(it->position(0)), kind, *it});
  std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.offset < b.offset; });

  static const std::regex declarator_re(R"(^\s*([A-Za-z_]\w*)\s*(?:=\s*([\s\S]+?)|\{([\s\S]+?)\})\s*$)");
  for (const Hit& h : hits) {
    if (h.kind == 0) {
      const std::string name = h.m[2].str();
      auto v = IntExpr(Trim(h.m[3].str()), known).Parse();
      if (v) add({name, *v, LineOf(code, h.offset + h.m[1].length()), "#define", false});
    } else if (h.kind == 2) {
      std::string opt = h.m[1].str();
      auto v = IntExpr(h.m[2].str(), known).Parse();
      if (v) add({opt, *v, LineOf(code, h.offset), "default of " + opt, true});
    } else {
      // Declarators up to the ';' at depth 0. A ')' closing an outer list means a parameter; a '{'
      // after a declarator that is neither `name` nor `name = ...` means a function body.
      size_t i = h.offset + h.m[0].length();
      int depth = 0;
      std::vector<std::pair<std::string, size_t>> decls;
      size_t start = i;
      bool ok = false;
      for (; i < code.size(); ++i) {
        const char c = code[i];
        if (c == '"' || c == '\'') {
          i = SkipLiteral(code, i) - 1;
          continue;
        }
        if (c == '{' && depth == 0) {
          const std::string so_far = Trim(code.substr(start, i - start));
          const bool plain_name = std::regex_match(so_far, std::regex("[A-Za-z_]\\w*"));
          if (!plain_name && !Contains(so_far, "=")) break;
        }
        if (c == '(' || c == '[' || c == '{') {
          ++depth;
        } else if (c == ')' || c == ']' || c == '}') {
          if (--depth < 0) break;
        } else if ((c == ',' || c == ';') && depth == 0) {
          decls.push_back({code.substr(start, i - start), start});
          start = i + 1;
          if (c == ';') {
            ok = true;
            break;
          }
        }
      }
      if (!ok) continue;
      for (const auto& [text, at] : decls) {
        std::smatch dm;
        if (!std::regex_match(text, dm, declarator_re)) continue;
        const std::string expr = dm[2].matched ? dm[2].str() : dm[3].str();
        auto v = IntExpr(Trim(expr), known).Parse();
        if (v) add({dm[1].str(), *v, LineOf(code, at + dm.position(1)), "const", false});
      }
    }
  }
  return found;
}

// A name from an option ("--batch-size" -> "batch_size", "--m" -> "M") or a constant, usable as
// a size name (C identifier, shorter than cuco::Sizes::kMaxName).
std::string SizeName(const FoundConstant& c) {
  std::string n = c.name;
  if (c.option) {
    n.erase(0, n.find_first_not_of('-'));
    if (n.size() == 1) n = std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(n[0]))));
  }
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) n = "s_" + n;
  return n.substr(0, 40);
}

bool IsWorldName(const std::string& name, const std::set<std::string>& world_vars) {
  const std::string l = Lower(name);
  if (world_vars.count(name)) return true;
  for (const char* w : {"world", "nranks", "n_ranks", "num_ranks", "numranks", "nprocs", "n_procs", "num_procs",
                        "ngpus", "n_gpus", "num_gpus", "numgpus", "ndev", "num_devices", "comm_size"})
    if (Contains(l, w)) return true;
  return false;
}

enum class ConstRole { kSize, kWorld, kWarmup, kIters, kTuning, kIgnored };

ConstRole Classify(const FoundConstant& c, const std::set<std::string>& world_vars) {
  const std::string l = Lower(SizeName(c));
  if (IsWorldName(c.name, world_vars)) return ConstRole::kWorld;
  if (Contains(l, "warm")) return ConstRole::kWarmup;
  if (Contains(l, "iter") || l == "reps" || l == "nreps" || l == "repeat" || l == "repeats" || l == "trials" ||
      l == "runs" || l == "nruns")
    return ConstRole::kIters;
  if (Contains(l, "seed") || Contains(l, "verbose") || Contains(l, "debug") || Contains(l, "rank") ||
      Contains(l, "device") || Contains(l, "gpu") || Contains(l, "root"))
    return ConstRole::kIgnored;
  for (const char* p : {"OMPI_", "MPICH_", "MPI_", "CUDA", "NCCL", "CUBLAS", "_"})
    if (c.name.rfind(p, 0) == 0) return ConstRole::kIgnored;
  if (c.value < 2) return ConstRole::kIgnored;
  for (const char* t : {"workspace", "thread", "block", "warp", "tile", "cta", "chunk", "stage", "unroll", "align",
                        "priority", "mib", "kib"})
    if (Contains(l, t)) return ConstRole::kTuning;
  return ConstRole::kSize;
}

// ---------------------------------------------------------------------------------------------
// What the program prints: printf-style calls and iostream chains, as (format, literal args).

struct PrintCall {
  std::string format;                 // iostream chains: literals, "%s" for an operand holding
                                      // literals, "%g" for any other operand
  std::vector<std::string> literals;  // string literals among the other arguments
  int line = 0;
  std::string callee;
};

std::vector<PrintCall> FindPrints(const std::string& code) {
  std::vector<PrintCall> out;
  static const std::regex call_re(R"(\b(?:std::)?(printf|fprintf|puts|fputs)\s*\()");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call_re); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position(0) + it->length(0) - 1);
    const size_t close = MatchParen(code, open);
    if (close == std::string::npos) continue;
    auto lits = StringLiterals(code, open + 1, close);
    if (lits.empty()) continue;
    PrintCall p;
    p.callee = (*it)[1].str();
    p.format = lits[0];
    p.literals.assign(lits.begin() + 1, lits.end());
    p.line = LineOf(code, open);
    out.push_back(std::move(p));
  }
  static const std::regex stream_re(R"(\b(?:std::)?(cout|cerr)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), stream_re); it != std::sregex_iterator(); ++it) {
    size_t i = static_cast<size_t>(it->position(0) + it->length(0));
    PrintCall p;
    p.callee = (*it)[1].str();
    p.line = LineOf(code, i);
    // Operands between top-level `<<` up to the ';'.
    size_t operand = std::string::npos;
    int depth = 0;
    auto flush = [&](size_t end) {
      if (operand == std::string::npos) return;
      const std::string text = Trim(code.substr(operand, end - operand));
      auto lits = StringLiterals(code, operand, end);
      const bool only_literal = !text.empty() && text.front() == '"' && text.back() == '"' && lits.size() == 1;
      if (only_literal) p.format += lits[0];
      else if (text == "std::endl" || text == "endl" || text == "'\\n'") p.format += "\n";
      else if (!lits.empty()) p.format += "%s", p.literals.insert(p.literals.end(), lits.begin(), lits.end());
      else p.format += "%g";
      operand = std::string::npos;
    };
    for (; i < code.size(); ++i) {
      const char c = code[i];
      if (c == '"' || c == '\'') {
        if (operand == std::string::npos) operand = i;
        i = SkipLiteral(code, i) - 1;
        continue;
      }
      if (c == '(' || c == '[') ++depth;
      else if (c == ')' || c == ']') --depth;
      if (depth == 0 && c == '<' && i + 1 < code.size() && code[i + 1] == '<') {
        flush(i);
        ++i;
        operand = i + 1;
        continue;
      }
      if ((depth == 0 && c == ';') || depth < 0) break;
      if (operand == std::string::npos && !std::isspace(static_cast<unsigned char>(c))) operand = i;
    }
    flush(i);
    if (!p.format.empty()) out.push_back(std::move(p));
  }
  std::sort(out.begin(), out.end(), [](const PrintCall& a, const PrintCall& b) { return a.line < b.line; });
  return out;
}

// ECMAScript regex for `text` as printed: specials escaped, each run of whitespace `\s*`.
std::string RegexFor(const std::string& text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space) out += "\\s*", space = false;
    if (std::strchr("\\^$.|?*+()[]{}", c)) out += '\\';
    out += c;
  }
  if (space) out += "\\s*";
  return out;
}

// Text of a format between two conversions, without leading spaces or punctuation.
std::string LabelBefore(const std::string& segment) {
  size_t b = 0;
  while (b < segment.size() && !std::isalnum(static_cast<unsigned char>(segment[b]))) ++b;
  return segment.substr(b);
}

const std::regex& ConversionRe() {
  static const std::regex re(R"(%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|z|j|t)?([diouxXeEfFgGaAcsp%]))");
  return re;
}

struct RegexGuess {
  std::string regex;
  int line = 0;
  std::string shown;  // the format, for the comment
  std::string unit;   // time: "ms", "us", "s", "ns" or "" (unknown)
};

std::optional<RegexGuess> GuessTimeRegex(const std::vector<PrintCall>& prints) {
  static const std::regex word_re(R"([A-Za-z_]*(?:[Tt]ime|TIME|[Ee]lapsed|ELAPSED|[Ll]atency|LATENCY|[Dd]uration|[Tt]ook)[A-Za-z_]*)");
  static const std::regex unit_re(R"(^\s*(ms|msec|milliseconds?|us|usec|microseconds?|ns|nsec|s|sec|seconds?)\b)");
  for (const auto& p : prints) {
    size_t prev_end = 0;
    for (auto it = std::sregex_iterator(p.format.begin(), p.format.end(), ConversionRe()); it != std::sregex_iterator(); ++it) {
      const size_t at = static_cast<size_t>(it->position(0));
      const std::string segment = p.format.substr(prev_end, at - prev_end);
      prev_end = at + static_cast<size_t>(it->length(0));
      if (!std::strchr("eEfFgG", (*it)[1].str()[0])) continue;
      std::smatch last;
      bool found = false;
      for (auto wi = std::sregex_iterator(segment.begin(), segment.end(), word_re); wi != std::sregex_iterator(); ++wi)
        last = *wi, found = true;
      if (!found) continue;
      const std::string label = segment.substr(static_cast<size_t>(last.position(0)));
      RegexGuess g;
      g.regex = RegexFor(label) + "([0-9.eE+-]+)";
      const std::string after = p.format.substr(prev_end);
      std::smatch u;
      if (std::regex_search(after, u, unit_re)) {
        const std::string unit = u[1].str();
        g.unit = unit.rfind("ms", 0) == 0 || unit.rfind("milli", 0) == 0 ? "ms"
                 : unit[0] == 'u' || unit.rfind("micro", 0) == 0     ? "us"
                 : unit[0] == 'n'                                     ? "ns"
                                                                      : "s";
        g.regex += "\\s*" + RegexFor(unit);
      }
      g.line = p.line;
      g.shown = p.format;
      return g;
    }
  }
  return std::nullopt;
}

// The pass (want_pass) or fail pattern: a word such as PASS / FAILED in a format, or in a literal
// printed through a format's %s ("Verification: %s", ok ? "PASS" : "FAIL").
std::optional<RegexGuess> GuessVerdictRegex(const std::vector<PrintCall>& prints, bool want_pass) {
  static const std::regex pass_re(R"(\b(PASS(?:ED)?|Pass(?:ed)?|passed|SUCCESS(?:FUL)?|Success(?:ful)?|CORRECT|Correct)\b)");
  static const std::regex fail_re(R"(\b(FAIL(?:ED|URE)?|Fail(?:ed|ure)?|failed|INCORRECT|Incorrect|MISMATCH|Mismatch)\b)");
  const std::regex& word = want_pass ? pass_re : fail_re;
  for (const auto& p : prints) {
    // The text of the format cut at conversions: each piece with the conversion that ends it.
    size_t prev_end = 0;
    std::vector<std::pair<std::string, std::string>> pieces;  // (text, conversion letter or "")
    for (auto it = std::sregex_iterator(p.format.begin(), p.format.end(), ConversionRe()); it != std::sregex_iterator(); ++it) {
      pieces.push_back({p.format.substr(prev_end, static_cast<size_t>(it->position(0)) - prev_end), (*it)[1].str()});
      prev_end = static_cast<size_t>(it->position(0) + it->length(0));
    }
    pieces.push_back({p.format.substr(prev_end), ""});
    for (const auto& [text, conv] : pieces) {
      std::smatch m;
      if (std::regex_search(text, m, word)) {
        RegexGuess g;
        const std::string label = LabelBefore(text.substr(0, static_cast<size_t>(m.position(0))));
        g.regex = RegexFor(label) + m[1].str();
        g.line = p.line;
        g.shown = p.format;
        return g;
      }
      if (conv == "s") {
        for (const auto& lit : p.literals) {
          std::smatch lm;
          if (!std::regex_search(lit, lm, word)) continue;
          RegexGuess g;
          g.regex = RegexFor(LabelBefore(text)) + RegexFor(lit.substr(0, static_cast<size_t>(lm.position(0) + lm.length(0))));
          g.line = p.line;
          g.shown = p.format;
          return g;
        }
        break;  // only the first %s carries the verdict
      }
    }
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// World size, launcher, libraries.

struct WorldGuess {
  int size = 2;
  std::string source;  // "" for the default
};

WorldGuess GuessWorldSize(const std::string& raw, const std::string& code, const std::string& file,
                          const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars) {
  // 1. A check such as `world_size != 2` or `2 == nranks`.
  static const std::regex check_re(R"(\b([A-Za-z_][\w.]*(?:->\w+)?)\s*(==|!=)\s*(\d+)\b|\b(\d+)\s*(==|!=)\s*([A-Za-z_][\w.]*(?:->\w+)?)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), check_re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    std::string var = m[1].matched ? m[1].str() : m[6].str();
    const int value = std::stoi(m[1].matched ? m[3].str() : m[4].str());
    const std::string last = var.substr(var.find_last_of(".>") == std::string::npos ? 0 : var.find_last_of(".>") + 1);
    if (value < 2 || value > 4096 || !IsWorldName(last, world_vars)) continue;
    return {value, fmt::format("{}:{}: `{}`", file, LineOf(code, static_cast<size_t>(m.position(0))), CommentText(m.str(0)))};
  }
  // 2. A constant named like a world size.
  for (const auto& c : constants)
    if (!c.option && IsWorldName(c.name, world_vars) && c.value >= 1 && c.value <= 4096)
      return {static_cast<int>(c.value), fmt::format("{}:{}: {} {} = {}", file, c.line, c.how, c.name, c.value)};
  // 3. A launch line in a comment or string: `mpirun -np 4`, `srun -n 4`.
  static const std::regex np_re(R"(\b(mpirun|mpiexec|srun)\b[^\n]*?\s(?:-np|-n|--ntasks(?:=|\s+))\s*(\d+))");
  std::smatch m;
  if (std::regex_search(raw, m, np_re)) {
    const int v = std::stoi(m[2].str());
    if (v >= 1 && v <= 4096)
      return {v, fmt::format("{}:{}: `{}`", file, LineOf(raw, static_cast<size_t>(m.position(0))), CommentText(m.str(0), 60))};
  }
  return {};
}

// Identifiers called in the code (`name(` or `name<<<`), each with its first line.
std::map<std::string, int> CalledNames(const std::string& code) {
  std::map<std::string, int> out;
  static const std::regex call_re(R"(\b([A-Za-z_]\w*)\s*(?:\(|<<<))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), call_re); it != std::sregex_iterator(); ++it)
    if (!out.count((*it)[1].str())) out.emplace((*it)[1].str(), LineOf(code, static_cast<size_t>(it->position(0))));
  return out;
}

// ---------------------------------------------------------------------------------------------
// The iteration: the data ops around the communication, and the buffers it reads and writes.

bool IsCommOp(const AnalyzedOp& op) { return op.kind == "collective" || op.kind == "p2p"; }
bool IsDataOp(const AnalyzedOp& op) {
  return IsCommOp(op) || op.kind == "kernel" || op.kind == "gemm" || op.kind == "copy" || op.kind == "group";
}

// Ops of one iteration, per function holding communication: from the first producer (or comm op)
// to the last consumer (or comm op), data ops only.
std::vector<int> IterationOps(const Analysis& a) {
  std::map<std::string, std::pair<int, int>> span;  // function -> [lo, hi]
  auto widen = [&](const std::string& f, int i) {
    auto [it, fresh] = span.try_emplace(f, i, i);
    if (!fresh) it->second.first = std::min(it->second.first, i), it->second.second = std::max(it->second.second, i);
  };
  for (const auto& op : a.ops)
    if (IsCommOp(op)) widen(op.function, op.index);
  for (const auto& e : a.edges) {
    // Calls of helpers (the analysis's `call` ops) stay out: the skeleton is built from the
    // function that issues the communication itself.
    if (a.ops[e.from].kind == "call" || a.ops[e.to].kind == "call") continue;
    widen(a.ops[e.from].function, e.from);
    widen(a.ops[e.to].function, e.to);
  }
  std::vector<int> out;
  for (const auto& op : a.ops) {
    auto it = span.find(op.function);
    if (it != span.end() && op.index >= it->second.first && op.index <= it->second.second && IsDataOp(op))
      out.push_back(op.index);
  }
  return out;
}

struct IoGuess {
  std::vector<std::string> inputs, outputs, scratch;  // base variables as the program writes them
};

// First access a read: an input; last access a write: an output; otherwise scratch. A GEMM that
// reads and writes its C matrix (beta) counts as writing it.
IoGuess GuessIo(const Analysis& a, const std::vector<int>& ops) {
  std::vector<std::string> order;
  std::map<std::string, char> first, last;
  auto touch = [&](const std::string& b, char how) {
    if (!first.count(b)) first[b] = how, order.push_back(b);
    last[b] = how;
  };
  for (int i : ops) {
    const AnalyzedOp& op = a.ops[i];
    auto writes = [&](const std::string& b) { return std::find(op.writes.begin(), op.writes.end(), b) != op.writes.end(); };
    for (const auto& b : op.reads)
      if (!(op.kind == "gemm" && writes(b))) touch(b, 'r');
    for (const auto& b : op.writes) touch(b, 'w');
  }
  IoGuess g;
  for (const auto& b : order) {
    const bool in = first[b] == 'r', out = last[b] == 'w';
    if (in) g.inputs.push_back(b);
    if (out) g.outputs.push_back(b);
    if (!in && !out) g.scratch.push_back(b);
  }
  return g;
}

// "s.partial" -> "partial", "(void*)buf" -> "buf": a name for IO::in / IO::out.
std::string IoName(const std::string& base) {
  std::string b = base;
  for (const char* sep : {"->", "."}) {
    const size_t p = b.rfind(sep);
    if (p != std::string::npos) b = b.substr(p + std::strlen(sep));
  }
  std::string out;
  for (char c : b)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
  if (out.empty()) out = "buf";
  return out.substr(0, 40);
}

const char* DTypeFor(const std::string& nccl_type) {
  static const std::map<std::string, const char*> m = {
      {"ncclBfloat16", "kBF16"}, {"ncclHalf", "kF16"},   {"ncclFloat16", "kF16"}, {"ncclFloat", "kF32"},
      {"ncclFloat32", "kF32"},   {"ncclDouble", "kF64"}, {"ncclFloat64", "kF64"}, {"ncclInt", "kI32"},
      {"ncclInt32", "kI32"},     {"ncclInt64", "kI64"},  {"ncclUint8", "kU8"},    {"ncclInt8", "kU8"},
      {"ncclChar", "kU8"}};
  auto it = m.find(nccl_type);
  return it == m.end() ? nullptr : it->second;
}

std::string OpSummary(const AnalyzedOp& op, const std::string& file) {
  std::string args;
  for (size_t i = 0; i < op.args.size(); ++i) args += (i ? ", " : "") + op.args[i];
  if (op.kind == "kernel") return CommentText(fmt::format("{}:{} {}<<<{}, {}>>>({})", file, op.line, op.api, op.grid, op.block, args), 160);
  return CommentText(fmt::format("{}:{} {}({})", file, op.line, op.api, args), 160);
}

std::string TomlList(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", \"" : "\"") + v[i] + "\"";
  return out + "]";
}

// `key = value` padded so that a trailing comment lines up.
std::string KeyLine(const std::string& kv, const std::string& comment = "") {
  if (comment.empty()) return kv + "\n";
  std::string line = kv;
  if (line.size() < 26) line.resize(26, ' ');
  else line += "  ";
  return line + "# " + comment + "\n";
}

// Everything the generators share.
struct Facts {
  std::string file;      // the program's file name ("program.cu")
  std::string name;      // program-mode workload name
  std::string raw, code; // the program; the program without comments
  const Analysis* analysis = nullptr;
  std::map<std::string, int> called;
  WorldGuess world;
  std::string launcher, launcher_source;
  std::vector<std::string> libs;
  std::vector<FoundConstant> constants;
  std::set<std::string> world_vars;
  std::vector<PrintCall> prints;
  std::optional<RegexGuess> time, pass, fail;
  std::vector<int> iteration;
  IoGuess io;
  std::string dtype = "kF32";  // of the communicated data
  std::vector<std::string> collectives;  // "ncclReduceScatter (program.cu:145)"
  std::vector<std::string> env_reads;    // getenv names
  std::vector<std::string> todos;
  bool has_main = true;
};

int FirstCall(const Facts& f, const std::string& prefix, std::string* which = nullptr) {
  for (const auto& [name, line] : f.called)
    if (name.rfind(prefix, 0) == 0) {
      if (which) *which = name;
      return line;
    }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The files.

std::string ProgramToml(const Facts& f) {
  std::string t;
  t += fmt::format("# {}: scaffolded by `cuco init` from {} (program mode, UNTRUSTED: the program checks and\n", f.name, f.file);
  t += "# times itself and cuco reads its output). analysis.txt holds `cuco analyze`; harness/ holds a\n";
  t += "# harness-mode skeleton to fill in for trusted figures and the search.\n";
  t += KeyLine("name = \"" + f.name + "\"");
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " + TomlLiteralOrQuoted(fmt::format("{} run as is: {}. Figures are the program's own output", f.file,
                                                         colls.empty() ? "no collective found" : colls)));
  t += KeyLine("mode = \"program\"", "harness | program");
  t += KeyLine("language = \"cuda\"");
  if (!f.has_main) t += fmt::format("# TODO(cuco init): {} defines no main(); program mode needs a complete program.\n", f.file);
  t += KeyLine("seed = " + TomlLiteralOrQuoted(f.file));
  t += KeyLine(fmt::format("world_size = {}", f.world.size),
               f.world.source.empty() ? "TODO(cuco init): no rank count found in the program; 2 assumed" : f.world.source);
  t += KeyLine(fmt::format("world_sizes = [{}]", f.world.size), "add the other rank counts the program supports");
  t += "\n[build]\n";
  t += KeyLine("flags = [\"-O3\"]");
  t += KeyLine("libs = " + TomlList(f.libs), "from the calls in " + f.file);
  t += "\n[program]\n";
  if (f.launcher == "cuco") {
    t += fmt::format("# TODO(cuco init): {} does not call MPI_Init, so it runs under cuco's own launcher: one process\n", f.file);
    t += "# per rank, each with CUCO_RANK, CUCO_WORLD_SIZE, CUCO_LOCAL_RANK, CUCO_LOCAL_WORLD_SIZE and\n";
    t += "# CUCO_RENDEZVOUS_DIR (a fresh folder per run shared by the ranks) in its environment.\n";
    if (!f.env_reads.empty()) {
      std::string names;
      for (size_t i = 0; i < f.env_reads.size(); ++i) names += (i ? ", " : "") + f.env_reads[i];
      t += fmt::format("# The program reads {}: make it read the CUCO_ variables instead.\n", CommentText(names, 80));
    }
    t += "# Exchange the ncclUniqueId through a file in CUCO_RENDEZVOUS_DIR, not a fixed path.\n";
  }
  t += KeyLine("launcher = \"" + f.launcher + "\"", f.launcher_source);
  std::string defaults;
  for (const auto& c : f.constants)
    if (c.option) defaults += fmt::format(" {} {}", c.name, c.value);
  t += KeyLine("args = []", defaults.empty() ? "extra arguments to the program" : "the program's defaults:" + defaults);
  auto regex_line = [&](const char* key, const std::optional<RegexGuess>& g, const std::string& fallback,
                        const std::string& todo) {
    if (g) {
      std::string c = fmt::format("{}:{}: \"{}\"", f.file, g->line, CommentText(EscapeNewlines(g->shown), 60));
      if (std::string(key) == "time_regex" && g->unit != "ms")
        c = "TODO(cuco init): the group must be milliseconds; " + c;
      t += KeyLine(fmt::format("{} = {}", key, TomlLiteralOrQuoted(g->regex)), c);
    } else if (!fallback.empty()) {
      t += "# " + todo + "\n";
      t += KeyLine(fmt::format("{} = {}", key, TomlLiteralOrQuoted(fallback)));
    }
  };
  regex_line("time_regex", f.time, "Time:\\s*([0-9.eE+-]+)\\s*ms",
             "TODO(cuco init): no timing line found in the program's output formats: make it print \"Time: <ms> ms\"\n"
             "# (the slowest rank's figure is taken) or change this regex (first group = milliseconds).");
  regex_line("pass_regex", f.pass, "PASS",
             "TODO(cuco init): no pass line found in the program's output formats: make it print \"PASS\" when its\n"
             "# own check passes, or change this regex.");
  regex_line("fail_regex", f.fail, "", "");
  t += "\n[limits]\n";
  t += KeyLine("compile_s = 600");
  t += KeyLine("verify_s = 120");
  t += KeyLine("bench_s = 300", "the program's whole run");
  return t;
}

int64_t VerifySize(int64_t bench) {
  int64_t v = bench;
  while (v > 1024 && v % 2 == 0) v /= 2;
  return v;
}

struct HarnessSizes {
  std::vector<GuessedInt> sizes;
  std::vector<GuessedInt> tuning;  // constants left in the code
  std::optional<GuessedInt> warmup, iters;
};

HarnessSizes SplitConstants(const Facts& f) {
  HarnessSizes h;
  std::set<std::string> names;
  for (const auto& c : f.constants) {
    GuessedInt g{SizeName(c), c.value, fmt::format("{}:{}: {}{}", f.file, c.line, c.how, c.option ? "" : " " + c.name)};
    switch (Classify(c, f.world_vars)) {
      case ConstRole::kSize:
        if (names.insert(g.name).second && h.sizes.size() < 16) h.sizes.push_back(g);
        break;
      case ConstRole::kTuning: h.tuning.push_back(g); break;
      case ConstRole::kWarmup:
        if (!h.warmup) h.warmup = g;
        break;
      case ConstRole::kIters:
        if (!h.iters) h.iters = g;
        break;
      default: break;
    }
  }
  return h;
}

const char* Tolerance(const std::string& dtype, double* rel_l2, double* max_abs) {
  if (dtype == "kBF16") return *rel_l2 = 0.01, *max_abs = 0.0625, "bf16 (8 significant bits)";
  if (dtype == "kF16") return *rel_l2 = 0.005, *max_abs = 0.01, "fp16 (11 significant bits)";
  if (dtype == "kF64") return *rel_l2 = 1e-9, *max_abs = 1e-9, "fp64";
  if (dtype == "kI32" || dtype == "kI64" || dtype == "kU8") return *rel_l2 = 0, *max_abs = 0, "integers (exact)";
  return *rel_l2 = 1e-4, *max_abs = 1e-3, "fp32";
}

std::string HarnessToml(const Facts& f, const HarnessSizes& h) {
  std::string t;
  t += fmt::format("# {}_harness: harness-mode skeleton scaffolded by `cuco init` from ../{}.\n", f.name, f.file);
  t += "# It loads as written; seed.cu and reference.cu fail every run with a TODO(cuco init) message\n";
  t += "# until they are filled in (README.md here says what and how to check it).\n";
  t += KeyLine("name = \"" + f.name + "_harness\"");
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " + TomlLiteralOrQuoted(fmt::format("TODO(cuco init): what each rank holds and produces. From {}: {}",
                                                         f.file, colls.empty() ? "no collective" : colls)));
  t += KeyLine("mode = \"harness\"", "harness | program");
  t += KeyLine("language = \"cuda\"");
  t += KeyLine("seed = \"seed.cu\"");
  t += KeyLine("reference = \"reference.cu\"");
  t += KeyLine(fmt::format("world_size = {}", f.world.size), f.world.source.empty() ? "TODO(cuco init): 2 assumed" : f.world.source);
  t += KeyLine(fmt::format("world_sizes = [{}]", f.world.size), "add the other rank counts the workload supports");
  t += "\n[build]\n";
  t += KeyLine("flags = [\"-O3\"]");
  std::vector<std::string> libs;
  for (const auto& l : f.libs)
    if (l != "mpi") libs.push_back(l);
  t += KeyLine("libs = " + TomlList(libs), "the harness bootstraps NCCL itself: no MPI");
  t += "\n# Sizes reach the seed and the reference as sizes.get(\"NAME\").\n";
  t += "[sizes.verify]\n";
  if (h.sizes.empty()) {
    t += fmt::format("# TODO(cuco init): no integer constants found in {}; name the workload's sizes here\n", f.file);
    t += "# (small ones: every verified iteration is checked against the reference), e.g. N = 1024\n";
  } else {
    t += "# TODO(cuco init): the bench sizes halved down to <= 1024; check they still divide as the code needs\n";
    for (const auto& s : h.sizes) t += KeyLine(fmt::format("{} = {}", s.name, VerifySize(s.value)));
  }
  t += "\n[sizes.bench]\n";
  if (h.sizes.empty()) t += "# TODO(cuco init): the sizes to time, e.g. N = 8192\n";
  for (const auto& s : h.sizes) t += KeyLine(fmt::format("{} = {}", s.name, s.value), s.source);
  if (!h.tuning.empty()) {
    t += "# Not sizes (tuning constants; they stay in the code):";
    for (const auto& s : h.tuning) t += fmt::format(" {} = {} ({})", s.name, s.value, s.source);
    t += "\n";
  }
  double rel = 0, abs = 0;
  const char* why = Tolerance(f.dtype, &rel, &abs);
  t += "\n[tolerance]\n";
  t += fmt::format("# TODO(cuco init): placeholders for {} outputs. Derive both from the arithmetic (rounding of\n", why);
  t += "# each partial result and of the reduction, for the largest world size) and say why here.\n";
  t += KeyLine(fmt::format("rel_l2 = {}", rel));
  t += KeyLine(fmt::format("max_abs = {}", abs));
  t += "\n[timing]\n";
  t += KeyLine(fmt::format("warmup = {}", h.warmup ? std::max<int64_t>(0, h.warmup->value) : 5),
               h.warmup ? h.warmup->source : "");
  t += KeyLine(fmt::format("iters = {}", h.iters ? std::max<int64_t>(20, h.iters->value) : 20),
               h.iters ? h.iters->source + " (at least 20)" : "at least 20");
  t += KeyLine("verify_runs = 2");
  t += KeyLine("verify_fraction = 0.25");
  t += "\n[limits]\n";
  t += KeyLine("compile_s = 600");
  t += KeyLine("verify_s = 120");
  t += KeyLine("bench_s = 300");
  return t;
}

// Hint for moving one op of the program into cuco_candidate_run.
std::string RunHint(const AnalyzedOp& op, const Facts& f) {
  if (op.kind == "gemm") return op.api == "cublasLtMatmul" ? "handle ctx.cublaslt(), stream ctx.stream" : "cuBLAS handle made in setup, cublasSetStream(handle, ctx.stream)";
  if (IsCommOp(op)) return "communicator ctx.comm, stream ctx.stream (or a ctx.side_stream(i))";
  if (op.kind == "group") return "keep the group around the calls it held";
  if (op.kind == "copy") return "cudaMemcpyAsync on ctx.stream";
  if (op.kind == "kernel") {
    for (const auto& fn : f.analysis->functions)
      if (fn.name == op.api) return fmt::format("on ctx.stream; move the kernel ({}:{}) into this block", f.file, fn.line);
    return "on ctx.stream; move the kernel's definition into this block";
  }
  return "";
}

// Hint for the program's setup ops (what the harness already owns, what setup does instead).
std::string SetupHint(const AnalyzedOp& op, const std::set<std::string>& io_bases) {
  if (op.kind == "alloc") {
    if (io_bases.count(op.assigns)) return "an input/output: the harness allocates it (io.in / io.out)";
    return "scratch: allocate in setup (ctx.alloc_symmetric for NCCL windows), free in teardown";
  }
  if (op.api == "ncclCommSplit") return "ncclCommSplit(ctx.comm, ...) in setup (every rank), destroy in teardown";
  if (op.kind == "comm_setup") return "drop: the harness gives ctx.comm";
  if (op.kind == "stream") return "drop: use ctx.stream and ctx.side_stream(i) (created by the harness)";
  if (op.kind == "event") return "drop: use ctx.record_event(i, stream) / ctx.wait_event(stream, i); the harness times";
  if (op.kind == "window") return "ctx.alloc_symmetric allocates and registers a symmetric window";
  if (op.kind == "device_comm") return "ctx.create_dev_comm(reqs, &dev_comm) in setup";
  if (op.kind == "sync" || op.kind == "mpi") return "drop: the harness synchronises and launches the ranks";
  return "";
}

std::string SeedCu(const Facts& f, const HarnessSizes& h) {
  const Analysis& a = *f.analysis;
  std::string s;
  s += fmt::format("// {}_harness candidate file, scaffolded by `cuco init` from {}.\n", f.name, f.file);
  s += "//\n";
  s += "// TODO(cuco init): move the program's iteration into the EVOLVE block below, following the\n";
  s += "// harness contract (runtime/include/cuco/harness.h): setup once (allocate scratch, build plans),\n";
  s += "// run one iteration on ctx.stream reading io.in(...) and writing io.out(...), teardown frees\n";
  s += "// what setup made. The harness owns main, MPI/NCCL bootstrap, streams, timing and checking.\n";
  s += "// Only the code inside the EVOLVE block may change in candidates; these includes are frozen.\n";
  s += "#include <cuco/harness.h>\n";
  s += "#include <cuco/codesign.h>  // the co-design blocks; `cuco transform` needs it\n\n";
  s += "#include <cublasLt.h>\n";
  if (std::find(f.libs.begin(), f.libs.end(), "cublas") != f.libs.end()) s += "#include <cublas_v2.h>\n";
  s += "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n#include <nccl.h>\n#include <nccl_device.h>\n\n";
  s += "#include <algorithm>\n#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <string>\n#include <vector>\n\n";
  s += "// EVOLVE-BLOCK-START\n";
  s += fmt::format("// What `cuco analyze` found in {} (../analysis.txt has the whole report).\n", f.file);
  for (const auto& e : a.edges) {
    const auto& from = a.ops[e.from];
    const auto& to = a.ops[e.to];
    s += "//   " + CommentText(fmt::format("{} {}:{} -> {} {}:{} through {}", e.role == "producer" ? "producer" : "collective",
                                 from.api, from.line, e.role == "producer" ? "collective" : "consumer", to.api, to.line,
                                 e.buffer), 200) + "\n";
  }
  // "name (program's expression)"; outputs the program updates in place get "_out", as in reference.cu.
  auto names = [&](const std::vector<std::string>& v, bool outputs) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      const bool in_place = outputs && std::find(f.io.inputs.begin(), f.io.inputs.end(), v[i]) != f.io.inputs.end();
      const std::string n = IoName(v[i]) + (in_place ? "_out" : "");
      out += (i ? ", " : "") + n + (n != v[i] ? " (" + v[i] + (in_place ? ", in place" : "") + ")" : "");
    }
    return out.empty() ? std::string("none found") : out;
  };
  s += "// Guessed from the dependency graph (reference.cu declares them; check it):\n";
  s += "//   inputs:  " + CommentText(names(f.io.inputs, false), 200) + "\n";
  s += "//   outputs: " + CommentText(names(f.io.outputs, true), 200) + "\n";
  if (!f.io.scratch.empty()) s += "//   scratch: " + CommentText(names(f.io.scratch, false) + " (allocate in setup)", 200) + "\n";
  s += "namespace {\n\n";
  s += "struct State {\n";
  s += "  // TODO(cuco init): what setup makes and run uses (scratch buffers, plans, handles).\n";
  std::set<std::string> members = {"iterations"};
  for (const auto& b : f.io.scratch)
    if (members.insert(IoName(b)).second) s += fmt::format("  void* {} = nullptr;  // {}\n", IoName(b), CommentText(b, 60));
  s += "  int64_t iterations = 0;\n";
  s += "};\n\n";
  s += "}  // namespace\n\n";

  s += "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {\n";
  s += "  auto* s = new State();\n";
  s += "  *state = s;\n";
  if (!h.sizes.empty()) {
    s += "  // The sizes workload.toml defines:\n";
    for (const auto& z : h.sizes) s += fmt::format("  const int64_t {} = sizes.get(\"{}\");\n", z.name, z.name);
    for (const auto& z : h.sizes) s += fmt::format("  (void){};\n", z.name);
  }
  std::set<std::string> io_bases(f.io.inputs.begin(), f.io.inputs.end());
  io_bases.insert(f.io.outputs.begin(), f.io.outputs.end());
  // The program's other ops grouped by where they go, each group in source order.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // hint -> "api -> var (line)"
  for (const auto& op : a.ops) {
    if (IsDataOp(op)) continue;
    const std::string hint = SetupHint(op, io_bases);
    if (hint.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == hint; });
    if (it == groups.end()) it = groups.insert(groups.end(), {hint, {}});
    it->second.push_back(fmt::format("{}{} (:{})", op.api, op.assigns.empty() ? "" : " -> " + op.assigns, op.line));
  }
  if (!groups.empty()) s += fmt::format("  // TODO(cuco init): the rest of {}, and where each part goes:\n", f.file);
  for (const auto& [hint, items] : groups) {
    std::string line = "  //  ";
    for (size_t i = 0; i < items.size(); ++i) {
      if (line.size() + items[i].size() > 104) s += line + "\n", line = "  //  ";
      line += " " + items[i] + (i + 1 < items.size() ? "," : "");
    }
    s += line + "\n";
    s += "  //       -> " + CommentText(hint, 200) + "\n";
  }
  s += "  (void)ctx;\n  (void)sizes;\n";
  s += "  return cuco::Status::Ok();\n";
  s += "}\n\n";

  s += "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {\n";
  s += "  auto* s = static_cast<State*>(state);\n";
  s += "  ++s->iterations;\n";
  s += fmt::format("  // TODO(cuco init): one iteration of {}, in its order, enqueued on ctx.stream:\n", f.file);
  for (int i : f.iteration) {
    const auto& op = a.ops[i];
    s += "  //   " + OpSummary(op, f.file) + "\n";
    const std::string hint = RunHint(op, f);
    if (!hint.empty()) s += "  //       -> " + CommentText(hint, 200) + "\n";
  }
  if (!f.io.inputs.empty() || !f.io.outputs.empty()) {
    s += "  // Buffers: ";
    std::string sep;
    for (const auto& b : f.io.inputs) s += sep + "io.in(\"" + IoName(b) + "\").ptr", sep = ", ";
    for (const auto& b : f.io.outputs) {
      const bool also_in = std::find(f.io.inputs.begin(), f.io.inputs.end(), b) != f.io.inputs.end();
      s += sep + "io.out(\"" + IoName(b) + (also_in ? "_out" : "") + "\").ptr", sep = ", ";
    }
    s += "\n";
  }
  s += "  (void)ctx;\n  (void)io;\n";
  s += fmt::format("  return cuco::Status::Error(\"TODO(cuco init): harness/seed.cu is a skeleton: move the iteration of {} \"\n",
                   f.file);
  s += "                             \"into cuco_candidate_run (harness/README.md)\");\n";
  s += "}\n\n";

  s += "void cuco_candidate_teardown(cuco::RankContext& ctx, void* state) {\n";
  s += "  (void)ctx;\n";
  s += "  auto* s = static_cast<State*>(state);\n";
  s += "  // TODO(cuco init): free what setup allocated (not the harness's buffers or windows).\n";
  s += "  delete s;\n";
  s += "}\n";
  s += "// EVOLVE-BLOCK-END\n";
  return s;
}

std::string ReferenceCu(const Facts& f) {
  std::string r;
  r += fmt::format("// {}_harness: the frozen side (inputs, reference, comparison), scaffolded by `cuco init`\n", f.name);
  r += fmt::format("// from {}. Candidates never see it. The contract is runtime/include/cuco/workload_spec.h;\n", f.file);
  r += "// workloads/gemm_reducescatter/reference.cu is a complete example.\n";
  r += "//\n";
  r += "// TODO(cuco init): every function below. fill_inputs writes each input element as a pure function\n";
  r += "// of (seed, tensor, rank, index) with cuco/impl/random.h; check regenerates every rank's inputs\n";
  r += "// from the seed (never reading the input buffers), computes the expected output rows simply and\n";
  r += "// obviously correctly (fp64), compares, and scrubs its scratch memory before returning.\n";
  r += "#include <cuco/impl/random.h>\n#include <cuco/workload_spec.h>\n\n";
  r += "#include <cuda_bf16.h>\n#include <cuda_runtime.h>\n\n";
  r += "#include <cstdint>\n#include <string>\n#include <vector>\n\n";
  r += "namespace cuco_frozen {\n\n";
  r += fmt::format("const char* workload_name() {{ return \"{}_harness\"; }}\n\n", f.name);
  r += "cuco::Status validate_sizes(const cuco::Sizes& sizes, int world) {\n";
  r += "  (void)sizes;\n  (void)world;\n";
  r += "  // TODO(cuco init): check every size is there and divides as the workload needs; then return Ok.\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): reference.cu is a skeleton: write validate_sizes, buffers, \"\n";
  r += "                             \"output_rows, fill_inputs and check (see harness/README.md)\");\n";
  r += "}\n\n";
  r += "std::vector<BufferSpec> buffers(const cuco::Sizes& sizes, int rank, int world) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n";
  r += fmt::format("  // TODO(cuco init): this rank's element counts. Names and roles guessed from {}'s\n", f.file);
  r += "  // dependency graph; types from its NCCL datatype. Same order and count on every rank.\n";
  r += "  return {\n";
  std::set<std::string> used;
  auto spec = [&](const std::string& base, bool output) {
    std::string n = IoName(base);
    if (output && std::find(f.io.inputs.begin(), f.io.inputs.end(), base) != f.io.inputs.end()) n += "_out";
    if (!used.insert(std::string(output ? "o:" : "i:") + n).second) return;
    r += fmt::format("      {{\"{}\", Role::{}, DType::{}, 0 /* TODO(cuco init): elements */}},  // {}\n", n,
                     output ? "kOutput" : "kInput", f.dtype, CommentText(base, 60));
  };
  for (const auto& b : f.io.inputs) spec(b, false);
  for (const auto& b : f.io.outputs) spec(b, true);
  r += "  };\n";
  r += "}\n\n";
  r += "int64_t output_rows(const cuco::Sizes& sizes, int rank, int world) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n";
  r += "  return 0;  // TODO(cuco init): rows of this rank's output (the unit check() samples)\n";
  r += "}\n\n";
  r += "cuco::Status fill_inputs(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,\n";
  r += "                         cudaStream_t stream) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n  (void)seed;\n  (void)io;\n  (void)stream;\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): fill_inputs (stream_key(seed, tensor, rank), uniform_pm1)\");\n";
  r += "}\n\n";
  r += "cuco::Status check(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,\n";
  r += "                   const CheckPlan& plan, cudaStream_t stream, CheckResult* result) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n  (void)seed;\n  (void)io;\n  (void)plan;\n  (void)stream;\n";
  r += "  *result = CheckResult{};\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): check (regenerate the inputs, compute the planned rows, compare)\");\n";
  r += "}\n\n";
  r += "}  // namespace cuco_frozen\n";
  return r;
}

std::string HarnessReadme(const Facts& f) {
  std::string m;
  m += fmt::format("# {}_harness (skeleton from `cuco init`)\n\n", f.name);
  m += fmt::format("The harness-mode twin of `../{}`: trusted figures, and what `cuco evolve` searches.\n", f.file);
  m += "Nothing here runs yet: every `TODO(cuco init)` marks something to fill in\n";
  m += "(`grep -n 'TODO(cuco init)' *`), and until then each run fails with one of them.\n\n";
  m += "1. `workload.toml`: the description, the sizes (guessed from the program's constants; the\n";
  m += "   comment on each says where it came from), the tolerance (derive it from the arithmetic).\n";
  m += "2. `reference.cu`: the buffers (names and roles guessed from the program's dependency graph),\n";
  m += "   `fill_inputs`, and `check`, which recomputes the expected rows from the seed\n";
  m += "   (contract: `runtime/include/cuco/workload_spec.h`; example: `workloads/gemm_reducescatter/`).\n";
  m += "3. `seed.cu`: the iteration of the program inside the EVOLVE block: allocations in\n";
  m += "   `cuco_candidate_setup`, kernels, GEMMs and the collectives on `ctx.stream` / `ctx.comm` in\n";
  m += "   `cuco_candidate_run`, frees in `cuco_candidate_teardown` (contract: `runtime/include/cuco/harness.h`).\n";
  m += "   The comments list what `cuco analyze` found and where each part goes.\n\n";
  m += "Check it:\n\n";
  m += "    cuco eval <this folder> --stage compile   # builds seed + reference + harness (no GPU needed)\n";
  m += "    cuco eval <this folder>                   # on a GPU machine: verify and bench the seed\n";
  m += "    cuco transform <this folder>              # then: generation 0 of the search\n\n";
  m += "See docs/adding-a-workload.md and docs/workload-contract.md.\n";
  return m;
}

}  // namespace

std::string SanitizeWorkloadName(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-') out += c;
    else if (!out.empty() && out.back() != '_') out += '_';
  }
  while (!out.empty() && (out.back() == '_' || out.back() == '.')) out.pop_back();
  while (!out.empty() && out.front() == '.') out.erase(0, 1);
  return out.empty() ? "workload" : out;
}

Result<ScaffoldReport> ScaffoldWorkload(const Analysis& analysis, const std::string& program_path,
                                        const fs::path& out_dir, const ScaffoldOptions& options) {
  auto raw = ReadFile(program_path);
  if (!raw.ok()) return Status::InvalidArgument(program_path + ": cannot read the program (" + raw.status().message() + ")");
  bool has_nccl = false;
  for (const auto& op : analysis.ops) has_nccl |= op.api.rfind("nccl", 0) == 0;
  if (!has_nccl)
    return Status::InvalidArgument(program_path +
                                   ": no NCCL call found; cuco init scaffolds multi-GPU programs that communicate "
                                   "through NCCL (`cuco analyze " + program_path + "` shows what was found)");

  std::error_code ec;
  if (fs::exists(out_dir, ec) && !fs::is_directory(out_dir, ec))
    return Status::InvalidArgument(out_dir.string() + ": exists and is not a folder");
  if (fs::is_directory(out_dir, ec) && !fs::is_empty(out_dir, ec) && !options.force)
    return Status::InvalidArgument(out_dir.string() + ": folder exists and is not empty (choose another --out, or --force to write into it)");

  Facts f;
  f.analysis = &analysis;
  f.file = fs::path(program_path).filename().string();
  f.name = SanitizeWorkloadName(options.name.empty() ? fs::path(program_path).stem().string() : options.name);
  if (!options.name.empty() && f.name != options.name)
    return Status::InvalidArgument("--name '" + options.name + "': a workload name may hold only letters, digits, '_', '-' and '.'");
  f.raw = *raw;
  f.code = StripComments(f.raw);
  f.called = CalledNames(f.code);

  // Variables that hold the world size: MPI_Comm_size(c, &x), ncclCommCount(c, &x).
  static const std::regex size_var_re(R"(\b(?:MPI_Comm_size|ncclCommCount)\s*\([^,()]*,\s*&\s*([A-Za-z_][\w.]*))");
  for (auto it = std::sregex_iterator(f.code.begin(), f.code.end(), size_var_re); it != std::sregex_iterator(); ++it) {
    std::string v = (*it)[1].str();
    f.world_vars.insert(v.substr(v.find_last_of('.') == std::string::npos ? 0 : v.find_last_of('.') + 1));
  }
  f.constants = FindConstants(f.code);
  f.world = GuessWorldSize(f.raw, f.code, f.file, f.constants, f.world_vars);

  // Launcher: MPI_Init means mpirun; otherwise cuco's launcher (TODO notes in the toml).
  std::string mpi_init;
  int mpi_line = 0;
  for (const auto& op : analysis.ops)
    if (op.api == "MPI_Init" || op.api == "MPI_Init_thread") {
      mpi_init = op.api, mpi_line = op.line;
      break;
    }
  if (mpi_init.empty()) mpi_line = FirstCall(f, "MPI_Init", &mpi_init);
  if (mpi_line > 0) {
    f.launcher = "mpirun";
    f.launcher_source = fmt::format("{}:{}: {}", f.file, mpi_line, mpi_init);
  } else {
    f.launcher = "cuco";
    f.launcher_source = "no MPI_Init in " + f.file;
    f.todos.push_back("workload.toml [program]: the program does not use MPI; make it read CUCO_RANK / CUCO_WORLD_SIZE "
                      "and exchange the ncclUniqueId through CUCO_RENDEZVOUS_DIR (comment there)");
    static const std::regex getenv_re(R"xx(\bgetenv\s*\(\s*"([^"]+)")xx");
    for (auto it = std::sregex_iterator(f.code.begin(), f.code.end(), getenv_re); it != std::sregex_iterator(); ++it) {
      const std::string v = (*it)[1].str();
      if (v.rfind("CUCO_", 0) != 0 && std::find(f.env_reads.begin(), f.env_reads.end(), v) == f.env_reads.end())
        f.env_reads.push_back(v);
    }
  }
  f.has_main = std::any_of(analysis.functions.begin(), analysis.functions.end(),
                           [](const AnalyzedFunction& fn) { return fn.name == "main"; }) ||
               f.called.count("main") > 0;
  if (!f.has_main)
    f.todos.push_back(fmt::format("{} defines no main(): program mode runs the program as it is, so it must be a "
                                  "complete program", f.file));
  if (int line = FirstCall(f, "ncclCommInitAll"))
    f.todos.push_back(fmt::format("{}:{}: ncclCommInitAll drives every GPU from one process; cuco starts one process "
                                  "per rank: use ncclCommInitRank per process", f.file, line));

  // Libraries, in the order the builder is usually given them.
  auto calls_prefix = [&](const std::string& p, const char* not_prefix = nullptr) {
    for (const auto& [n, line] : f.called)
      if (n.rfind(p, 0) == 0 && (!not_prefix || n.rfind(not_prefix, 0) != 0)) return true;
    return false;
  };
  if (calls_prefix("cublasLt")) f.libs.push_back("cublasLt");
  if (calls_prefix("cublas", "cublasLt")) f.libs.push_back("cublas");
  f.libs.push_back("nccl");
  if (calls_prefix("nvshmem")) f.libs.push_back("nvshmem");
  if (f.launcher == "mpirun" || calls_prefix("MPI_")) f.libs.push_back("mpi");

  f.prints = FindPrints(f.code);
  f.time = GuessTimeRegex(f.prints);
  f.pass = GuessVerdictRegex(f.prints, true);
  f.fail = GuessVerdictRegex(f.prints, false);
  if (!f.time) f.todos.push_back("workload.toml [program] time_regex: no timing line found in the program's output; "
                                 "the default expects \"Time: <ms> ms\"");
  else if (f.time->unit != "ms")
    f.todos.push_back(fmt::format("workload.toml [program] time_regex: {}:{} prints {} time; cuco reads milliseconds",
                                  f.file, f.time->line, f.time->unit.empty() ? "a unitless" : f.time->unit));
  if (!f.pass) f.todos.push_back("workload.toml [program] pass_regex: no pass line found; the default expects \"PASS\"");
  if (f.world.source.empty()) f.todos.push_back("workload.toml world_size: no rank count found in the program; 2 assumed");

  for (const auto& op : analysis.ops) {
    if (!IsCommOp(op)) continue;
    f.collectives.push_back(fmt::format("{} ({}:{})", op.api, f.file, op.line));
    if (f.dtype == "kF32" && DTypeFor(op.datatype)) f.dtype = DTypeFor(op.datatype);
  }
  f.iteration = IterationOps(analysis);
  f.io = GuessIo(analysis, f.iteration);

  const HarnessSizes sizes = SplitConstants(f);
  f.todos.push_back("harness/: fill in every TODO(cuco init) in workload.toml, reference.cu and seed.cu (harness/README.md)");

  // Write.
  ScaffoldReport rep;
  rep.out_dir = out_dir;
  rep.name = f.name;
  const fs::path harness = out_dir / "harness";
  CUCO_RETURN_IF_ERROR(MakeDirs(harness));
  const std::vector<std::pair<fs::path, std::string>> files = {
      {out_dir / f.file, f.raw},
      {out_dir / "workload.toml", ProgramToml(f)},
      {out_dir / "analysis.txt", FormatAnalysis(analysis)},
      {harness / "workload.toml", HarnessToml(f, sizes)},
      {harness / "seed.cu", SeedCu(f, sizes)},
      {harness / "reference.cu", ReferenceCu(f)},
      {harness / "README.md", HarnessReadme(f)},
  };
  for (const auto& [path, text] : files) {
    CUCO_RETURN_IF_ERROR(WriteFileAtomic(path, text));
    rep.files.push_back(path);
  }

  // What was written must load: a failure here is a cuco bug, named with the file.
  for (const fs::path& dir : {out_dir, harness}) {
    auto loaded = LoadWorkload(dir);
    if (!loaded.ok()) return Status::Internal("cuco init wrote a workload.toml that does not load: " + loaded.status().message());
  }
  const std::string seed_text = files[4].second;
  if (Status st = CheckDenyList(seed_text, (harness / "seed.cu").string()); !st.ok())
    return Status::Internal("cuco init wrote a seed.cu the deny-list refuses: " + st.message());

  rep.world_size = f.world.size;
  rep.world_size_source = f.world.source;
  rep.launcher = f.launcher;
  rep.libs = f.libs;
  rep.time_regex = f.time ? f.time->regex : "Time:\\s*([0-9.eE+-]+)\\s*ms";
  rep.pass_regex = f.pass ? f.pass->regex : "PASS";
  rep.fail_regex = f.fail ? f.fail->regex : "";
  rep.time_regex_guessed = f.time.has_value();
  rep.pass_regex_guessed = f.pass.has_value();
  rep.sizes = sizes.sizes;
  for (const auto& b : f.io.inputs) rep.inputs.push_back(IoName(b));
  for (const auto& b : f.io.outputs) rep.outputs.push_back(IoName(b));
  rep.todos = f.todos;
  return rep;
}

nlohmann::json ScaffoldReportToJson(const ScaffoldReport& r) {
  nlohmann::json j;
  j["schema"] = "cuco.init/1";
  j["out_dir"] = r.out_dir.string();
  j["name"] = r.name;
  j["files"] = nlohmann::json::array();
  for (const auto& f : r.files) j["files"].push_back(f.string());
  j["world_size"] = r.world_size;
  j["world_size_source"] = r.world_size_source;
  j["launcher"] = r.launcher;
  j["libs"] = r.libs;
  j["time_regex"] = r.time_regex;
  j["time_regex_guessed"] = r.time_regex_guessed;
  j["pass_regex"] = r.pass_regex;
  j["pass_regex_guessed"] = r.pass_regex_guessed;
  j["fail_regex"] = r.fail_regex;
  j["sizes"] = nlohmann::json::array();
  for (const auto& s : r.sizes) j["sizes"].push_back({{"name", s.name}, {"value", s.value}, {"source", s.source}});
  j["inputs"] = r.inputs;
  j["outputs"] = r.outputs;
  j["todos"] = r.todos;
  return j;
}

}  // namespace cuco
