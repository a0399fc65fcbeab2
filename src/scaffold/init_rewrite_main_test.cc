// cuco init's third pass on a small program: main the harness's setup, its loop the iteration.
#include "scaffold/init_rewrite_main.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

TEST(InitRewriteMain, MainRenamedTheLoopServedTheVariableHeld) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  Result<BoundBuffers> bound = BindBuffers(p->facts, {}, *found, &trace);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  InitPassTrace rewrite;
  Result<RewrittenMain> m = RewriteProgramMain(p->facts, *found, *bound, &rewrite);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_NE(m->text.find("cuco_program_main("), std::string::npos) << m->text;
  EXPECT_EQ(m->text.find("int main("), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_program::serve("), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_bind.input(\"x\", x);"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("int i = static_cast<int>((0));"), std::string::npos) << m->text;
  EXPECT_NE(m->text.find("cuco_program_entry"), std::string::npos) << m->text;
  EXPECT_EQ(m->text.find("for (int i = 0; i < 100; ++i)"), std::string::npos) << "the timed loop is served";
  EXPECT_TRUE(Traced(rewrite.lines, {"main renamed cuco_program_main"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"the loop replaced by cuco_program::serve", "2 bind(s)"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"`int i` is held at 0"}));
  EXPECT_TRUE(Traced(rewrite.lines, {"no `#include <mpi.h>`"}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
