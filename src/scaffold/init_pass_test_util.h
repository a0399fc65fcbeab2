// For the tests of cuco init's passes (init_*_test.cc): a small program analysed with libclang and
// its facts gathered, as `cuco init` does before its passes run.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "analyze/analysis.h"
#include "scaffold/init_bind_buffers.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/init_rewrite_main.h"
#include "scaffold/program_facts.h"

namespace cuco::scaffold_internal {

struct SmallProgram {
  Analysis analysis;
  ProgramFacts facts;  // its analysis is `analysis`: the struct stays where it is made
};

// `text` as the file `name` (libclang reads it from a temporary folder), analysed and gathered.
inline std::unique_ptr<SmallProgram> GatherSmallProgram(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("cuco-init-pass-" + std::to_string(::getpid()) + "-" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> a = AnalyzeFile((dir / name).string(), o);
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  auto p = std::make_unique<SmallProgram>();
  if (a.ok()) p->analysis = *a;
  EXPECT_EQ(p->analysis.parse_path, "clang");
  p->facts = GatherFacts(p->analysis, name, "small", text);
  return p;
}

// A small program through init's first three passes, with no flags: its loop, its buffers, main
// rewritten.
struct ThroughMain {
  FoundLoop found;
  BoundBuffers bound;
  RewrittenMain main;
  InitPassTrace trace;    // FindLoop's and BindBuffers'
  InitPassTrace rewrite;  // RewriteProgramMain's
};

// `p` through FindLoop, BindBuffers and RewriteProgramMain; nullptr (the failure EXPECTed with its
// status) when one of them fails.
inline std::unique_ptr<ThroughMain> RunThroughMain(const SmallProgram& p) {
  auto r = std::make_unique<ThroughMain>();
  Result<FoundLoop> found = FindLoop(p.facts, {}, &r->trace);
  EXPECT_TRUE(found.ok()) << found.status().ToString();
  if (!found.ok()) return nullptr;
  r->found = *found;
  Result<BoundBuffers> bound = BindBuffers(p.facts, {}, r->found, &r->trace);
  EXPECT_TRUE(bound.ok()) << bound.status().ToString();
  if (!bound.ok()) return nullptr;
  r->bound = *bound;
  Result<RewrittenMain> m = RewriteProgramMain(p.facts, r->found, r->bound, &r->rewrite);
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  if (!m.ok()) return nullptr;
  r->main = *m;
  return r;
}

// The 1-based line of `text` holding `marker`.
inline int LineWith(const std::string& text, const std::string& marker) {
  const size_t at = text.find(marker);
  EXPECT_NE(at, std::string::npos) << marker;
  int line = 1;
  for (size_t i = 0; i < at && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

// Whether one line of `trace` contains every one of `parts`.
inline bool Traced(const std::vector<std::string>& trace, std::initializer_list<std::string> parts) {
  for (const std::string& line : trace) {
    bool all = true;
    for (const std::string& p : parts) all &= line.find(p) != std::string::npos;
    if (all) return true;
  }
  return false;
}

// main's first statements in the tests' programs: one rank's communicator `comm` and a stream `s`.
inline const std::string kOneRankCommAndStream = R"(  ncclComm_t comm;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclCommInitRank(&comm, 1, id, 0);
  cudaStream_t s;
  cudaStreamCreate(&s);
)";

// A program with a warm-up loop, a loop in a branch not taken by default, and its timed loop; `x`
// read, `tmp` scratch, `y` written by the all-reduce.
inline const std::string kSmallStepProgram = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <chrono>
#include <cstdlib>
__global__ void scale(float* y, const float* x, int n) { y[threadIdx.x] = 2.f * x[threadIdx.x]; }
void step(float* y, const float* x, float* tmp, int n, ncclComm_t comm, cudaStream_t s) {
  scale<<<1, 256, 0, s>>>(tmp, x, n);
  ncclAllReduce(tmp, y, n, ncclFloat, ncclSum, comm, s);
}
int main(int argc, char** argv) {
)" + kOneRankCommAndStream + R"(  const int n = 1024;
  float *x, *y, *tmp;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  cudaMalloc(&tmp, n * sizeof(float));
  const int verbose = argc > 1 ? atoi(argv[1]) : 0;
  for (int i = 0; i < 5; ++i) step(y, x, tmp, n, comm, s);  // warm-up
  if (verbose) {
    for (int i = 0; i < 3; ++i) step(y, x, tmp, n, comm, s);  // verbose only
  }
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) {  // timed
    step(y, x, tmp, n, comm, s);
  }
  cudaStreamSynchronize(s);
  return 0;
}
)";

}  // namespace cuco::scaffold_internal
