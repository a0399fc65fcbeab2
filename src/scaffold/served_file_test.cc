// A program laid out in folders whose timed loop is a local function of another file's (served_file.h):
// through ScaffoldWorkload, as `cuco init src/main.cu src/tp/runner.cu -- nvcc -I. ...` makes it.
#include "scaffold/served_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "scaffold/scaffold.h"
#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

constexpr const char* kRunnerH = R"(#pragma once
float run_profile(int n, int rank, int ranks);
)";

constexpr const char* kRunner = R"(#include "src/tp/runner.h"
#include <nccl.h>
#include <cuda_runtime.h>
__global__ void fill(float* x, int n) { x[threadIdx.x] = 1.0f; }
__global__ void scale(float* y, const float* x, int n) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }
float run_profile(int n, int rank, int ranks) {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  ncclComm_t comm;
  ncclCommInitRank(&comm, ranks, id, rank);
  float *d_x, *d_y;
  cudaMalloc(&d_x, n * sizeof(float));
  cudaMalloc(&d_y, n * sizeof(float));
  fill<<<1, 32>>>(d_x, n);
  for (int i = 0; i < 10; ++i) {
    scale<<<1, 32>>>(d_y, d_x, n);
    ncclAllReduce(d_y, d_y, n, ncclFloat, ncclSum, comm, 0);
  }
  cudaDeviceSynchronize();
  return 0.0f;
}
)";

constexpr const char* kMain = R"(#include <cstdio>
#include "src/tp/runner.h"
int main(int argc, char** argv) {
  const float ms = run_profile(1024, 0, 1);
  std::printf("%f ms\n", ms);
  return 0;
}
struct Modes { int main = 1; };
int main_mode() { return Modes{}.main; }
)";

class ServedFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cuco-served-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "src" / "tp");
    std::ofstream(root_ / "src" / "tp" / "runner.h") << kRunnerH;
    std::ofstream(root_ / "src" / "tp" / "runner.cu") << kRunner;
    std::ofstream(root_ / "src" / "main.cu") << kMain;
  }
  void TearDown() override { fs::remove_all(root_); }
  // `cuco init src/main.cu src/tp/runner.cu -- nvcc -I. ...` in root_.
  Result<ScaffoldReport> Init(const std::string& loop = "", bool second_runner = false) {
    std::vector<std::string> paths = {(root_ / "src/main.cu").string(), (root_ / "src/tp/runner.cu").string()};
    if (second_runner) paths.push_back((root_ / "src/tp/runner_1d.cu").string());
    AnalyzeOptions o;
    o.include_dirs = DefaultIncludeDirs();
    o.own_include_dirs = {root_.string()};
    o.program_flags = {"-I" + root_.string()};
    Result<Analysis> a = AnalyzeProgram(paths, o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    ScaffoldOptions s;
    s.other_sources.assign(paths.begin() + 1, paths.end());
    s.own_include_dirs = {root_.string()};
    s.compile_flags = {"-I" + root_.string()};
    s.loop = loop;
    return ScaffoldWorkload(a.ok() ? *a : Analysis{}, paths[0], root_ / "wl", s);
  }
  fs::path root_;
};

// main's file holds no loop; main calls run_profile of src/tp/runner.cu once, whose loop is served:
// its locals are the buffers, main is renamed in main's copy, and the includes spelled from the -I
// folder above main's (`src/tp/runner.h`) name the harness's copies.
TEST_F(ServedFileTest, TheLoopOfAFunctionInAnotherFileIsServed) {
  Result<ScaffoldReport> r = Init();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->harness_ready) << r->harness_reason;
  bool loop = false;
  for (const std::string& g : r->harness_guesses) loop |= g.rfind("runner.cu:15: the timed loop (the last loop of run_profile", 0) == 0;
  EXPECT_TRUE(loop) << ::testing::PrintToString(r->harness_guesses);
  EXPECT_EQ(r->inputs, std::vector<std::string>{"d_x"});
  EXPECT_EQ(r->outputs, std::vector<std::string>{"d_y"});
  const std::string seed = *ReadFile(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("int cuco_program_main(int argc, char** argv) {"), std::string::npos);
  EXPECT_NE(seed.find("cuco_program::serve("), std::string::npos);
  EXPECT_NE(seed.find("return cuco_program_main(argc, argv);"), std::string::npos);
  EXPECT_EQ(seed.find("src/tp/runner.h"), std::string::npos) << "an include the harness cannot resolve";
  EXPECT_NE(seed.find("#include \"tp/runner.h\""), std::string::npos);
  EXPECT_TRUE(fs::exists(root_ / "wl" / "harness" / "tp" / "runner.h"));
  EXPECT_LT(seed.find("int cuco_program_main("), seed.find("cuco_program::serve("));  // main's file first
  EXPECT_NE(seed.find("struct Modes { int main = 1; };\nint main_mode() { return Modes{}.main; }"), std::string::npos)
      << "only main's own name is respelled";
}

// main's own loop reaching the communication is the timed one, even through a function of another
// file: that file is not served (its loop runs once a pass of main's).
TEST_F(ServedFileTest, MainsOwnLoopIsNotServedElsewhere) {
  std::ofstream(root_ / "src" / "main.cu") << R"(#include <cstdio>
#include "src/tp/runner.h"
int main(int argc, char** argv) {
  for (int i = 0; i < 3; ++i) run_profile(1024, 0, 1);
  return 0;
}
)";
  Result<ScaffoldReport> r = Init();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->harness_ready);
  EXPECT_EQ(r->harness_reason.rfind("main.cu:4: no output of the iteration could be named in main", 0), 0u) << r->harness_reason;
}

// A thread per GPU started by the runner of another file (a std::thread per GPU on a lambda, each
// making its NCCL rank): that file is served, the lambda's loop the iteration (marcusalenius's
// bench_ar.cu, held out in stop 73, was the skeleton "the threads start in ..., not in main").
TEST_F(ServedFileTest, ThreadsStartedByAFunctionOfAnotherFile) {
  std::ofstream(root_ / "src" / "tp" / "runner.cu") << R"(#include "src/tp/runner.h"
#include <nccl.h>
#include <cuda_runtime.h>
#include <thread>
#include <vector>
__global__ void scale(float* y, const float* x, int n) { y[threadIdx.x] = 2.0f * x[threadIdx.x]; }
float run_profile(int n, int rank, int ranks) {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<std::thread> threads;
  for (int g = 0; g < ranks; ++g)
    threads.emplace_back([&, g]() {
      cudaSetDevice(g);
      ncclComm_t comm;
      ncclCommInitRank(&comm, ranks, id, g);
      float *d_x, *d_y;
      cudaMalloc(&d_x, n * sizeof(float));
      cudaMalloc(&d_y, n * sizeof(float));
      for (int i = 0; i < 10; ++i) {
        scale<<<1, 32>>>(d_y, d_x, n);
        ncclAllReduce(d_y, d_y, n, ncclFloat, ncclSum, comm, 0);
      }
      cudaDeviceSynchronize();
    });
  for (auto& t : threads) t.join();
  return 0.0f;
}
)";
  Result<ScaffoldReport> r = Init();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->harness_ready) << r->harness_reason;
  bool loop = false;
  for (const std::string& g : r->harness_guesses) loop |= g.rfind("runner.cu:19: the timed loop", 0) == 0;
  EXPECT_TRUE(loop) << ::testing::PrintToString(r->harness_guesses);
  // d_y as well: bound in and out, since a GPU of a projected program may not write it.
  EXPECT_EQ(r->inputs, (std::vector<std::string>{"d_x", "d_y"}));
  const std::string seed = *ReadFile(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("cuco_program::rank_thread"), std::string::npos);
  EXPECT_LT(seed.find("int cuco_program_main("), seed.find("cuco_program::serve("));  // main's file first
}

// `--loop runner.cu:LINE` names another file's loop: that file is served even where main's own loop
// would be chosen, from main's first call of the function holding it; a line outside every function
// of it, or a file not of the program, is refused naming it.
TEST_F(ServedFileTest, LoopNamesALoopOfAnotherFile) {
  std::ofstream(root_ / "src" / "main.cu") << R"(#include <cstdio>
#include "src/tp/runner.h"
int main(int argc, char** argv) {
  for (int i = 0; i < 3; ++i) run_profile(1024, 0, 1);
  return 0;
}
)";
  Result<ScaffoldReport> r = Init("src/tp/runner.cu:15");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE(r->harness_ready) << r->harness_reason;
  bool loop = false;
  for (const std::string& g : r->harness_guesses) loop |= g.rfind("runner.cu:15: the timed loop (the loop --loop names", 0) == 0;
  EXPECT_TRUE(loop) << ::testing::PrintToString(r->harness_guesses);
  fs::remove_all(root_ / "wl");
  r = Init("runner.cu:3");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->harness_ready);
  EXPECT_EQ(r->harness_reason.rfind("runner.cu:3: --loop names a line outside every function of runner.cu", 0), 0u)
      << r->harness_reason;
  fs::remove_all(root_ / "wl");
  EXPECT_FALSE(Init("other.cu:3").ok());
}

// main runs one of two runners of other files by a condition it does not decide (TensorParallelPTX's
// `args.tp_mode == TpMode::Summa ? run_profile(args, dist) : run_profile_1d(args, dist)`): init
// does not guess, it lists both loops and the --loop serving each; --loop then serves the one named.
// Two runners in other files, main calling one by a condition: where the program's defaults decide
// it (the mode is 0 without arguments), the one it runs is served; where they do not (a mode read
// from the input), the user says which with --loop.
TEST_F(ServedFileTest, TwoRunnersByAConditionAreTheUsersToChoose) {
  std::string one_d = kRunner;
  one_d.replace(one_d.find("float run_profile("), 18, "float run_profile_1d(");
  std::ofstream(root_ / "src" / "tp" / "runner_1d.cu") << one_d;
  std::ofstream(root_ / "src" / "tp" / "runner.h") << std::string(kRunnerH) + "float run_profile_1d(int n, int rank, int ranks);\n";
  const std::string by_default = R"(#include <cstdio>
#include <cstdlib>
#include "src/tp/runner.h"
int main(int argc, char** argv) {
  const int mode = argc > 1 ? std::atoi(argv[1]) : 1;
  const float ms = mode == 0 ? run_profile(1024, 0, 1) : run_profile_1d(1024, 0, 1);
  std::printf("%f ms\n", ms);
  return 0;
}
)";
  std::ofstream(root_ / "src" / "main.cu") << by_default;
  Result<ScaffoldReport> r = Init("", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->harness_ready) << r->harness_reason;
  EXPECT_TRUE(fs::exists(root_ / "wl" / "harness" / "seed.cu"));
  const Result<std::string> seed = ReadFile(root_ / "wl" / "harness" / "seed.cu");
  ASSERT_TRUE(seed.ok());
  EXPECT_NE(seed->find("cuco_program::serve"), std::string::npos);
  EXPECT_NE(seed->find("run_profile_1d(int n, int rank, int ranks) {"), std::string::npos);
  fs::remove_all(root_ / "wl");
  std::ofstream(root_ / "src" / "main.cu") << R"(#include <cstdio>
#include <cstdlib>
#include "src/tp/runner.h"
int main(int argc, char** argv) {
  int mode = 0;
  if (std::scanf("%d", &mode) != 1) return 1;
  const float ms = mode == 0 ? run_profile(1024, 0, 1) : run_profile_1d(1024, 0, 1);
  std::printf("%f ms\n", ms);
  return 0;
}
)";
  r = Init("", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->harness_ready);
  EXPECT_NE(r->harness_reason.find("main.cu:4: main calls run_profile"), std::string::npos) << r->harness_reason;
  EXPECT_NE(r->harness_reason.find("`cuco init --loop runner.cu:15`"), std::string::npos) << r->harness_reason;
  EXPECT_NE(r->harness_reason.find("`cuco init --loop runner_1d.cu:15`"), std::string::npos) << r->harness_reason;
  fs::remove_all(root_ / "wl");
  r = Init("runner_1d.cu:15", true);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->harness_ready) << r->harness_reason;
}

}  // namespace
}  // namespace cuco
