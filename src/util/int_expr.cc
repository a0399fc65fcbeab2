#include "util/int_expr.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace cuco {
namespace {

// A recursive-descent parser, one method per precedence level (lowest first: Shift, Add, Mul,
// Unary), each returning nullopt as soon as a part is not a constant.
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
    if (std::isdigit(static_cast<unsigned char>(t_[pos_]))) return Number();
    if (std::isalpha(static_cast<unsigned char>(t_[pos_])) || t_[pos_] == '_') return Name();
    return std::nullopt;
  }
  // A decimal or hex literal at pos_ (a digit): separators dropped, u/l suffixes skipped.
  std::optional<int64_t> Number() {
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
  // A name at pos_ (a letter or '_'): its value when known.
  std::optional<int64_t> Name() {
    size_t end = pos_;
    while (end < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[end])) || t_[end] == '_')) ++end;
    auto it = names_.find(t_.substr(pos_, end - pos_));
    if (it == names_.end()) return std::nullopt;
    pos_ = end;
    return it->second;
  }

  const std::string& t_;
  const std::map<std::string, int64_t>& names_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<int64_t> EvalIntExpr(const std::string& text, const std::map<std::string, int64_t>& names) {
  return IntExpr(text, names).Parse();
}

}  // namespace cuco
