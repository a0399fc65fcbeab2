#include "workload/cpp_tokens.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

std::vector<std::string> Texts(const std::string& src) {
  std::vector<std::string> v;
  for (const auto& t : LexCpp(src)) v.push_back(t.text);
  return v;
}

TEST(CppTokens, SplicesJoinNamesAndKeepPhysicalLines) {
  auto toks = LexCpp("int a;\nget\\\nenv (x);\nint b = get\\  \r\nenv;\n");
  ASSERT_EQ(toks.size(), 13u);
  EXPECT_EQ(toks[3].text, "getenv");
  EXPECT_EQ(toks[3].line, 2);
  EXPECT_TRUE(toks[3].first_on_line);
  EXPECT_EQ(toks[11].text, "getenv");  // backslash, spaces, CR, newline: GCC splices it too
  EXPECT_EQ(toks[11].line, 4);
}

TEST(CppTokens, DigraphsMapToPrimarySpellings) {
  EXPECT_EQ(Texts("%:include <x>"), (std::vector<std::string>{"#", "include", "<", "x", ">"}));
  EXPECT_EQ(Texts("a %:%: b <% <: :> %>"), (std::vector<std::string>{"a", "##", "b", "{", "[", "]", "}"}));
  // C++11: `<::` is `<` `::` unless a `:` or `>` follows.
  EXPECT_EQ(Texts("A<::B>"), (std::vector<std::string>{"A", "<", "::", "B", ">"}));
  EXPECT_EQ(Texts("a<:::b"), (std::vector<std::string>{"a", "[", "::", "b"}));
}

TEST(CppTokens, RawStringsAndPrefixedLiteralsDoNotFlipQuoting) {
  auto toks = LexCpp("auto s = R\"x(a\")\" getenv)x\"; auto c = u8'\"'; getenv(0);");
  std::vector<std::string> idents;
  for (const auto& t : toks)
    if (t.kind == CppTokenKind::kIdentifier) idents.push_back(t.text);
  EXPECT_EQ(idents, (std::vector<std::string>{"auto", "s", "auto", "c", "getenv"}));
  EXPECT_EQ(toks[3].kind, CppTokenKind::kString);
  EXPECT_EQ(StringLiteralValue(toks[3]), "a\")\" getenv");
  EXPECT_EQ(Texts("L'a' U\"b\" u8R\"(c)\" LR\"d(e)d\""),
            (std::vector<std::string>{"L'a'", "U\"b\"", "u8R\"(c)\"", "LR\"d(e)d\""}));
}

TEST(CppTokens, CommentsVanishAndNumbersStayWhole) {
  EXPECT_EQ(Texts("a /* x\ny */ b // c \\\n d\ne"), (std::vector<std::string>{"a", "b", "e"}));
  EXPECT_EQ(Texts("0x1'000 1e+5 .5f 0x1p-3 1.0E-2L"),
            (std::vector<std::string>{"0x1'000", "1e+5", ".5f", "0x1p-3", "1.0E-2L"}));
  EXPECT_EQ(Texts("a->*b <=> c ... d"), (std::vector<std::string>{"a", "->*", "b", "<=>", "c", "...", "d"}));
}

TEST(CppTokens, FirstOnLineSeesDirectivesBehindCommentsAndSpaces) {
  auto toks = LexCpp("x;\n  /* c */ #  include <y>\n");
  ASSERT_GE(toks.size(), 3u);
  EXPECT_EQ(toks[2].text, "#");
  EXPECT_TRUE(toks[2].first_on_line);
  EXPECT_FALSE(toks[3].first_on_line);
}

TEST(CppTokens, StringLiteralValueDecodesEscapes) {
  auto toks = LexCpp("\"\\x2fproc\\057self\\n\\\"\"");
  ASSERT_EQ(toks.size(), 1u);
  EXPECT_EQ(StringLiteralValue(toks[0]), "/proc/self\n\"");
}

TEST(CppTokens, LinemarkersMapTokensToFilesAndLines) {
  const std::string out =
      "# 0 \"c.cu\"\n# 1 \"/usr/include/stdio.h\" 1 3\nint printf;\n\n# 5 \"c.cu\" 2\nint a;\n\nint b;\n"
      "#pragma unroll\n#line 40 \"d\\\\e.h\"\nfoo\n";
  auto toks = LexPreprocessed(out);
  std::vector<std::string> where;
  for (const auto& m : toks) where.push_back(m.token.text + "@" + m.file + ":" + std::to_string(m.file_line));
  EXPECT_EQ(where, (std::vector<std::string>{"int@/usr/include/stdio.h:1", "printf@/usr/include/stdio.h:1",
                                             ";@/usr/include/stdio.h:1", "int@c.cu:5", "a@c.cu:5", ";@c.cu:5",
                                             "int@c.cu:7", "b@c.cu:7", ";@c.cu:7", "#@c.cu:8", "pragma@c.cu:8",
                                             "unroll@c.cu:8", "foo@d\\e.h:40"}));
}

}  // namespace
}  // namespace cuco
