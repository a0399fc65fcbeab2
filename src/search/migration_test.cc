#include "search/migration.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(Migration, Due) {
  EXPECT_FALSE(MigrationDue(0, 2, 3));
  EXPECT_FALSE(MigrationDue(1, 2, 3));
  EXPECT_TRUE(MigrationDue(2, 2, 3));
  EXPECT_TRUE(MigrationDue(4, 2, 3));
  EXPECT_FALSE(MigrationDue(4, 0, 3));  // never
  EXPECT_FALSE(MigrationDue(4, 2, 1));  // one island
}

std::vector<std::vector<Scored>> Pops() {
  return {{{1, 5.0, 0}, {2, 3.0, 0}}, {{3, 1.0, 0}, {4, 9.0, 0}}, {{5, 2.0, 0}, {2, 3.0, 0}}};
}

TEST(Migration, ElitistSendsTheGlobalBestEverywhere) {
  MigrationParams p;
  p.kind = "elitist";
  p.migrants = 2;
  auto m = PlanMigration(Pops(), p);
  // Elites: #3 (1.0, island 1) and #5 (2.0, island 2).
  ASSERT_EQ(m.size(), 4u);
  EXPECT_EQ(m[0].id, 3);
  EXPECT_EQ(m[0].from, 1);
  EXPECT_EQ(m[0].to, 0);
  EXPECT_EQ(m[1].to, 2);
  EXPECT_EQ(m[2].id, 5);
  EXPECT_EQ(m[2].to, 0);
  EXPECT_EQ(m[3].to, 1);
}

TEST(Migration, GraphFollowsEdgesAndSkipsWhatTheTargetHas) {
  MigrationParams p;
  p.kind = "graph";
  p.edges = {{0, 2}, {1, 0}};
  p.migrants = 1;
  auto m = PlanMigration(Pops(), p);
  // 0 -> 2: #2 is the best of island 0 but island 2 has it, so #1 goes.
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].from, 0);
  EXPECT_EQ(m[0].to, 2);
  EXPECT_EQ(m[0].id, 1);
  EXPECT_EQ(m[1].from, 1);
  EXPECT_EQ(m[1].to, 0);
  EXPECT_EQ(m[1].id, 3);
}

TEST(Migration, EmptyIslandsAreFine) {
  MigrationParams p;
  EXPECT_TRUE(PlanMigration({{}, {}}, p).empty());
}

}  // namespace
}  // namespace cuco
