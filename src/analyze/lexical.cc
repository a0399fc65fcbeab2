// Text utilities and the lexical fallback front end.
#include <cctype>
#include <set>

#include "analyze/frontend.h"
#include "util/source_text.h"

namespace cuco::analyze_internal {
namespace {

// t[open] is an opening bracket; returns the index of its match or npos. Assumes blanked text.
size_t MatchBracket(const std::string& t, size_t open) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    char c = t[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) return i;
    }
  }
  return std::string::npos;
}

const std::set<std::string>& Keywords() {
  static const std::set<std::string> k = {"if", "for", "while", "switch", "return", "sizeof", "catch",
                                          "static_assert", "decltype", "alignof", "defined", "do", "else"};
  return k;
}

// The name a parameter declaration declares: "const float* __restrict__ buf" -> "buf",
// "int n = 3" -> "n", "float x[]" -> "x"; "" when it has none.
std::string ParamName(const std::string& decl) {
  std::string d = decl;
  if (size_t eq = d.find('='); eq != std::string::npos) d = d.substr(0, eq);
  if (size_t br = d.find('['); br != std::string::npos) d = d.substr(0, br);
  size_t end = d.size();
  while (end > 0 && !IsCIdentChar(d[end - 1])) --end;
  size_t begin = end;
  while (begin > 0 && IsCIdentChar(d[begin - 1])) --begin;
  if (begin == end || begin == 0) return "";  // only a type ("int"): unnamed
  return d.substr(begin, end - begin);
}

}  // namespace

std::vector<std::string> SplitArgsInternal(const std::string& text) {
  std::vector<std::string> out;
  int depth = 0, angle = 0;
  std::string cur;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      cur += ' ';  // a line splice (`comms[i], \` at a line's end) is no part of an argument
      continue;
    }
    if (c == '(' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == ']' || c == '}') --depth;
    // template arguments of casts: static_cast<a, b> is rare; track <...> only right after *_cast
    if (c == '<' && i >= 4 && text.compare(i - 4, 4, "cast") == 0) ++angle;
    if (c == '>' && angle > 0) --angle;
    if (c == ',' && depth == 0 && angle == 0) {
      out.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty() || !out.empty()) out.push_back(Trim(cur));
  return out;
}

std::string DependentCallee(const std::string& blank, size_t at) {
  int brackets = 0;
  for (size_t i = at; i < blank.size() && i < at + 256; ++i) {
    const char ch = blank[i];
    if (ch == '[') ++brackets;
    else if (ch == ']') --brackets;
    else if (ch == ';' || ch == '{' || ch == '}') return "";
    else if (ch == '(' && brackets == 0) {
      size_t e = i;
      while (e > at && std::isspace(static_cast<unsigned char>(blank[e - 1]))) --e;
      size_t b = e;
      while (b > at && (std::isalnum(static_cast<unsigned char>(blank[b - 1])) || blank[b - 1] == '_')) --b;
      if (b == e || std::isdigit(static_cast<unsigned char>(blank[b]))) return "";
      return blank.substr(b, e - b);
    }
  }
  return "";
}

bool ReadCallAt(const std::string& t, size_t pos, std::string* name, std::vector<std::string>* config,
                std::vector<std::string>* args, size_t* end) {
  if (pos >= t.size() || !IsCIdentStart(t[pos])) return false;
  size_t p = pos;
  while (p < t.size() && (IsCIdentChar(t[p]) || (t[p] == ':' && p + 1 < t.size() && t[p + 1] == ':'))) p += t[p] == ':' ? 2 : 1;
  *name = t.substr(pos, p - pos);
  if (size_t c = name->rfind("::"); c != std::string::npos) *name = name->substr(c + 2);
  p = SkipSpace(t, p);
  config->clear();
  if (p < t.size() && t[p] == '<' && t.compare(p, 3, "<<<") != 0) {
    // explicit template arguments: kernel<T, 4><<<...>>>, or a function's, time_it<float>(...) (not
    // a comparison: `a < b && c > (d)` holds an operator no template argument list does)
    int depth = 0;
    size_t q = p;
    for (; q < t.size(); ++q) {
      if (t[q] == '<') ++depth;
      if (t[q] == '>' && --depth == 0) break;
      if (t[q] == ';' || t[q] == '{' || t[q] == ')' || t[q] == '=' || t[q] == '|' || (t[q] == '&' && q + 1 < t.size() && t[q + 1] == '&'))
        return false;
    }
    if (q >= t.size()) return false;
    size_t r = SkipSpace(t, q + 1);
    if (t.compare(r, 3, "<<<") != 0 && (r >= t.size() || t[r] != '(')) return false;
    p = r;
  }
  if (t.compare(p, 3, "<<<") == 0) {
    size_t close = t.find(">>>", p + 3);
    if (close == std::string::npos) return false;
    *config = SplitArgsInternal(t.substr(p + 3, close - p - 3));
    p = SkipSpace(t, close + 3);
  }
  if (p >= t.size() || t[p] != '(') return false;
  size_t close = MatchBracket(t, p);
  if (close == std::string::npos) return false;
  *args = SplitArgsInternal(t.substr(p + 1, close - p - 1));
  *end = close + 1;
  return true;
}

namespace {

// `s` with its preprocessor lines (continuations included) blanked, newlines kept.
std::string BlankPreprocessorLines(std::string s) {
  for (size_t i = 0; i < s.size();) {
    size_t ls = i, p = SkipSpace(s, i);
    size_t le = s.find('\n', ls);
    if (le == std::string::npos) le = s.size();
    if (p < le && s[p] == '#') {
      size_t e = le;
      while (e > ls && e < s.size() && s[e - 1] == '\\') {  // continuation lines
        size_t n2 = s.find('\n', e + 1);
        e = n2 == std::string::npos ? s.size() : n2;
      }
      for (size_t k = ls; k < e; ++k) if (s[k] != '\n') s[k] = ' ';
      le = e;
    }
    i = le + 1;
  }
  return s;
}

}  // namespace

FrontEndResult ParseLexically(const std::string& raw) {
  FrontEndResult r;
  // Preprocessor lines blanked (macro bodies are not program order).
  const std::string s = BlankPreprocessorLines(BlankCommentsAndLiteralContents(raw));
  const std::string uncommented = BlankComments(raw);  // a call's arguments: `/*send*/ buf` is `buf`
  int depth = 0;
  std::string current;  // function whose body is open at depth current_depth+1
  int fn_depth = -1;
  std::string last_call_name;
  std::vector<std::string> last_params;  // its parameter declarations
  size_t last_paren_close = std::string::npos;
  for (size_t i = 0; i < s.size();) {
    char c = s[i];
    if (c == '{') {
      // A function body: `name(...) [const|noexcept|-> T] {` at namespace/class level.
      if (current.empty() && !last_call_name.empty() && last_paren_close != std::string::npos) {
        std::string between = Trim(s.substr(last_paren_close + 1, i - last_paren_close - 1));
        bool ok = between.empty() || between == "const" || between == "noexcept" || between == "override" ||
                  between.rfind("->", 0) == 0 || between.rfind(":", 0) == 0;
        if (ok && !Keywords().count(last_call_name)) {
          current = last_call_name;
          fn_depth = depth;
          AnalyzedFunction fn{current, "", LineOf(s, i), {}, "", ""};
          for (const std::string& decl : last_params) fn.params.push_back(ParamName(decl));
          if (fn.params.size() == 1 && (fn.params[0].empty() || fn.params[0] == "void")) fn.params.clear();
          r.functions.push_back(std::move(fn));
        }
      }
      ++depth;
      ++i;
      continue;
    }
    if (c == '}') {
      --depth;
      if (!current.empty() && depth == fn_depth) current.clear(), fn_depth = -1;
      last_call_name.clear();
      ++i;
      continue;
    }
    if (c == ';') last_call_name.clear();
    if (IsCIdentStart(c) && (i == 0 || !IsCIdentChar(s[i - 1]))) {
      std::string name;
      std::vector<std::string> config, args;
      size_t end = 0;
      if (ReadCallAt(s, i, &name, &config, &args, &end)) {
        if (current.empty()) {
          last_call_name = name;
          last_params = args;
          last_paren_close = end - 1;
          i = end;  // parameter list
          continue;
        }
        if (!Keywords().count(name)) {
          RawCall call;
          call.user_call = !IsKnownApi(name) && config.empty();
          call.function = current;
          call.callee = name;
          call.offset = i;
          call.line = LineOf(s, i);
          call.kernel_launch = !config.empty();
          // argument text from the original (strings intact)
          size_t open = s.find('(', i + name.size());
          if (config.empty() && open != std::string::npos && open < end) {
            std::string n2; std::vector<std::string> c2;
            size_t e2 = 0;
            ReadCallAt(uncommented, i, &n2, &c2, &call.args, &e2);
          } else {
            call.args = args;
          }
          call.config = config;
          r.calls.push_back(std::move(call));
        }
        // keep scanning inside the arguments (nested calls)
        size_t p = i;
        while (p < s.size() && IsCIdentChar(s[p])) ++p;
        i = p;
        continue;
      }
      while (i < s.size() && IsCIdentChar(s[i])) ++i;
      continue;
    }
    ++i;
  }
  r.ok = !r.functions.empty();
  if (!r.ok) r.error = "the lexical scanner found no function definition";
  return r;
}

}  // namespace cuco::analyze_internal

namespace cuco {
std::vector<std::string> SplitArgs(const std::string& text) { return analyze_internal::SplitArgsInternal(text); }
}  // namespace cuco
