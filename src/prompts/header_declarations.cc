#include "prompts/header_declarations.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>

#include "util/source_text.h"

namespace cuco {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Whitespace runs to one space; no space after '(' / '<' or before ')' ',' ';' '>'-free.
std::string Collapse(const std::string& s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (IsSpace(c)) {
      space = true;
      continue;
    }
    if (space && !out.empty() && out.back() != '(' && c != ')' && c != ',' && c != ';') out += ' ';
    space = false;
    out += c;
  }
  return Trim(out);
}

bool HasWord(const std::string& s, const std::string& w) {
  for (size_t p = s.find(w); p != std::string::npos; p = s.find(w, p + 1)) {
    bool left = p == 0 || !IsCIdentChar(s[p - 1]);
    bool right = p + w.size() >= s.size() || !IsCIdentChar(s[p + w.size()]);
    if (left && right) return true;
  }
  return false;
}

void ReplaceAll(std::string& s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
}

// Length of a leading `template<...>` (0 if none).
size_t TemplatePrefix(const std::string& s) {
  if (s.compare(0, 8, "template") != 0) return 0;
  size_t i = 8;
  while (i < s.size() && IsSpace(s[i])) ++i;
  if (i >= s.size() || s[i] != '<') return 0;
  int depth = 0;
  for (; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '(') ++depth;
    if (s[i] == '>' || s[i] == ')') --depth;
    if (depth == 0) return i + 1;
  }
  return s.size();
}

// The first '(' at depth 0 after the template prefix, or npos.
size_t FirstParen(const std::string& s) {
  size_t i = TemplatePrefix(s);
  for (; i < s.size(); ++i)
    if (s[i] == '(') return i;
  return std::string::npos;
}

std::string LastIdent(const std::string& s) {
  size_t e = s.size();
  while (e > 0 && !IsCIdentChar(s[e - 1])) --e;
  size_t b = e;
  while (b > 0 && IsCIdentChar(s[b - 1])) --b;
  return s.substr(b, e - b);
}

// The name a declaration declares (best effort).
std::string DeclaredName(const std::string& t) {
  size_t paren = FirstParen(t);
  if (paren != std::string::npos) {
    std::string before = t.substr(0, paren);
    if (before.find("operator") != std::string::npos) return "operator";
    return LastIdent(before);
  }
  std::string s = t.substr(TemplatePrefix(t));
  size_t cut = s.size();
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '=' || s[i] == '[' || s[i] == '{') {
      cut = i;
      break;
    }
    if (s[i] == ':' && !(i + 1 < s.size() && s[i + 1] == ':') && !(i > 0 && s[i - 1] == ':')) {
      cut = i;
      break;
    }
  }
  return LastIdent(s.substr(0, cut));
}

// A function definition's head as a prototype: the constructor initialiser list dropped.
std::string Prototype(const std::string& head) {
  size_t open = FirstParen(head);
  if (open == std::string::npos) return head;
  int depth = 0;
  size_t close = open;
  for (; close < head.size(); ++close) {
    if (head[close] == '(') ++depth;
    if (head[close] == ')' && --depth == 0) break;
  }
  if (close >= head.size()) return head;
  for (size_t i = close + 1; i < head.size(); ++i) {
    if (head[i] != ':') continue;
    if ((i + 1 < head.size() && head[i + 1] == ':') || head[i - 1] == ':') {
      ++i;
      continue;
    }
    return Trim(head.substr(0, i));
  }
  return head;
}

std::string CleanDecl(std::string t) {
  ReplaceAll(t, "NCCL_HOST_DEVICE_INLINE", "__host__ __device__");
  ReplaceAll(t, "NCCL_DEVICE_INLINE", "__device__");
  ReplaceAll(t, "NCCL_EXTERN_C", "");
  ReplaceAll(t, "__forceinline__", "");
  ReplaceAll(t, "extern \"C\"", "");
  return Collapse(t);
}

class Extractor {
 public:
  explicit Extractor(const DeclarationOptions& o) : opt_(o) { scopes_.push_back(Scope{}); }

  std::string Run(const std::string& s) {
    size_t i = 0;
    while (i < s.size()) i = Step(s, i);
    return Render();
  }

 private:
  // Reads what starts at s[i] (a newline, a directive, a comment, a literal or one character of a
  // statement) and returns where the next thing starts.
  size_t Step(const std::string& s, size_t i) {
    const size_t n = s.size();
    const char c = s[i], next = i + 1 < n ? s[i + 1] : '\0';
    if (c == '\n') {
      if (line_blank_ && Trim(stmt_).empty()) comments_.clear();
      ++line_no_;
      line_start_ = line_blank_ = true;
      Append(' ');
      return i + 1;
    }
    if (line_start_ && (c == ' ' || c == '\t' || c == '\r')) return i + 1;
    if (line_start_ && c == '#') return PreprocessorLine(s, i);
    line_start_ = false;
    if (c == '/' && next == '/') return LineComment(s, i);
    line_blank_ = false;
    if (c == '/' && next == '*') {
      size_t e = s.find("*/", i + 2);
      Append(' ');
      return e == std::string::npos ? n : e + 2;
    }
    if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1]))))) {
      size_t j = i + 1;
      while (j < n && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
      j = std::min(n, j + 1);
      for (size_t k = i; k < j; ++k) Append(s[k]);
      return j;
    }
    Scope& sc = Top();
    if (sc.kind == Scope::kSkip) {
      if (c == '{') ++sc.depth;
      if (c == '}' && --sc.depth == 0) CloseSkip();
    } else if (sc.kind == Scope::kEnum) {
      if (c == '}') CloseEnum();
      else sc.enum_content += c;
    } else {
      StatementChar(c, next, i > 0 ? s[i - 1] : '\0');
    }
    return i + 1;
  }

  // A preprocessor line (with its backslash continuations) from s[i] = '#'; returns its end.
  size_t PreprocessorLine(const std::string& s, size_t i) {
    const size_t n = s.size();
    std::string d;
    while (i < n && s[i] != '\n') {
      if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n') {
        d += ' ';
        i += 2;
        continue;
      }
      d += s[i++];
    }
    if (Top().kind != Scope::kSkip) Directive(d);
    line_blank_ = false;
    return i;
  }

  // A // comment from s[i]: kept (when asked) as the comment of the next declaration when it has
  // its own line, or appended to the declaration on its line. Returns the comment's end.
  size_t LineComment(const std::string& s, size_t i) {
    size_t e = s.find('\n', i);
    if (e == std::string::npos) e = s.size();
    if (opt_.keep_comments && Top().kind != Scope::kSkip && Trim(stmt_).empty()) {
      const std::string text = Trim(s.substr(i, e - i));
      if (!line_blank_ && !lines_.empty() && lines_.back().src_line == line_no_)
        lines_.back().text += "  " + text;  // a comment after a declaration on its line
      else if (line_blank_)
        comments_.push_back(text);
    }
    line_blank_ = false;
    return e;
  }

  // One character of a statement outside comments and literals: brackets, braces, ';' and the
  // access specifiers' ':'.
  void StatementChar(char c, char next, char prev) {
    switch (c) {
      case '(':
        ++paren_;
        stmt_ += c;
        break;
      case ')':
        paren_ = std::max(0, paren_ - 1);
        stmt_ += c;
        break;
      case '{':
        if (paren_ > 0) {
          ++paren_;
          stmt_ += c;
        } else {
          OpenBrace();
        }
        break;
      case '}':
        if (paren_ > 0) {
          --paren_;
          stmt_ += c;
        } else {
          CloseAggregate();
        }
        break;
      case ';':
        if (paren_ > 0) stmt_ += c;
        else EndStatement();
        break;
      case ':': {
        const std::string t = Trim(stmt_);
        const bool access = paren_ == 0 && next != ':' && prev != ':' &&
                            (t == "public" || t == "private" || t == "protected");
        if (access) {
          Top().is_public = t == "public";
          stmt_.clear();
          comments_.clear();
        } else {
          stmt_ += c;
        }
        break;
      }
      default:
        stmt_ += c;
    }
  }

  struct Scope {
    enum Kind { kTop, kAggregate, kEnum, kSkip } kind = kTop;
    enum Why { kNone, kBody, kInit, kHidden } why = kNone;
    bool is_public = true;
    bool transparent = false;  // extern "C" { ... }: no header, no indent
    bool is_namespace = false;
    bool needs_tail = false;   // struct/class/union/enum: `}` is followed by a tail up to ';'
    std::string header;        // enum header, or a function's head
    std::string enum_content;
    int depth = 0;             // braces inside a skipped region
    size_t header_line = 0;    // aggregates: index of the header in lines_
  };
  struct Line {
    int indent;
    std::string text;
    std::string name;  // for the pfoo/foo deduplication (top level only)
    int src_line = 0;  // line of the header where it was emitted
  };

  Scope& Top() { return scopes_.back(); }

  void Append(char c) {
    Scope& sc = Top();
    if (sc.kind == Scope::kSkip) return;
    if (sc.kind == Scope::kEnum) sc.enum_content += c;
    else stmt_ += c;
  }

  int Indent() const {
    int n = 0;
    for (const auto& s : scopes_)
      if (s.kind == Scope::kAggregate && !s.transparent) ++n;
    return n;
  }
  bool TopLevel() const { return Indent() == 0; }
  bool Visible() const {
    for (const auto& s : scopes_)
      if (!s.is_public) return false;
    return true;
  }

  bool Hidden(const std::string& name) const {
    if (!name.empty() && name[0] == '_') return true;
    if (name.find("_internal") != std::string::npos) return true;
    for (const auto& k : opt_.skip_names)
      if (!k.empty() && name.find(k) != std::string::npos) return true;
    if (TopLevel() && !opt_.only_names.empty()) {
      bool any = false;
      for (const auto& k : opt_.only_names) any = any || name.find(k) != std::string::npos;
      if (!any) return true;
    }
    return false;
  }

  void Emit(const std::string& text, const std::string& name, int indent) {
    for (const auto& c : comments_) lines_.push_back({indent, c, "", 0});
    comments_.clear();
    lines_.push_back({indent, text, indent == 0 ? name : "", line_no_});
  }

  void PushSkip(Scope::Why why, const std::string& header, bool needs_tail) {
    Scope s;
    s.kind = Scope::kSkip;
    s.why = why;
    s.header = header;
    s.depth = 1;
    s.needs_tail = needs_tail;
    scopes_.push_back(s);
  }

  void OpenBrace() {
    const std::string h = Collapse(stmt_);
    if (closing_) {  // `} name {`: nonsense; drop it
      closing_ = false;
      stmt_.clear();
      PushSkip(Scope::kHidden, "", false);
      return;
    }
    if (h.rfind("extern \"C\"", 0) == 0 && h.size() <= 11) {
      Scope s;
      s.kind = Scope::kAggregate;
      s.transparent = true;
      scopes_.push_back(s);
      stmt_.clear();
      return;
    }
    if (HasWord(h, "namespace") && h.find('=') == std::string::npos) {
      std::string name = LastIdent(h);
      if (name == "namespace") name.clear();
      bool hidden = name.empty() || !Visible() || name.find("detail") != std::string::npos ||
                    name.find("internal") != std::string::npos || name.find("impl") != std::string::npos ||
                    name.find("utility") != std::string::npos || Hidden(name);
      stmt_.clear();
      if (hidden) {
        comments_.clear();
        PushSkip(Scope::kHidden, "", false);
        return;
      }
      Emit(h + " {", name, Indent());
      Scope s;
      s.kind = Scope::kAggregate;
      s.is_namespace = true;
      scopes_.push_back(s);
      return;
    }
    const bool paren = FirstParen(h) != std::string::npos;
    const bool aggregate = !paren && h.find('=') == std::string::npos &&
                           (HasWord(h, "struct") || HasWord(h, "class") || HasWord(h, "union") || HasWord(h, "enum"));
    if (aggregate) {
      const std::string name = DeclaredName(h);
      stmt_.clear();
      if (!Visible() || Hidden(name)) {
        comments_.clear();
        PushSkip(Scope::kHidden, "", true);
        return;
      }
      if (HasWord(h, "enum")) {
        Scope s;
        s.kind = Scope::kEnum;
        s.header = CleanDecl(h);
        s.needs_tail = true;
        scopes_.push_back(s);
        return;
      }
      Emit(CleanDecl(h) + " {", name, Indent());
      Scope s;
      s.kind = Scope::kAggregate;
      s.header_line = lines_.size() - 1;
      s.is_public = !(HasWord(h, "class") && !HasWord(h, "enum"));
      s.needs_tail = true;
      scopes_.push_back(s);
      return;
    }
    if (paren) {  // a function body
      stmt_.clear();
      PushSkip(Scope::kBody, h, false);
      return;
    }
    PushSkip(Scope::kInit, "", false);  // an initialiser: the statement goes on after it
  }

  void CloseSkip() {
    Scope s = scopes_.back();
    scopes_.pop_back();
    switch (s.why) {
      case Scope::kBody: {
        const std::string name = DeclaredName(s.header);
        if (Visible() && !Hidden(name)) Emit(CleanDecl(Prototype(s.header)) + ";", name, Indent());
        comments_.clear();
        stmt_.clear();
        break;
      }
      case Scope::kInit:
        stmt_ += "{...}";
        break;
      default:
        stmt_.clear();
        if (s.needs_tail) {
          closing_ = true;
          drop_tail_ = true;
          closing_header_ = -1;
        }
        break;
    }
  }

  void CloseEnum() {
    Scope s = scopes_.back();
    scopes_.pop_back();
    stmt_ = s.header + " { " + Collapse(s.enum_content) + " }";
    closing_ = true;
    drop_tail_ = false;
    closing_header_ = -1;
  }

  void CloseAggregate() {
    if (scopes_.size() <= 1) {  // a stray '}'
      stmt_.clear();
      return;
    }
    if (!Trim(stmt_).empty()) EndStatement();
    Scope s = scopes_.back();
    scopes_.pop_back();
    comments_.clear();
    if (s.transparent) return;
    if (s.is_namespace) {
      Emit("}", "", Indent());
      return;
    }
    stmt_ = "}";
    closing_ = true;
    drop_tail_ = false;
    closing_header_ = static_cast<int64_t>(s.header_line);
  }

  void EndStatement() {
    std::string t = Collapse(stmt_);
    stmt_.clear();
    if (closing_) {
      closing_ = false;
      comments_.clear();
      const size_t brace = t.rfind('}');
      const bool named_tail = brace != std::string::npos && brace + 1 < t.size() && !LastIdent(t.substr(brace + 1)).empty();
      const std::string name = named_tail ? LastIdent(t.substr(brace + 1)) : DeclaredName(t);
      const size_t header = closing_header_ >= 0 ? static_cast<size_t>(closing_header_) : lines_.size();
      if (drop_tail_) {
        drop_tail_ = false;
      } else if (header < lines_.size() && named_tail && Hidden(name)) {
        lines_.erase(lines_.begin() + static_cast<std::ptrdiff_t>(header), lines_.end());  // typedef struct {...} hidden_t;
      } else if (header + 1 == lines_.size()) {
        lines_.back().text += CleanDecl(t) + ";";  // an empty aggregate on one line
      } else if (closing_header_ < 0 && Hidden(name)) {
        // an enum typedef'd to a hidden name
      } else {
        Emit(CleanDecl(t) + ";", name, Indent());
      }
      return;
    }
    if (t.empty() || !Visible()) {
      comments_.clear();
      return;
    }
    if (t.rfind("static_assert", 0) == 0 || t.rfind("using namespace", 0) == 0) {
      comments_.clear();
      return;
    }
    const std::string name = DeclaredName(t);
    if (Hidden(name)) {
      comments_.clear();
      return;
    }
    Emit(CleanDecl(t) + ";", name, Indent());
  }

  void Directive(const std::string& d) {
    if (!opt_.keep_macros) return;
    std::string t = d;
    // Comments inside the directive.
    for (size_t p = t.find("/*"); p != std::string::npos; p = t.find("/*", p)) {
      size_t e = t.find("*/", p + 2);
      t.erase(p, e == std::string::npos ? std::string::npos : e + 2 - p);
    }
    if (size_t p = t.find("//"); p != std::string::npos) t.erase(p);
    t = Trim(t.substr(1));
    if (t.compare(0, 6, "define") != 0 || t.size() < 8 || !IsSpace(t[6])) return;
    t = Trim(t.substr(7));
    size_t e = 0;
    while (e < t.size() && IsCIdentChar(t[e])) ++e;
    const std::string name = t.substr(0, e);
    if (name.empty() || name[0] == '_' || Hidden(name)) return;
    if (name.size() > 2 && (name.ends_with("_H") || name.ends_with("_H_"))) return;
    if (e < t.size() && t[e] == '(') {
      size_t close = t.find(')', e);
      if (close == std::string::npos) return;
      Emit("#define " + Collapse(t.substr(0, close + 1)), name, 0);
      return;
    }
    const std::string value = Collapse(t.substr(e));
    if (value.empty() || value.size() > 40) return;
    comments_.clear();
    Emit("#define " + name + " " + value, name, 0);
  }

  std::string Render() {
    std::set<std::string> names;
    for (const auto& l : lines_)
      if (!l.name.empty()) names.insert(l.name);
    std::vector<std::string> out;
    for (const auto& l : lines_) {
      if (l.name.size() > 1 && l.name[0] == 'p' && names.count(l.name.substr(1))) continue;  // pncclX twin
      out.push_back(std::string(2 * static_cast<size_t>(std::max(0, l.indent)), ' ') + l.text);
    }
    std::string text;
    for (size_t i = 0; i < out.size(); ++i) {
      if (opt_.max_chars > 0 && text.size() + out[i].size() + 1 > opt_.max_chars) {
        text += "// ... (" + std::to_string(out.size() - i) + " more lines cut)\n";
        break;
      }
      text += out[i] + "\n";
    }
    return text;
  }

  DeclarationOptions opt_;
  std::vector<Scope> scopes_;
  std::vector<Line> lines_;
  std::vector<std::string> comments_;
  std::string stmt_;
  int paren_ = 0;
  int line_no_ = 1;
  bool line_start_ = true, line_blank_ = true;  // Step: at a line's start; nothing but blanks on it yet
  bool closing_ = false, drop_tail_ = false;
  int64_t closing_header_ = -1;  // lines_ index of the header of the aggregate being closed
};

}  // namespace

std::string ExtractDeclarations(const std::string& header_text, const DeclarationOptions& options) {
  return Extractor(options).Run(header_text);
}

}  // namespace cuco
