// cuco init's fourth pass on small programs: the program's files as the harness holds them.
#include "scaffold/init_project.h"

#include <gtest/gtest.h>

#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

// One process driving both GPUs: each rank does its GPU's part, so the launches are guarded, the
// harness's header is told so, and the calls the program makes get guards.
constexpr const char kAllGpus[] = R"(#include <nccl.h>
#include <cuda_runtime.h>
__global__ void fill(float* x) { x[threadIdx.x] = 1.f; }
int main() {
  const int ndev = 2;
  ncclComm_t comms[2];
  int devs[2] = {0, 1};
  ncclCommInitAll(comms, ndev, devs);
  float* x[2];
  cudaStream_t s[2];
  for (int i = 0; i < ndev; ++i) {
    cudaSetDevice(i);
    cudaMalloc(&x[i], 256 * sizeof(float));
    cudaStreamCreate(&s[i]);
  }
  cudaEvent_t start;
  cudaEventCreate(&start);
  cudaEventRecord(start, 0);
  for (int it = 0; it < 10; ++it) {
    for (int i = 0; i < ndev; ++i) {
      cudaSetDevice(i);
      fill<<<1, 256, 0, s[i]>>>(x[i]);
    }
    ncclGroupStart();
    for (int i = 0; i < ndev; ++i) ncclAllReduce(x[i], x[i], 256, ncclFloat, ncclSum, comms[i], s[i]);
    ncclGroupEnd();
  }
  return 0;
}
)";

TEST(InitProject, AProgramDrivingEveryGpuHasItsLaunchesGuarded) {
  auto p = GatherSmallProgram("all.cu", kAllGpus);
  ASSERT_EQ(p->facts.launcher, "single") << p->facts.launcher_source;
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_TRUE(found->projected);
  const std::vector<ProgramFile> others = {{"util.h", "#include <mpi.h>\nint helper();\n", false, "util.h"}};
  InitPassTrace project;
  Result<ProjectFiles> r = Project(p->facts, others, *found, RewrittenMain{p->facts.raw, {}}, &project);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_NE(r->main_text.find("if (!cuco_program::proj::Own()) {} else fill<<<"), std::string::npos) << r->main_text;
  EXPECT_NE(r->defines.find("#define CUCO_PROGRAM_PROJECTED 1"), std::string::npos);
  EXPECT_EQ(r->defines.find("CUCO_PROGRAM_THREADS"), std::string::npos);
  EXPECT_FALSE(r->seed_guards.empty());
  ASSERT_EQ(r->headers.size(), 1u);
  EXPECT_EQ(r->headers[0].second, "#include <cuco/program/mpi.h>\nint helper();\n");
  EXPECT_TRUE(Traced(project.lines, {"all.cu: main's file", "launches guarded"}));
  EXPECT_TRUE(Traced(project.lines, {"util.h", "header"}));
}

// A process per rank: nothing is guarded, and a program marking its own EVOLVE blocks is said to.
TEST(InitProject, AProcessPerRankIsNotProjected) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  const std::string own = "// EVOLVE-BLOCK-START\nvoid f() {}\n// EVOLVE-BLOCK-END\n";
  const std::vector<ProgramFile> others = {{"more.cu", own, true, "more.cu"}};
  InitPassTrace project;
  Result<ProjectFiles> r = Project(p->facts, others, *found, RewrittenMain{p->facts.raw, {}}, &project);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->main_text, p->facts.raw);
  EXPECT_TRUE(r->defines.empty());
  EXPECT_TRUE(r->seed_guards.empty());
  ASSERT_EQ(r->sources.size(), 1u);
  EXPECT_EQ(r->sources[0].text, own);
  EXPECT_TRUE(r->own_blocks);
  EXPECT_TRUE(Traced(project.lines, {"its own EVOLVE blocks"}));
}

// Two source files including one header: the harness compiles them as one unit, so a header with
// no include guard gets `#pragma once`; a guarded one, and any header of a one-file program, stay.
TEST(InitProject, AnUnguardedHeaderOfSeveralFilesIsIncludedOnce) {
  auto p = GatherSmallProgram("step.cu", kSmallStepProgram);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  const std::vector<ProgramFile> others = {{"cfg.h", "// the sizes\nstruct Cfg { int n; };\n", false, "cfg.h"},
                                           {"guarded.h", "/* x */\n#ifndef GUARDED_H\n#define GUARDED_H\nint g();\n#endif\n", false, "guarded.h"},
                                           {"once.h", "#pragma once\nint o();\n", false, "once.h"},
                                           {"more.cu", "#include \"cfg.h\"\nint more() { return 1; }\n", true, "more.cu"}};
  InitPassTrace project;
  Result<ProjectFiles> r = Project(p->facts, others, *found, RewrittenMain{p->facts.raw, {}}, &project);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->headers.size(), 3u);
  EXPECT_EQ(r->headers[0].second.rfind("#pragma once  // cuco init:", 0), 0u) << r->headers[0].second;
  EXPECT_NE(r->headers[0].second.find("struct Cfg { int n; };"), std::string::npos);
  EXPECT_EQ(r->headers[1].second, others[1].text);
  EXPECT_EQ(r->headers[2].second, others[2].text);
  EXPECT_TRUE(Traced(project.lines, {"cfg.h", "no include guard"}));
}

// Two files keeping a helper of one name to themselves: main's file keeps its spelling, the other
// source's own is respelled (its calls too), so the harness's one unit defines each once.
TEST(InitProject, AStaticHelperOfTwoFilesIsSpelledApart) {
  std::string text = kSmallStepProgram;
  text.insert(0, "static int tile_count() { return 4; }\n");
  auto p = GatherSmallProgram("step.cu", text);
  InitPassTrace trace;
  Result<FoundLoop> found = FindLoop(p->facts, {}, &trace);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  const std::vector<ProgramFile> others = {
      {"runner.cu", "static int tile_count() { return 8; }\nint runner_tiles() { return tile_count(); }\n", true, "runner.cu"}};
  InitPassTrace project;
  Result<ProjectFiles> r = Project(p->facts, others, *found, RewrittenMain{p->facts.raw, {}}, &project);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->main_text, p->facts.raw);
  ASSERT_EQ(r->sources.size(), 1u);
  EXPECT_EQ(r->sources[0].text, "static int tile_count_cuco_runner() { return 8; }\n"
                                "int runner_tiles() { return tile_count_cuco_runner(); }\n");
  EXPECT_TRUE(Traced(project.lines, {"runner.cu: its own `tile_count`", "`tile_count_cuco_runner`"}));
}

// A copy between GPUs outside NCCL has no meaning when each GPU is a rank of its own.
TEST(InitProject, ACopyBetweenGpusIsRefused) {
  std::string text = kAllGpus;
  text.replace(text.find("  return 0;"), 0, "  cudaMemcpyPeer(x[1], 1, x[0], 0, 256 * sizeof(float));\n");
  auto p = GatherSmallProgram("peer.cu", text);
  const Status s = ProjectionRefusal(p->facts, {}, text);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("peer.cu:"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("a copy between GPUs outside NCCL"), std::string::npos) << s.message();
}

// ParCoreLab/multi-GPU-comm-bench's C helpers: a .c file clang found an error in as C++ is refused,
// its file, line and clang's message named; a .c file without one, and a .cu file with one, are not.
TEST(InitProject, ACFileCxxDoesNotTakeIsRefusedWithClangsReason) {
  Analysis a;
  a.file_errors["../../util/argparse.c"] =
      "../../util/argparse.c:9: error: cannot initialize a variable of type 'struct options *' with an lvalue of type 'void *'";
  a.file_errors["kernels.cu"] = "kernels.cu:3: error: unknown type name 'half8'";
  a.files = {"main.cu", "kernels.cu", "../../util/argparse.c"};
  ProgramFacts f;
  f.analysis = &a;
  const Status s = CSourcesRefusal(f);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("argparse.c:9: C that C++ does not take (cannot initialize a variable of type 'struct options *' "
                              "with an lvalue of type 'void *'): ", 0), 0u) << s.message();
  a.file_errors.erase("../../util/argparse.c");
  EXPECT_TRUE(CSourcesRefusal(f).ok());
}

}  // namespace
}  // namespace cuco::scaffold_internal
