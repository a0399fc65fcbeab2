#include "scaffold/tokens.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

// The index of the first token spelled `text` in `t`.
size_t At(const std::vector<Tok>& t, const std::string& text) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].text == text) return i;
  return t.size();
}

TEST(Tokens, MemberAccessAfterADotOrAnArrow) {
  const auto t = Scan("a.x; p->y; q - > z; w; f().v; .u");
  EXPECT_TRUE(FollowsMemberAccess(t, At(t, "x")));
  EXPECT_TRUE(FollowsMemberAccess(t, At(t, "y")));
  EXPECT_FALSE(FollowsMemberAccess(t, At(t, "z")));  // `-` and `>` apart: no arrow
  EXPECT_FALSE(FollowsMemberAccess(t, At(t, "w")));
  EXPECT_TRUE(FollowsMemberAccess(t, At(t, "v")));   // a member of a call's result
  EXPECT_TRUE(FollowsMemberAccess(t, At(t, "u")));
  EXPECT_FALSE(FollowsMemberAccess(t, 0));
  EXPECT_FALSE(FollowsMemberAccess(t, t.size() + 3));
}

TEST(Tokens, MemberObjectOnlyWhenTheObjectIsAName) {
  const auto t = Scan("a.x; p->y; f().v; .u");
  EXPECT_EQ(MemberObject(t, At(t, "x")), At(t, "a"));
  EXPECT_EQ(MemberObject(t, At(t, "y")), At(t, "p"));
  EXPECT_EQ(MemberObject(t, At(t, "v")), t.size());  // `)` is no object name
  EXPECT_EQ(MemberObject(t, At(t, "u")), t.size());  // `;` before the dot
  EXPECT_EQ(MemberObject(t, At(t, "a")), t.size());
}

// The name of one statement's declaration (its `;`, `{` or `)` ending the range), or 0.
std::string NameDeclared(const std::string& statement) {
  const auto t = Scan(statement);
  const size_t name = DeclaredNameToken(t, 0, t.size() - 1);
  return name == 0 ? "(none)" : t[name].text;
}

TEST(Tokens, TheNameADeclarationDeclaresInAnyForm) {
  EXPECT_EQ(NameDeclared("auto n = rows * cols;"), "n");
  EXPECT_EQ(NameDeclared("const int k = 4;"), "k");
  EXPECT_EQ(NameDeclared("float* src = a + off;"), "src");
  EXPECT_EQ(NameDeclared("static void helper(int x);"), "helper");
  EXPECT_EQ(NameDeclared("static std::map<std::string, int> kTable = {};"), "kTable");
  EXPECT_EQ(NameDeclared("template <typename T> static T twice(T x) {"), "twice");
  EXPECT_EQ(NameDeclared("static __device__ float scratch[64];"), "scratch");
  EXPECT_EQ(NameDeclared("int a, b;"), "b");
  EXPECT_EQ(NameDeclared("T a(1), b;"), "a");
  EXPECT_EQ(NameDeclared("a::b = c;"), "(none)");  // assigns a qualified name
  EXPECT_EQ(NameDeclared("x = y;"), "(none)");  // one name is no declaration
  EXPECT_EQ(NameDeclared("return x;"), "(none)");
  EXPECT_EQ(NameDeclared("f(x);"), "(none)");
  EXPECT_EQ(NameDeclared("if (x) {"), "(none)");
  EXPECT_EQ(NameDeclared("using T = float;"), "(none)");
}

// A free function's definition first; a member defined out of its class only where there is none
// (a solver's loop in `bool CG<T>::solve(int n) const {`); never a call or a member's use.
TEST(Tokens, FunctionDefinitionFreeThenOutOfClassMember) {
  auto at = [](const std::string& code, const std::string& name) {
    const std::vector<Tok> t = Scan(code);
    size_t body = 0;
    const size_t i = FunctionDefinition(t, name, &body);
    return i >= t.size() ? std::string("(none)") : std::to_string(t[i].line) + ":" + t[body].text;
  };
  const std::string member = "template <class T>\nbool CG<T>::solve(int n) const {\n  return ns::solve(n) {};\n}\n";
  EXPECT_EQ(at(member, "solve"), "2:{");
  EXPECT_EQ(at(member + "bool solve(int n) {\n  return n;\n}\n", "solve"), "5:{");  // the free one
  EXPECT_EQ(at("void f() { s.solve(1); p->solve(2); CG<T>::solve(3); }\n", "solve"), "(none)");
  EXPECT_EQ(at("Solver::Solver(int n) : n_(n) {}\n", "Solver"), "(none)");  // a constructor's initialisers
}

TEST(Tokens, RenameTokensWithinItsScope) {
  const std::string text = "int main(int c) { s.main = main; // main(\n  return p->x + x(\"x\"); }\n";
  EXPECT_EQ(RenameTokens(text, {{"x", "y"}}), "int main(int c) { s.main = main; // main(\n  return p->y + y(\"x\"); }\n");
  EXPECT_EQ(RenameTokens(text, {{"x", "y"}}, {.members = false}),
            "int main(int c) { s.main = main; // main(\n  return p->x + y(\"x\"); }\n");
  EXPECT_EQ(RenameTokens(text, {{"main", "m2"}}, {.members = false, .calls_only = true}),
            "int m2(int c) { s.main = main; // main(\n  return p->x + x(\"x\"); }\n");
  EXPECT_EQ(RenameTokens(text, {}), text);
}

}  // namespace
}  // namespace cuco::scaffold_internal
