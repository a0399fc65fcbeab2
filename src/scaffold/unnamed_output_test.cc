#include "scaffold/unnamed_output.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

AnalyzedOp CallOp(const std::string& kind, const std::string& api, const std::string& function, int line,
              std::vector<std::string> args, const std::string& recv = "") {
  AnalyzedOp op;
  op.kind = kind, op.api = api, op.function = function, op.file = "/src/t.cu", op.line = line;
  op.args = std::move(args), op.recv = recv;
  return op;
}

// NCCL 1's broadcast test: main calls RunTests, whose local array RunTest broadcasts into.
TEST(UnnamedOutput, TheBufferIsFollowedUpToTheFunctionThatMakesIt) {
  Analysis a;
  a.functions = {{"RunTest", "/src/t.cu", 23, {"buff", "N", "root"}, ""},
                 {"RunTests", "/src/t.cu", 111, {"N", "type"}, ""},
                 {"main", "/src/t.cu", 140, {"argc", "argv"}, ""}};
  a.ops = {CallOp("collective", "ncclBcast", "RunTest", 70, {"(void*)buff[i]", "n"}, "buff[i]"),
           CallOp("call", "RunTest", "RunTests", 124, {"buff", "N", "root"}),
           CallOp("call", "RunTests", "main", 208, {"N", "ncclChar"})};
  const UnnamedOutputWhy why = UnnamedOutput(a, "main");
  EXPECT_EQ(why.made_in, "RunTests");
  EXPECT_EQ(why.clause,
            "its NCCL calls write `buff[i]` (ncclBcast in RunTest, t.cu:70), RunTests's `buff` (t.cu:124), a local of "
            "RunTests (or a member or a global there), which main never names: the harness binds the buffers main "
            "declares before its loop");
}

// A replay method reads its buffers from a pool object main passes: the parameter is where it stops.
// The buffer is named without the cast the call writes around it (dftfe's `(void *)recv`).
TEST(UnnamedOutput, AParameterMainFillsWithAnObjectIsNamed) {
  Analysis a;
  a.functions = {{"replay", "/src/t.cu", 37, {"log", "pool"}, "nccl_backend"}};
  a.ops = {CallOp("p2p", "ncclRecv", "replay", 62, {"pool.buffers[i]", "n"}, "(void *)pool.buffers[i]"),
           CallOp("call", "replay", "main", 213, {"log", "*pool"})};
  EXPECT_EQ(UnnamedOutput(a, "main").made_in, "");
  EXPECT_EQ(UnnamedOutput(a, "main").clause,
            "its NCCL calls write `pool.buffers[i]` (ncclRecv in replay, t.cu:62), through replay's parameter `pool`, "
            "which main passes something cuco cannot follow to a name of main (an object holding the buffers, or an "
            "expression)");
  a.ops[0].function = "main";  // main's own calls: nothing to say here
  EXPECT_EQ(UnnamedOutput(a, "main").clause, "");
}

// A solver that allocates its device buffers on every call and copies its solution into the host
// array it is given: main's `x`, passed by the call in the loop (a benchmark helper calls it too).
// The same copy reached only from outside the loop, or into a local, says nothing.
TEST(HostOnlyResult, AHelpersCopyToTheHostIsFollowedToMainsArray) {
  Analysis a;
  a.functions = {{"solve", "/src/solver.cu", 170, {"op", "mat", "b", "x", "config"}, ""},
                 {"bench", "/src/bench.cu", 60, {"op", "mat", "b", "x"}, ""},
                 {"main", "/src/t.cu", 30, {"argc", "argv"}, ""}};
  AnalyzedOp copy = CallOp("copy", "cudaMemcpy", "solve", 773, {"x", "d_x", "n * sizeof(double)", "cudaMemcpyDeviceToHost"});
  copy.file = "/src/solver.cu";
  AnalyzedOp from_bench = CallOp("call", "solve", "bench", 81, {"op", "mat", "b", "x", "config"});
  from_bench.file = "/src/bench.cu";
  a.ops = {copy, from_bench, CallOp("call", "solve", "main", 204, {"spmv_op", "&mat", "b", "x", "warm"})};
  EXPECT_EQ(HostOnlyResult(a, "main", "t.cu", 202, 205),
            "its result reaches main only in host memory: cudaMemcpy in solve (solver.cu:773) copies it into `x`, main's "
            "`x` (t.cu:204), which is neither a std::vector nor an array of a size main gives it before its loop (new[], "
            "malloc, `T x[N]`), the host memory the harness binds; have solve write its result to a device buffer main "
            "allocates there and passes in");
  EXPECT_EQ(HostOnlyResult(a, "main", "t.cu", 210, 220), "");  // the call is outside the loop
  a.ops[0].args[0] = "h_local";
  EXPECT_EQ(HostOnlyResult(a, "main", "t.cu", 202, 205), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
