#include <cuco/program/impl/comm_ctas_knob.h>

#include <gtest/gtest.h>

namespace cuco_program::candidate_detail {
namespace {

TEST(CommCtasKnob, AllOrABlockCountElseRefused) {
  EXPECT_EQ(CommBlockBudget(), 0) << "no knob: the collectives' default";
  set_comm_ctas("all");
  EXPECT_EQ(CommBlockBudget(), 0);
  set_comm_ctas("32");
  EXPECT_EQ(CommBlockBudget(), 32);
  for (const char* bad : {"0", "-4", "32x", "", "many", "99999"}) {
    set_comm_ctas(bad);
    EXPECT_EQ(CommBlockBudget(), -1) << bad;
  }
  set_comm_ctas(nullptr);
  EXPECT_EQ(CommBlockBudget(), 0);
}

}  // namespace
}  // namespace cuco_program::candidate_detail
