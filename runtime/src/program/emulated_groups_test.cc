#include <cuco/program/impl/emulated_groups.h>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace cuco_program::emu {
namespace {

// Four ranks split by parity (PARCOACH's split benchmark; a data-parallel split of 2 x 2): two groups
// ordered by key, then rank; one colour for all with keys in rank order is the world again.
TEST(EmulatedGroups, SplitMembersFollowKeyThenRank) {
  const std::vector<int> by_parity = {0, 0, 1, 1, 0, 2, 1, 3};  // (colour, key) per rank
  EXPECT_EQ(SplitMembers(by_parity, 0), (std::vector<int>{0, 2}));
  EXPECT_EQ(SplitMembers(by_parity, 1), (std::vector<int>{1, 3}));
  EXPECT_FALSE(SplitIsWorld(by_parity));
  const std::vector<int> reversed = {0, 3, 0, 2, 0, 1, 0, 0};  // keys reverse the order
  EXPECT_EQ(SplitMembers(reversed, 0), (std::vector<int>{3, 2, 1, 0}));
  EXPECT_FALSE(SplitIsWorld(reversed));
  const std::vector<int> tied = {5, 0, 5, 0, 5, 0};  // equal keys: by rank
  EXPECT_EQ(SplitMembers(tied, 5), (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(SplitIsWorld(tied));
  EXPECT_TRUE(SplitMembers(tied, 4).empty());
}

// Every member of one split and colour joins one group, whichever asks first; another split or
// colour is another group; a handle holds the group and the index.
TEST(EmulatedGroups, MembersOfOneSplitShareTheirGroup) {
  Groups groups;
  Group* a = groups.Join(0, 1, {1, 3});
  EXPECT_EQ(groups.Join(0, 1, {1, 3}), a);
  Group* b = groups.Join(0, 0, {0, 2});
  Group* c = groups.Join(1, 1, {1, 3});
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_EQ(groups.ById(b->id), b);
  EXPECT_EQ(groups.ById(99), nullptr);
  EXPECT_EQ(a->IndexOf(3), 1);
  EXPECT_EQ(a->IndexOf(2), -1);
  int id = -1, index = -1;
  ASSERT_TRUE(IsGroupToken(GroupToken(c->id, 1), &id, &index));
  EXPECT_EQ(id, c->id);
  EXPECT_EQ(index, 1);
  EXPECT_FALSE(IsGroupToken(0x1000 + 3, &id, &index));  // a world rank's token
}

// A group's members meet apart from the others; a broken group set gives up at once.
TEST(EmulatedGroups, GroupsMeetApartAndBreak) {
  Groups groups;
  Group* even = groups.Join(0, 0, {0, 2});
  Group* odd = groups.Join(0, 1, {1, 3});
  std::vector<int> met(4, 0);
  std::vector<std::thread> ranks;
  for (int q = 0; q < 4; ++q)
    ranks.emplace_back([&, q] { met[static_cast<size_t>(q)] = (q % 2 ? odd : even)->barrier.ArriveAndWait(10); });
  for (auto& t : ranks) t.join();
  EXPECT_EQ(met, (std::vector<int>{1, 1, 1, 1}));
  groups.BreakAll();
  EXPECT_FALSE(even->barrier.ArriveAndWait(10));
  EXPECT_FALSE(groups.Join(2, 0, {0, 1})->barrier.ArriveAndWait(10));  // made after the break
}

}  // namespace
}  // namespace cuco_program::emu
