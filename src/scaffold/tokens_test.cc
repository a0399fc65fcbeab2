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

}  // namespace
}  // namespace cuco::scaffold_internal
