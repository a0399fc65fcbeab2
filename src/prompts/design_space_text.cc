#include "prompts/design_space_text.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "workload/deny_list.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

bool IsIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && IsSpace(s[b])) ++b;
  while (e > b && IsSpace(s[e - 1])) --e;
  return s.substr(b, e - b);
}

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
    bool left = p == 0 || !IsIdentChar(s[p - 1]);
    bool right = p + w.size() >= s.size() || !IsIdentChar(s[p + w.size()]);
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
  while (e > 0 && !IsIdentChar(s[e - 1])) --e;
  size_t b = e;
  while (b > 0 && IsIdentChar(s[b - 1])) --b;
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
    const size_t n = s.size();
    bool line_start = true, line_blank = true;
    while (i < n) {
      const char c = s[i], next = i + 1 < n ? s[i + 1] : '\0';
      if (c == '\n') {
        if (line_blank && Trim(stmt_).empty()) comments_.clear();
        ++line_no_;
        line_start = line_blank = true;
        Append(' ');
        ++i;
        continue;
      }
      if (line_start && (c == ' ' || c == '\t' || c == '\r')) {
        ++i;
        continue;
      }
      if (line_start && c == '#') {
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
        line_blank = false;
        continue;
      }
      line_start = false;
      if (c == '/' && next == '/') {
        size_t e = s.find('\n', i);
        if (e == std::string::npos) e = n;
        if (opt_.keep_comments && Top().kind != Scope::kSkip && Trim(stmt_).empty()) {
          const std::string text = Trim(s.substr(i, e - i));
          if (!line_blank && !lines_.empty() && lines_.back().src_line == line_no_)
            lines_.back().text += "  " + text;  // a comment after a declaration on its line
          else if (line_blank)
            comments_.push_back(text);
        }
        i = e;
        line_blank = false;
        continue;
      }
      line_blank = false;
      if (c == '/' && next == '*') {
        size_t e = s.find("*/", i + 2);
        i = e == std::string::npos ? n : e + 2;
        Append(' ');
        continue;
      }
      if (c == '"' || (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1]))))) {
        size_t j = i + 1;
        while (j < n && s[j] != c && s[j] != '\n') j += s[j] == '\\' ? 2 : 1;
        j = std::min(n, j + 1);
        for (size_t k = i; k < j; ++k) Append(s[k]);
        i = j;
        continue;
      }
      Scope& sc = Top();
      if (sc.kind == Scope::kSkip) {
        if (c == '{') ++sc.depth;
        if (c == '}' && --sc.depth == 0) CloseSkip();
        ++i;
        continue;
      }
      if (sc.kind == Scope::kEnum) {
        if (c == '}') CloseEnum();
        else sc.enum_content += c;
        ++i;
        continue;
      }
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
          const bool access = paren_ == 0 && next != ':' && (i == 0 || s[i - 1] != ':') &&
                              (t == "public" || t == "private" || t == "protected");
          if (access) {
            sc.is_public = t == "public";
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
      ++i;
    }
    return Render();
  }

 private:
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
    while (e < t.size() && IsIdentChar(t[e])) ++e;
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
  bool closing_ = false, drop_tail_ = false;
  int64_t closing_header_ = -1;  // lines_ index of the header of the aggregate being closed
};

std::string ReadText(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return "";
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Appends `block` (a header's declarations under a title) if it fits in what is left; cut to fit
// otherwise. Returns false when the budget is spent.
bool AppendBounded(std::string& out, const std::string& title, const std::string& decls, size_t max_chars) {
  if (decls.empty()) return true;
  const std::string head = "// ---- " + title + " ----\n";
  const size_t note = 48;
  if (out.size() + head.size() + note >= max_chars) return false;
  out += head;
  const size_t room = max_chars - out.size();
  if (decls.size() <= room) {
    out += decls;
    return true;
  }
  // Cut at a line boundary, leaving room for the note.
  size_t cut = decls.rfind('\n', room > note ? room - note : 0);
  if (cut == std::string::npos) cut = 0;
  else ++cut;
  size_t dropped = std::count(decls.begin() + static_cast<std::ptrdiff_t>(cut), decls.end(), '\n');
  out += decls.substr(0, cut) + "// ... (" + std::to_string(dropped) + " more lines cut)\n";
  return false;
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

std::string Gib(uint64_t bytes) {
  std::ostringstream ss;
  ss.precision(3);
  ss << static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0) << " GiB";
  return ss.str();
}

}  // namespace

std::string ExtractDeclarations(const std::string& header_text, const DeclarationOptions& options) {
  return Extractor(options).Run(header_text);
}

std::string HarnessRulesText() {
  std::string s =
      "Harness rules (cuco's harness enforces them; a candidate that breaks one is rejected):\n"
      "- cuco_candidate_setup(ctx, sizes, &state) runs once, untimed, and is COLLECTIVE: every rank calls it and any "
      "collective call inside (ctx.alloc_symmetric, ctx.create_dev_comm, NCCL calls) must happen in the same order "
      "on every rank. Allocate, build descriptors, create side streams and device communicators here.\n"
      "- cuco_candidate_run(ctx, state, io) enqueues ONE iteration and is called many times, sometimes with different "
      "output buffers (io is valid only during the call). Enqueue everything on ctx.stream or on "
      "ctx.side_stream(i) (0 <= i < 8; create them in setup, creation in run is timed). The harness joins every side "
      "stream into ctx.stream after run returns; host time spent in run is timed too.\n"
      "- Order work across streams only with ctx.record_event(i, stream) and ctx.wait_event(stream, i) "
      "(harness-owned events, 0 <= i < 64), or with device flags.\n"
      "- Never create or destroy streams, events or timers; never touch files, the environment, processes or the "
      "device (cudaSetDevice, cudaDeviceReset); never name cuco_frozen / cuco_harness; no #include, #undef, ## "
      "or #line in the EVOLVE blocks (the includes above the blocks are frozen: use what they provide).\n"
      "- Memory: ctx.alloc_symmetric(bytes, &buf) (collective; an NCCL symmetric window, freed by the harness) and "
      "ctx.create_dev_comm(reqs, &devComm) (collective ncclDevCommCreate; destroyed by the harness; lsaMultimem / "
      "NVLink multicast is refused). The io buffers are already registered symmetric windows (Buffer::window), so "
      "peers can reach them; their allocation may be larger than Buffer::bytes. Free in teardown only what setup "
      "allocated itself.\n"
      "- Fresh random inputs are written before every iteration and the outputs are poisoned with random bits: "
      "never cache or memoise results across calls, never skip work when outputs look already written, write every "
      "output element every call.\n"
      "- Verification: every rank's output is checked against a frozen reference on a random, unannounced subset of "
      "timed iterations, plus a second run into freshly allocated outputs that must agree. Flags and counters used "
      "for synchronisation must be reset (or use per-iteration epochs) because run is called many times.\n"
      "- Time = from before the run call to after the side streams are joined (median per rank, max over ranks); "
      "work left running after the join is detected and rejected.\n";
  // The deny-list, compactly, by category.
  std::vector<std::string> order;
  std::map<std::string, std::vector<std::string>> by_cat;
  for (const auto& e : DeniedIdentifiers()) {
    if (!by_cat.count(e.category)) order.push_back(e.category);
    by_cat[e.category].push_back(e.token);
  }
  for (const auto& e : DeniedSubstrings()) {
    if (!by_cat.count(e.category)) order.push_back(e.category);
    by_cat[e.category].push_back(e.token);
  }
  s += "- Denied in the EVOLVE blocks (the file is refused before compiling):\n";
  for (const auto& c : order) s += "  " + c + ": " + Join(by_cat[c], " ") + "\n";
  return s;
}

std::string DesignSpaceText(const Toolchain* tc) {
  auto avail = [&](bool ok, const std::string& why_not) -> std::string {
    if (tc == nullptr) return "";
    return ok ? " [available here]" : " [NOT available here: " + why_not + "]";
  };
  const bool device_api = tc && tc->nccl.found && tc->nccl.device_api;
  const bool lsa = device_api && tc->nccl.lsa;
  const bool gin = device_api && tc->nccl.gin && !tc->rdma_devices.empty();
  const bool nccl = tc && tc->nccl.found;
  const bool nvshmem = tc && tc->nvshmem.found;
  std::string gin_why = !device_api ? "no NCCL device API" : !tc->nccl.gin ? "NCCL without GIN" : "no RDMA NICs";

  std::string s;
  s += "Design space (CUCo): a candidate is one point along five dimensions. Overlap communication with "
       "computation; the host-driven baseline runs them one after the other.\n\n";
  s += "1. Communication backend\n";
  s += "   a. NCCL device API, LSA (load/store accessible peers over NVLink)" +
       avail(lsa, device_api ? "NCCL without lsa_barrier.h" : "no NCCL device API") +
       ": in setup, ctx.create_dev_comm(reqs, &devComm) with reqs.lsaBarrierCount set (never lsaMultimem); in a "
       "kernel, ncclGetLsaPointer(buf.window, offset, peer) (or ncclSymPtr<T>(window, offset).lsaPtr(peer)) gives a "
       "plain pointer into the peer's symmetric buffer for ordinary loads/stores (vectorise: 16-byte accesses); "
       "ncclLsaBarrierSession<ncclCoopCta> bar(ncclCoopCta(), devComm, ncclTeamTagLsa(), blockIdx.x); "
       "bar.sync(ncclCoopCta(), cuda::memory_order_release/acquire) orders ranks. Only symmetric windows "
       "(io buffers, ctx.alloc_symmetric) are reachable.\n";
  s += "   b. NCCL GIN (GPU-initiated networking over RDMA)" + avail(gin, gin_why) +
       ": ncclGin gin(devComm, ctx_index); gin.put(team, peer, dstWin, dstOff, srcWin, srcOff, bytes, "
       "ncclGin_SignalInc{signal}); the receiver gin.waitSignal(coop, signal, expected); needs ginContextCount / "
       "ginSignalCount in the requirements; for peers across nodes.\n";
  s += "   c. Host NCCL on a side stream" + avail(nccl, "NCCL not found") +
       ": ncclReduceScatter / ncclAllGather / ncclSend+ncclRecv (inside ncclGroupStart/End) on ctx.side_stream(i), "
       "per chunk, waiting for the producing kernel with record_event/wait_event, while compute continues on "
       "ctx.stream. NCCL kernels take SMs too (fewer with symmetric windows).\n";
  s += "   d. Copy engine" + avail(lsa, "needs LSA peer pointers") +
       ": cudaMemcpyAsync(peer_ptr, src, bytes, cudaMemcpyDeviceToDevice, side_stream) between peer buffers "
       "(peer addresses obtained once in setup, e.g. a tiny kernel storing ncclGetLsaPointer(...) for every peer "
       "into device memory, then copied to the host); signalled per chunk with record_event/wait_event; takes no "
       "SMs.\n";
  s += "   e. NVSHMEM" + avail(nvshmem, "not installed") +
       ": nvshmem_malloc'd symmetric heap, nvshmem_ptr / nvshmemx_putmem_signal_nbi_block / "
       "nvshmem_signal_wait_until; only where the workload links nvshmem.\n\n";
  s += "2. Placement: (a) fused into the compute kernel (the epilogue stores tiles straight into peers' buffers, or "
       "dedicated warps/CTAs of the same kernel communicate); (b) a separate communication kernel on its own side "
       "stream, running concurrently with compute and polling per-chunk ready flags; (c) host-issued on a separate "
       "stream (host NCCL or copy engine) after per-chunk events.\n\n";
  s += "3. Synchronisation scope: thread / warp / CTA / grid flags written with release and read with acquire "
       "(cuda::atomic_ref<T, cuda::thread_scope_system> or __threadfence_system + volatile polling) per tile or chunk; "
       "cross-rank LSA barriers (ncclLsaBarrierSession arrive/wait/sync); stream waits on events (wait_event) or on "
       "device flags. Finer scopes start communication earlier but cost more flag traffic.\n\n";
  s += "4. Issuer granularity: who issues communication: single threads, warps, or whole CTAs; how many CTAs "
       "(or SMs) communication takes from compute (e.g. 8-16 of 132), and how the rest share the compute tiles.\n\n";
  s += "5. Chunk size / pipelining depth: how the data is split (rows or tiles per chunk, number of chunks in "
       "flight): more chunks overlap more but add synchronisation and launch overhead; the first and last chunks "
       "cannot overlap.\n";
  return s;
}

std::string InstalledCommApiText(const NcclInstall& nccl, const LibraryInstall& nvshmem, size_t max_chars,
                                 bool rdma_nics) {
  std::string out;
  if (!nccl.found && !nvshmem.found) return "No NCCL or NVSHMEM installation was found on this machine.\n";
  if (nccl.found) {
    out += "// NCCL " + (nccl.version.empty() ? std::string("(version unknown)") : nccl.version) +
           ": device API " + (nccl.device_api ? "yes" : "no") + ", LSA " + (nccl.lsa ? "yes" : "no") + ", GIN " +
           (nccl.gin ? "yes" : "no") + "; headers " + nccl.include_dir + "\n";
    if (!nccl.device_api) out += "// This NCCL has no device API (nccl_device.h): only host NCCL calls are possible.\n";
  }
  std::vector<std::pair<std::string, std::string>> files;  // title, declarations
  if (nccl.found && !nccl.include_dir.empty()) {
    const fs::path inc = nccl.include_dir;
    const std::vector<std::string> first = {"core.h", "ptr.h", "lsa_barrier.h", "coop.h", "barrier.h", "ll_a2a.h"};
    const std::vector<std::string> gin_files = {"gin.h", "gin_barrier.h"};
    const std::vector<std::string> skipped = {"utility.h", "net_device.h", "comm.h"};
    std::vector<std::string> names = first;
    std::error_code ec;
    std::vector<std::string> rest;
    for (const auto& e : fs::directory_iterator(inc / "nccl_device", ec)) {
      const std::string n = e.path().filename().string();
      auto listed = [&](const std::vector<std::string>& v) { return std::find(v.begin(), v.end(), n) != v.end(); };
      if (e.is_regular_file() && e.path().extension() == ".h" && !listed(first) && !listed(gin_files) &&
          !listed(skipped))
        rest.push_back(n);
    }
    std::sort(rest.begin(), rest.end());
    names.insert(names.end(), rest.begin(), rest.end());
    DeclarationOptions dev;
    auto add_device = [&](const std::string& n, const std::string& note) {
      const std::string text = ReadText(inc / "nccl_device" / n);
      if (!text.empty()) files.push_back({"nccl_device/" + n + note, ExtractDeclarations(text, dev)});
    };
    for (const auto& n : names) add_device(n, "");
    if (rdma_nics) {
      for (const auto& n : gin_files) add_device(n, "");
    }
    const std::string host = ReadText(inc / "nccl.h");
    if (!host.empty()) {
      DeclarationOptions h;
      // Communicator management is the harness's; configs and simulation are irrelevant here.
      h.skip_names = {"CommInit", "CommSplit", "CommShrink", "CommRevoke", "CommAbort", "CommFinalize",
                      "CommDestroy", "GetUniqueId", "UniqueId", "UNIQUE_ID", "Config", "SimInfo", "SimulateEnd", "CONFIG",
                      "SIM_INFO", "SHRINK", "REVOKE", "SPLIT_NOCOLOR", "UNDEF", "CommGetAsyncError"};
      files.push_back({"nccl.h (host API)", ExtractDeclarations(host, h)});
    }
    if (!rdma_nics)
      for (const auto& n : gin_files) add_device(n, " (GIN needs RDMA NICs: none on this machine)");
  }
  if (nvshmem.found && !nvshmem.include_dir.empty()) {
    const fs::path inc = nvshmem.include_dir;
    DeclarationOptions o;
    o.only_names = {"nvshmem", "NVSHMEM"};
    for (const char* n : {"nvshmem.h", "nvshmemx.h", "host/nvshmem_api.h", "host/nvshmemx_api.h",
                          "device/nvshmem_defines.h", "device/nvshmemx_defines.h"}) {
      const std::string text = ReadText(inc / n);
      if (!text.empty()) files.push_back({"NVSHMEM " + std::string(n), ExtractDeclarations(text, o)});
    }
  }
  for (const auto& [title, decls] : files)
    if (!AppendBounded(out, title, decls, max_chars)) break;
  return out;
}

std::string InstalledCommApiText(const Toolchain& tc, size_t max_chars) {
  return InstalledCommApiText(tc.nccl, tc.nvshmem, max_chars, !tc.rdma_devices.empty());
}

std::string HardwareFactsText(const Toolchain& tc) {
  std::ostringstream s;
  if (tc.gpus.empty()) {
    s << "GPUs: none visible on the machine running the search (candidates run on the evaluation GPUs).\n";
  } else {
    s << "GPUs (" << tc.gpus.size() << "):\n";
    for (const auto& g : tc.gpus)
      s << "  GPU" << g.index << ": " << g.name << ", " << g.sm_count << " SMs, " << Gib(g.memory_bytes)
        << ", compute capability " << g.cc_major << "." << g.cc_minor << "\n";
  }
  if (!tc.gpu_links.empty()) {
    s << "GPU links (nvidia-smi topo: NV# = NVLink with # links, PIX/PXB/PHB/NODE/SYS = PCIe paths):\n";
    std::set<std::string> kinds;
    for (size_t i = 0; i < tc.gpu_links.size(); ++i) {
      s << "  GPU" << i << ":";
      for (size_t j = 0; j < tc.gpu_links[i].size(); ++j) {
        s << " " << tc.gpu_links[i][j];
        if (i != j) kinds.insert(tc.gpu_links[i][j]);
      }
      s << "\n";
    }
    bool all_nvlink = !kinds.empty();
    for (const auto& k : kinds) all_nvlink = all_nvlink && k.rfind("NV", 0) == 0;
    s << "  " << (all_nvlink ? "every GPU pair is NVLink-connected (LSA load/store works between all ranks)"
                             : "not every GPU pair is NVLink-connected")
      << "\n";
  }
  s << "RDMA NICs: " << (tc.rdma_devices.empty() ? "none (no GIN / inter-node RDMA)" : Join(tc.rdma_devices, " "))
    << "\n";
  s << "CUDA " << (tc.cuda_version.empty() ? "?" : tc.cuda_version);
  if (!tc.driver_version.empty()) s << ", driver " << tc.driver_version;
  s << "; NCCL " << (tc.nccl.found ? (tc.nccl.version.empty() ? "(found)" : tc.nccl.version) : "not found");
  if (tc.nccl.found)
    s << " (device API " << (tc.nccl.device_api ? "yes" : "no") << ", LSA " << (tc.nccl.lsa ? "yes" : "no") << ", GIN "
      << (tc.nccl.gin ? "yes" : "no") << ")";
  s << "; NVSHMEM " << (tc.nvshmem.found ? (tc.nvshmem.version.empty() ? "found" : tc.nvshmem.version) : "not installed")
    << "\n";
  s << "NVLink multicast (NVLS / multimem) is off for candidates.\n";
  return s.str();
}

}  // namespace cuco
