// EvalIntExpr: C integer constant expressions as programs write them in #defines, const
// initialisers and option defaults; nullopt for anything that is not one.
#include "util/int_expr.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

namespace cuco {
namespace {

std::optional<int64_t> Eval(const std::string& text, const std::map<std::string, int64_t>& names = {}) {
  return EvalIntExpr(text, names);
}

TEST(IntExprTest, Literals) {
  EXPECT_EQ(Eval("4096"), 4096);
  EXPECT_EQ(Eval("  42  "), 42);
  EXPECT_EQ(Eval("0x10"), 16);
  EXPECT_EQ(Eval("0XfF"), 255);
  EXPECT_EQ(Eval("1'000'000"), 1000000);
  EXPECT_EQ(Eval("8192u"), 8192);
  EXPECT_EQ(Eval("1ULL"), 1);
  EXPECT_EQ(Eval("9223372036854775807"), INT64_MAX);
}

TEST(IntExprTest, PrecedenceAndParentheses) {
  EXPECT_EQ(Eval("2 + 3 * 4"), 14);
  EXPECT_EQ(Eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(Eval("1 << 2 + 1"), 8);  // + binds tighter than <<
  EXPECT_EQ(Eval("(1 << 20) >> 4"), 65536);
  EXPECT_EQ(Eval("17 / 5"), 3);
  EXPECT_EQ(Eval("17 % 5"), 2);
  EXPECT_EQ(Eval("10 - 4 - 3"), 3);  // left to right
  EXPECT_EQ(Eval("-3 * -(2)"), 6);
  EXPECT_EQ(Eval("+7"), 7);
}

TEST(IntExprTest, KnownNames) {
  const std::map<std::string, int64_t> names = {{"M", 8192}, {"kTile_2", 64}};
  EXPECT_EQ(Eval("2 * M", names), 16384);
  EXPECT_EQ(Eval("M / kTile_2", names), 128);
  EXPECT_EQ(Eval("N", names), std::nullopt);
  EXPECT_EQ(Eval("M + N", names), std::nullopt);
}

TEST(IntExprTest, NotAConstant) {
  EXPECT_EQ(Eval(""), std::nullopt);
  EXPECT_EQ(Eval("1.5"), std::nullopt);
  EXPECT_EQ(Eval("1e5"), std::nullopt);
  EXPECT_EQ(Eval("12abc"), std::nullopt);
  EXPECT_EQ(Eval("4 4"), std::nullopt);
  EXPECT_EQ(Eval("(4"), std::nullopt);
  EXPECT_EQ(Eval("f(4)"), std::nullopt);
  EXPECT_EQ(Eval("(int)4"), std::nullopt);
  EXPECT_EQ(Eval("1 < 2"), std::nullopt);
  EXPECT_EQ(Eval("x <<= 2", {{"x", 1}}), std::nullopt);
  EXPECT_EQ(Eval("\"4\""), std::nullopt);
}

TEST(IntExprTest, UndefinedArithmeticIsRefused) {
  EXPECT_EQ(Eval("1 / 0"), std::nullopt);
  EXPECT_EQ(Eval("1 % (2 - 2)"), std::nullopt);
  EXPECT_EQ(Eval("1 << 63"), std::nullopt);
  EXPECT_EQ(Eval("1 << -1"), std::nullopt);
  EXPECT_EQ(Eval("1 >> 64"), std::nullopt);
  EXPECT_EQ(Eval("1 << 62"), int64_t{1} << 62);
  EXPECT_EQ(Eval("9223372036854775807 + 1"), std::nullopt);
  EXPECT_EQ(Eval("-9223372036854775807 - 2"), std::nullopt);
  EXPECT_EQ(Eval("4294967296 * 4294967296"), std::nullopt);
  EXPECT_EQ(Eval("99999999999999999999"), std::nullopt);  // past int64_t: no throw
}

}  // namespace
}  // namespace cuco
