#include "util/source_text.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(SourceText, BlanksCommentsKeepingOffsetsAndNewlines) {
  const std::string text = "a; // one\nb; /* two\nthree */ c;";
  const std::string out = BlankComments(text);
  ASSERT_EQ(out.size(), text.size());
  EXPECT_EQ(out, "a;       \nb;       \n         c;");
}

TEST(SourceText, LiteralsKeptWholeOrBlankedWithOrWithoutQuotes) {
  const std::string text = "f(\"a//b\", 'x', \"/*\"); // c";
  EXPECT_EQ(BlankComments(text), "f(\"a//b\", 'x', \"/*\");     ");
  EXPECT_EQ(BlankCommentsAndLiteralContents(text), "f(\"    \", ' ', \"  \");     ");
  EXPECT_EQ(BlankCommentsAndLiterals(text), "f(      ,    ,     );     ");
}

TEST(SourceText, EscapedQuotesAndBackslashesStayInTheLiteral) {
  EXPECT_EQ(BlankCommentsAndLiteralContents(R"(s("a\"b", '\'', "\\"); x)"), R"(s("    ", '  ', "  "); x)");
}

TEST(SourceText, RawStringsWithAndWithoutDelimiters) {
  const std::string text = "auto s = R\"x(a \" ) // b\n)\" c)x\"; d(); u8R\"(e)\"; LR\"(\")\";";
  const std::string out = BlankCommentsAndLiteralContents(text);
  EXPECT_EQ(out, "auto s = R\"            \n      \"; d(); u8R\"   \"; LR\"   \";");
  EXPECT_EQ(BlankCommentsAndLiterals("R\"(a)\" b"), "R      b");
  // An identifier ending in R is no prefix: an ordinary string follows it.
  EXPECT_EQ(BlankCommentsAndLiteralContents("fooR\"(a)\" b"), "fooR\"   \" b");
  // Not a raw string's delimiter (a space): read as an ordinary string.
  EXPECT_EQ(BlankCommentsAndLiteralContents("R\"a b(c)a b\" d"), "R\"         \" d");
}

TEST(SourceText, DigitSeparatorsOpenNoCharacterLiteral) {
  const std::string text = "int a = 1'000'000, b = 0x1'FF, c = 1.5e+3'0; char d = 'q'; int e = u8'z';";
  EXPECT_EQ(BlankCommentsAndLiterals(text),
            "int a = 1'000'000, b = 0x1'FF, c = 1.5e+3'0; char d =    ; int e = u8   ;");
}

TEST(SourceText, UnterminatedCommentsAndLiterals) {
  // An ordinary literal ends at its line's end; the next line is code again.
  EXPECT_EQ(BlankCommentsAndLiteralContents("a \"bc\nd 'e\nf"), "a \"  \nd ' \nf");
  // A block comment or raw string runs to the end.
  EXPECT_EQ(BlankComments("a /* b\nc"), "a     \n ");
  EXPECT_EQ(BlankCommentsAndLiterals("a R\"x(b\nc"), "a R    \n ");
  EXPECT_EQ(BlankCommentsAndLiterals("a \"\\"), "a   ");  // a lone backslash at the end
}

TEST(SourceText, LineSplicesContinueCommentsAndLiterals) {
  EXPECT_EQ(BlankComments("a // b \\\nc\nd"), "a       \n \nd");
  EXPECT_EQ(BlankComments("a // b \\  \nc\nd"), "a         \n \nd");  // spaces before the newline
  EXPECT_EQ(BlankCommentsAndLiteralContents("s = \"a\\\nb\"; c"), "s = \"  \n \"; c");
}

TEST(SourceText, ClassifiesEveryByte) {
  const std::vector<SourceByte> k = ClassifySource("x\"y\"/**/");
  const std::vector<SourceByte> want = {SourceByte::kCode,    SourceByte::kQuote,   SourceByte::kLiteral,
                                        SourceByte::kQuote,   SourceByte::kComment, SourceByte::kComment,
                                        SourceByte::kComment, SourceByte::kComment};
  EXPECT_EQ(k, want);
}

TEST(SourceText, OffsetOfLine) {
  EXPECT_EQ(OffsetOfLine("a\nbb\nc", 1), 0u);
  EXPECT_EQ(OffsetOfLine("a\nbb\nc", 2), 2u);
  EXPECT_EQ(OffsetOfLine("a\nbb\nc", 3), 5u);
  EXPECT_EQ(OffsetOfLine("a\nbb\nc", 4), 6u);
  EXPECT_EQ(OffsetOfLine("a\nbb\nc", 0), 0u);
  for (int l = 1; l <= 3; ++l) EXPECT_EQ(LineOf("a\nbb\nc", OffsetOfLine("a\nbb\nc", l)), l);
}

TEST(SourceText, LineOf) {
  EXPECT_EQ(LineOf("a\nb\nc", 0), 1);
  EXPECT_EQ(LineOf("a\nb\nc", 1), 1);
  EXPECT_EQ(LineOf("a\nb\nc", 2), 2);
  EXPECT_EQ(LineOf("a\nb\nc", 99), 3);
}

TEST(SourceText, NormalizeNewlines) {
  EXPECT_EQ(NormalizeNewlines("a\r\nb\r\n"), "a\nb\n");
  EXPECT_EQ(NormalizeNewlines("a\rb\r"), "a\rb\r");  // a lone '\r' stays
  EXPECT_EQ(NormalizeNewlines("\r\r\n"), "\r\n");
}

// The three line splitters, side by side on the texts where they differ.
TEST(SourceText, LineSplitters) {
  using V = std::vector<std::string>;
  EXPECT_EQ(SplitLines(""), V{""});
  EXPECT_EQ(SplitLines("a\nb"), (V{"a", "b"}));
  EXPECT_EQ(SplitLines("a\nb\n"), (V{"a", "b", ""}));
  EXPECT_EQ(SplitLinesKeepingNewlines(""), V{});
  EXPECT_EQ(SplitLinesKeepingNewlines("a\nb"), (V{"a\n", "b"}));
  EXPECT_EQ(SplitLinesKeepingNewlines("a\nb\n"), (V{"a\n", "b\n"}));
  EXPECT_EQ(LinesOf(""), V{});
  EXPECT_EQ(LinesOf("\n"), V{""});
  EXPECT_EQ(LinesOf("a\nb"), (V{"a", "b"}));
  EXPECT_EQ(LinesOf("a\nb\n"), (V{"a", "b"}));
  EXPECT_EQ(LinesOf("a\n\n"), (V{"a", ""}));
  EXPECT_EQ(LinesOf("a\r\nb"), (V{"a\r", "b"}));  // only '\n' splits
}

TEST(SourceText, CIdentifiers) {
  EXPECT_TRUE(IsCIdentStart('_') && IsCIdentStart('a') && IsCIdentStart('Z'));
  EXPECT_FALSE(IsCIdentStart('1') || IsCIdentStart('$') || IsCIdentStart('\xc3'));
  EXPECT_TRUE(IsCIdentChar('1') && IsCIdentChar('_'));
  EXPECT_FALSE(IsCIdentChar('-') || IsCIdentChar('.'));
}

TEST(SourceText, Trim) {
  EXPECT_EQ(Trim(" \t a b \r\n"), "a b");
  EXPECT_EQ(Trim(" \n "), "");
  EXPECT_EQ(Trim("\va\f"), "a");
  EXPECT_EQ(TrimRight("  a \n"), "  a");
  EXPECT_EQ(TrimRight("a \r\n", "\r\n"), "a ");
  EXPECT_EQ(Trim("xxaxx", "x"), "a");
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(SourceText, IdentifierAtReadsTheWordStartingThere) {
  EXPECT_EQ(IdentifierAt("LAUNCH(k, n)", 0), "LAUNCH");
  EXPECT_EQ(IdentifierAt("a + b_2;", 4), "b_2");
  EXPECT_EQ(IdentifierAt("a + b", 1), "");   // a space
  EXPECT_EQ(IdentifierAt("abc", 1), "bc");   // it does not look back
  EXPECT_EQ(IdentifierAt("abc", 9), "");     // past the end
}

TEST(SourceText, SkipSpaceStopsAtTheFirstNonSpace) {
  EXPECT_EQ(SkipSpace("  \t\nab", 0), 4u);
  EXPECT_EQ(SkipSpace("ab  c", 2), 4u);
  EXPECT_EQ(SkipSpace("ab  ", 2), 4u);  // none: the text's size
  EXPECT_EQ(SkipSpace("ab", 5), 5u);    // already past the end
}

TEST(SourceText, NullPointerLiterals) {
  EXPECT_TRUE(IsNullPointerLiteral("nullptr"));
  EXPECT_TRUE(IsNullPointerLiteral("NULL"));
  EXPECT_FALSE(IsNullPointerLiteral("0"));      // a null pointer constant too, but also a count or a stream
  EXPECT_FALSE(IsNullPointerLiteral("null"));   // not C++
  EXPECT_FALSE(IsNullPointerLiteral("NULLp"));  // an identifier
}

TEST(SourceText, WithoutCastsKeepsTheExpressionCastOrParenthesised) {
  EXPECT_EQ(WithoutCasts("(const void *) sendbuff[i]"), "sendbuff[i]");
  EXPECT_EQ(WithoutCasts("reinterpret_cast<const void*>( (float*)x )"), "x");
  EXPECT_EQ(WithoutCasts("(x)"), "x");
  EXPECT_EQ(WithoutCasts("(char*)x + 8"), "x + 8");
  EXPECT_EQ(WithoutCasts("f(x)"), "f(x)");
}

}  // namespace
}  // namespace cuco
