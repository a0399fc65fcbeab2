// cuco init's last pass on a small program, after the four before it: the harness's files.
#include "scaffold/init_render.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"
#include "workload/evolve_blocks.h"

namespace cuco::scaffold_internal {
namespace {

TEST(InitRender, TheFilesWithTheStepInAnEvolveBlock) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace trace, render;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  Result<BoundBuffers> bound = BindBuffers(p->facts, {}, *found, &trace);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  Result<RewrittenMain> m = RewriteProgramMain(p->facts, *found, *bound, &trace);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  Result<ProjectFiles> project = Project(p->facts, {}, *found, *m, &trace);
  ASSERT_TRUE(project.ok()) << project.status().ToString();
  Result<ProgramHarness> h = Render(p->facts, *found, *bound, *project, &render);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  std::vector<std::string> names;
  for (const auto& [name, text] : h->files) names.push_back(name);
  EXPECT_EQ(names, (std::vector<std::string>{"seed.cu", "reference.cu", "workload.toml", "README.md"}));
  const std::string& seed = h->files[0].second;
  const std::string& reference = h->files[1].second;
  const size_t block = seed.find(std::string(kEvolveStartLine) + "\nvoid step(");
  EXPECT_NE(block, std::string::npos) << seed;
  EXPECT_EQ(reference.find(kEvolveStartLine), std::string::npos);
  EXPECT_NE(reference.find("#include <cuco/program/reference.h>"), std::string::npos);
  EXPECT_NE(seed.find("cuco_program::shim::StreamCreate"), std::string::npos) << "the harness's stand-ins";
  EXPECT_EQ(h->evolve, (std::vector<std::string>{"step", "scale"}));
  EXPECT_NE(h->files[2].second.find("mode = \"harness\""), std::string::npos);
  EXPECT_EQ(h->guesses.back(), "EVOLVE blocks (what candidates may change): step, scale");
  EXPECT_TRUE(Traced(render.lines, {"EVOLVE blocks", "step"}));
  EXPECT_TRUE(Traced(render.lines, {"harness/seed.cu:", "lines"}));
}

// The whole chain through MakeProgramHarness: one trace per pass, in order; a program the first pass
// refuses has that pass's trace only, ending with the reason.
TEST(InitRender, MakeProgramHarnessTracesEachPass) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  std::vector<InitPassTrace> trace;
  ASSERT_TRUE(MakeProgramHarness(p->facts, {}, &trace).ok());
  std::vector<std::string> passes;
  for (const auto& t : trace) passes.push_back(t.pass);
  EXPECT_EQ(passes, (std::vector<std::string>{"find the loop", "bind the buffers", "rewrite main", "project", "render"}));
  auto none = GatherSmallProgram("none.cu", "#include <nccl.h>\nint main() {\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  return 0;\n}\n");
  trace.clear();
  Result<ProgramHarness> h = MakeProgramHarness(none->facts, {}, &trace);
  ASSERT_FALSE(h.ok());
  ASSERT_EQ(trace.size(), 1u);
  EXPECT_EQ(trace[0].lines.back(), "stopped: " + h.status().message());
}

}  // namespace
}  // namespace cuco::scaffold_internal
