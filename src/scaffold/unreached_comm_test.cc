#include "scaffold/unreached_comm.h"

#include <gtest/gtest.h>

#include "scaffold/init_find_loop.h"
#include "scaffold/init_pass_test_util.h"

namespace cuco::scaffold_internal {
namespace {

constexpr const char* kTwoPaths = R"(#include <nccl.h>
void reduce_mpi(float* h, int n) { (void)h; (void)n; }
void reduce_nccl(float* d, int n, ncclComm_t c) { ncclAllReduce(d, d, n, ncclFloat, ncclSum, c, 0); }
void run_nccl(float* d, int n, ncclComm_t c) { for (int i = 0; i < 3; ++i) reduce_nccl(d, n, c); }
int main() {
  float* d = nullptr;
  ncclComm_t c = nullptr;
  // run_nccl(d, 1, c);
  reduce_mpi(d, 1);
  return 0;
}
)";

// main running the MPI version with the NCCL one's call commented out: the reason names the function
// issuing the NCCL call and the commented call of its caller.
TEST(UnreachedComm, MainReachingNoNcclCallIsToldWhereItIs) {
  auto p = GatherSmallProgram("bench.cu", kTwoPaths);
  std::set<std::string> direct;
  CommNamesOf(p->analysis, "main", &direct);
  const auto why = UnreachedCommunication(p->facts, "main", direct);
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->rfind("bench.cu:5: main reaches no NCCL call through the calls cuco can follow: the program's NCCL calls "
                       "are in reduce_nccl (bench.cu:3), which nothing main calls reaches (bench.cu:8 calls run_nccl in a "
                       "comment)", 0), 0u) << *why;
  EXPECT_EQ(CalledFrom(p->analysis, "main").count("reduce_nccl"), 0u);
  EXPECT_EQ(CalledFrom(p->analysis, "run_nccl").count("reduce_nccl"), 1u);
}

// A function main names without calling it (a thread's) runs from main: nothing is said.
TEST(UnreachedComm, AThreadsFunctionIsReached) {
  std::string text = kTwoPaths;
  text.replace(text.find("  // run_nccl(d, 1, c);"), 23, "  std::thread t(run_nccl, d, 1, c);\n  t.join();");
  text.replace(0, 0, "#include <thread>\n");
  auto p = GatherSmallProgram("bench.cu", text);
  std::set<std::string> direct;
  CommNamesOf(p->analysis, "main", &direct);
  EXPECT_FALSE(UnreachedCommunication(p->facts, "main", direct).has_value());
}

// A sweep benchmark handing each measurement to its runner as a lambda (`run_on_gpus(n, fn)` calling
// `fn(g)` on a thread per GPU; aryanjain285/tensor-parallel-gemm): the reason says the runner calls
// its parameter, a call cuco does not follow.
TEST(UnreachedComm, ARunnerCallingItsCallableParameterIsToldSo) {
  EXPECT_EQ(CalledParameters(" { for (int g = 0; g < n; ++g) workers.emplace_back([&, g]() { fn(g); }); } ", {"n", "fn"}),
            "`fn`");
  EXPECT_EQ(CalledParameters(" { f(n); g(n); f(1); } ", {"f", "g"}), "`f`, `g`");
  EXPECT_EQ(CalledParameters(" { return n + fn; } ", {"n", "fn"}), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
