#include "analyze/ranges.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "analyze/param_access.h"
#include "util/source_text.h"

namespace cuco {
namespace {

// A polynomial over the program's variables: monomial (sorted names) -> coefficient.
using Mono = std::vector<std::string>;
using Poly = std::map<Mono, long long>;

Poly Add(Poly a, const Poly& b, long long sign = 1) {
  for (const auto& [m, c] : b) {
    a[m] += sign * c;
    if (a[m] == 0) a.erase(m);
  }
  return a;
}

Poly Mul(const Poly& a, const Poly& b) {
  Poly out;
  for (const auto& [ma, ca] : a)
    for (const auto& [mb, cb] : b) {
      Mono m = ma;
      m.insert(m.end(), mb.begin(), mb.end());
      std::sort(m.begin(), m.end());
      out[m] += ca * cb;
      if (out[m] == 0) out.erase(m);
    }
  return out;
}

// + - * and parentheses over integers and names (`cfg.nx`, `p->n` are names); casts skipped.
class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}
  std::optional<Poly> All() {
    auto p = Expr();
    Space();
    if (!p || i_ != s_.size()) return std::nullopt;
    return p;
  }

 private:
  void Space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool Take(char c) {
    Space();
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  std::optional<Poly> Expr() {
    auto a = Term();
    for (;;) {
      if (!a) return a;
      if (Take('+')) {
        auto b = Term();
        if (!b) return b;
        a = Add(*a, *b);
      } else if (Take('-')) {
        auto b = Term();
        if (!b) return b;
        a = Add(*a, *b, -1);
      } else {
        return a;
      }
    }
  }
  std::optional<Poly> Term() {
    auto a = Unary();
    while (a && Take('*')) {
      auto b = Unary();
      if (!b) return b;
      a = Mul(*a, *b);
    }
    return a;
  }
  std::optional<Poly> Unary() {
    if (Take('-')) {
      auto a = Unary();
      return a ? std::optional<Poly>(Mul(Poly{{Mono{}, -1}}, *a)) : a;
    }
    if (Take('+')) return Unary();
    return Primary();
  }
  std::optional<Poly> Primary() {
    Space();
    if (i_ >= s_.size()) return std::nullopt;
    if (s_[i_] == '(') {
      // A cast `(int)x`, `(size_t)x`: a type name alone in parentheses before an operand.
      static const std::regex cast(R"(^\(\s*(?:const\s+)?(?:unsigned\s+|signed\s+|long\s+)*[A-Za-z_]\w*\s*\)\s*[\w(])");
      std::smatch m;
      const std::string rest = s_.substr(i_);
      if (std::regex_search(rest, m, cast) && !std::regex_search(m.str(0), std::regex(R"([+*-])")))
        i_ += static_cast<size_t>(m.length(0)) - 1;
      else {
        ++i_;
        auto e = Expr();
        return e && Take(')') ? e : std::nullopt;
      }
      return Primary();
    }
    if (std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      size_t k = i_;
      while (k < s_.size() && std::isdigit(static_cast<unsigned char>(s_[k]))) ++k;
      const long long v = std::stoll(s_.substr(i_, k - i_));
      while (k < s_.size() && (s_[k] == 'u' || s_[k] == 'U' || s_[k] == 'l' || s_[k] == 'L')) ++k;
      i_ = k;
      return v == 0 ? Poly{} : Poly{{Mono{}, v}};
    }
    if (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_') {
      size_t k = i_;
      while (k < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[k])) || s_[k] == '_' || s_[k] == '.' ||
                               (s_[k] == '-' && k + 1 < s_.size() && s_[k + 1] == '>'))) {
        k += s_[k] == '-' ? 2 : 1;
      }
      const std::string name = s_.substr(i_, k - i_);
      i_ = k;
      Space();
      if (name == "static_cast" && Take('<')) {
        while (i_ < s_.size() && s_[i_] != '>') ++i_;
        if (!Take('>') || !Take('(')) return std::nullopt;
        auto e = Expr();
        return e && Take(')') ? e : std::nullopt;
      }
      if (i_ < s_.size() && (s_[i_] == '(' || s_[i_] == '[')) return std::nullopt;  // a call, a subscript
      return Poly{{Mono{name}, 1}};
    }
    return std::nullopt;
  }

  const std::string& s_;
  size_t i_ = 0;
};

// p >= 0 for every value of its variables >= 0: every coefficient is.
bool NonNegative(const Poly& p) {
  return std::all_of(p.begin(), p.end(), [](const auto& mc) { return mc.second >= 0; });
}

// The part of `text` between the `(` at `open` and its `)`.
size_t CloseOf(const std::string& text, size_t open, char o, char c) {
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    if (text[i] == o) ++depth;
    if (text[i] == c && --depth == 0) return i;
  }
  return std::string::npos;
}

// A row-major index `(R + k) * W + col`: R, k, W and the column expression; false otherwise.
bool SplitIndex(const std::string& index, std::string* r, long long* k, std::string* w, std::string* col) {
  static const std::regex form(R"(^\s*\(?\s*([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?\s*\)?\s*\*\s*([A-Za-z_]\w*)\s*\+\s*(.+?)\s*$)");
  std::smatch m;
  if (!std::regex_match(index, m, form)) return false;
  *r = m[1].str();
  *k = m[3].matched ? (m[2].str() == "-" ? -1 : 1) * std::stoll(m[3].str()) : 0;
  *w = m[4].str();
  *col = m[5].str();
  return true;
}

}  // namespace

bool ProvablyDisjoint(const ElemRange& a, const ElemRange& b) {
  const auto alo = Parser(a.lo).All(), ahi = Parser(a.hi).All(), blo = Parser(b.lo).All(), bhi = Parser(b.hi).All();
  if (!alo || !ahi || !blo || !bhi) return false;
  return NonNegative(Add(*blo, *ahi, -1)) || NonNegative(Add(*alo, *bhi, -1));
}

std::string SubstituteNames(const std::string& expr, const std::map<std::string, std::string>& names) {
  std::string out;
  for (size_t i = 0; i < expr.size();) {
    if (IsCIdentChar(expr[i]) && !std::isdigit(static_cast<unsigned char>(expr[i])) && (i == 0 || !IsCIdentChar(expr[i - 1]))) {
      size_t k = i;
      while (k < expr.size() && IsCIdentChar(expr[k])) ++k;
      const auto it = names.find(expr.substr(i, k - i));
      out += it == names.end() ? expr.substr(i, k - i) : "(" + it->second + ")";
      i = k;
    } else {
      out += expr[i++];
    }
  }
  return out;
}

std::optional<ElemRange> RangeOfArgument(const std::string& expr_in, const std::string& count) {
  if (count.empty()) return std::nullopt;
  std::string expr = Trim(expr_in);
  // `&a[off]`, an element's address, is `a + off`.
  static const std::regex element(R"(^&\s*([A-Za-z_][\w.]*(?:->\w+)*)\s*\[(.+)\]$)");
  std::smatch m;
  if (std::regex_match(expr, m, element) && Parser(m[2].str()).All())
    return ElemRange{Trim(m[2].str()), "(" + Trim(m[2].str()) + ") + (" + count + ")"};
  int depth = 0;
  size_t plus = std::string::npos;
  for (size_t i = 0; i < expr.size() && plus == std::string::npos; ++i) {
    if (expr[i] == '(' || expr[i] == '[') ++depth;
    if (expr[i] == ')' || expr[i] == ']') --depth;
    if (depth == 0 && expr[i] == '+') plus = i;
  }
  const std::string base = Trim(plus == std::string::npos ? expr : expr.substr(0, plus));
  if (!std::regex_match(base, std::regex(R"([A-Za-z_][\w.]*(?:->\w+)*)"))) return std::nullopt;
  const std::string off = plus == std::string::npos ? "0" : Trim(expr.substr(plus + 1));
  if (!Parser(off).All() || !Parser(count).All()) return std::nullopt;
  return ElemRange{off, "(" + off + ") + (" + count + ")"};
}

std::optional<ElemRange> KernelParamRange(const std::string& blank, size_t body_begin, size_t body_end,
                                          const std::string& param, const std::vector<std::string>& params, bool writes) {
  const std::string body = blank.substr(body_begin, body_end - body_begin);
  auto is_param = [&](const std::string& n) { return std::find(params.begin(), params.end(), n) != params.end(); };
  // Thread and block indices only, plus a constant: >= that constant.
  static const std::regex tid(R"(^[\s(]*(?:(?:blockIdx|threadIdx|blockDim|gridDim)\.[xyz]\s*[*+]?\s*[\s()]*)+$)");
  // `R = <indices> + LO` (LO a parameter) or `C = <indices> + c0`.
  auto start_of = [&](const std::string& var, std::string* lo_param, long long* lo_const) {
    const std::regex def("\\b" + var + R"(\s*=\s*([^;]+);)");
    std::smatch m;
    if (!std::regex_search(body, m, def)) return false;
    const std::string e = m[1].str();
    const size_t plus = e.rfind('+');
    if (plus == std::string::npos || !std::regex_match(e.substr(0, plus), tid)) return false;
    const std::string last = Trim(e.substr(plus + 1));
    if (lo_param != nullptr && is_param(last)) return *lo_param = last, true;
    if (lo_const != nullptr && std::regex_match(last, std::regex(R"(\d+)"))) return *lo_const = std::stoll(last), true;
    return false;
  };
  // `R < HI` (HI a parameter) somewhere in the body: the guard of the rows.
  auto bound_of = [&](const std::string& var) -> std::string {
    const std::regex guard("\\b" + var + R"(\s*<\s*([A-Za-z_]\w*)\b)");
    std::smatch m;
    return std::regex_search(body, m, guard) && is_param(m[1].str()) ? m[1].str() : "";
  };
  std::optional<ElemRange> out;
  std::string width;
  long long kmin = 0, kmax = 0;
  std::string lo_param, hi_param;
  const size_t brace = body.find('{');  // the uses in the body, past the parameter list
  if (brace == std::string::npos) return std::nullopt;
  for (size_t at = body.find(param, brace); at != std::string::npos; at = body.find(param, at + 1)) {
    if ((at > 0 && IsCIdentChar(body[at - 1])) || (at + param.size() < body.size() && IsCIdentChar(body[at + param.size()]))) continue;
    const ParamAccess acc = AccessAt(blank, body_begin + at, body_begin + at + param.size());
    if (!(writes ? acc.write : acc.read)) continue;
    size_t open = at + param.size();
    while (open < body.size() && std::isspace(static_cast<unsigned char>(body[open]))) ++open;
    if (open >= body.size() || body[open] != '[') return std::nullopt;
    const size_t close = CloseOf(body, open, '[', ']');
    if (close == std::string::npos) return std::nullopt;
    std::string r, w, col;
    long long k = 0;
    if (!SplitIndex(body.substr(open + 1, close - open - 1), &r, &k, &w, &col) || !is_param(w)) return std::nullopt;
    if (!width.empty() && w != width) return std::nullopt;
    width = w;
    std::string lo;
    if (!start_of(r, &lo, nullptr)) return std::nullopt;
    const std::string hi = bound_of(r);
    if (hi.empty() || (!lo_param.empty() && (lo != lo_param || hi != hi_param))) return std::nullopt;
    lo_param = lo, hi_param = hi;
    // The column within [0, W): a constant 0, W - 1, or an index from c0 >= 0 guarded below W - m,
    // plus or minus at most what keeps it inside.
    std::smatch m;
    const std::string c = Trim(col);
    static const std::regex constant(R"(^\(?\s*(?:0|([A-Za-z_]\w*)\s*-\s*1)\s*\)?$)");
    static const std::regex index(R"(^([A-Za-z_]\w*)\s*(?:([+-])\s*(\d+))?$)");
    if (std::regex_match(c, m, constant) && (!m[1].matched || m[1].str() == w)) {
      // the first or the last column
    } else if (std::regex_match(c, m, index)) {
      long long c0 = 0;
      if (!start_of(m[1].str(), nullptr, &c0)) return std::nullopt;
      const long long d = m[3].matched ? (m[2].str() == "-" ? -1 : 1) * std::stoll(m[3].str()) : 0;
      const std::regex guard("\\b" + m[1].str() + R"(\s*<\s*\(?\s*)" + w + R"(\s*(?:-\s*(\d+))?\s*\)?)");
      std::smatch g;
      if (!std::regex_search(body, g, guard)) return std::nullopt;
      const long long margin = g[1].matched ? std::stoll(g[1].str()) : 0;
      if (c0 + d < 0 || d > margin) return std::nullopt;
    } else {
      return std::nullopt;
    }
    kmin = std::min(kmin, k), kmax = std::max(kmax, k);
    out = ElemRange{};
  }
  if (!out) return std::nullopt;
  out->lo = "(" + lo_param + (kmin < 0 ? " - " + std::to_string(-kmin) : "") + ") * " + width;
  out->hi = "(" + hi_param + (kmax > 0 ? " + " + std::to_string(kmax) : "") + ") * " + width;
  return out;
}

}  // namespace cuco
