#include "scaffold/feeding_compute.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

AnalyzedOp WorkOp(const std::string& kind, const std::string& api, const std::string& fn, int line,
              std::vector<std::string> reads, std::vector<std::string> writes, bool comm = false) {
  AnalyzedOp op;
  op.kind = kind, op.api = api, op.function = fn, op.file = "dir/main.cu", op.line = line;
  op.reads = std::move(reads), op.writes = std::move(writes), op.contains_comm = comm;
  return op;
}

// The index of the first token on `line`.
size_t FirstOnLine(const std::vector<Tok>& t, int line) {
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].line == line) return i;
  return t.size();
}

TEST(FeedingComputeTest, HelpersLaunchingComputeAndNotCommunicatingAreCompute) {
  Analysis a;
  a.ops = {WorkOp("kernel", "matmul_kernel", "matmul", 3, {"A", "B"}, {"C"}),
           WorkOp("call", "matmul", "step", 9, {"A", "B"}, {"C"}),
           WorkOp("call", "step", "main", 20, {"A", "B"}, {"C"}),
           WorkOp("collective", "ncclAllReduce", "reduce", 12, {"C"}, {"C"}),
           WorkOp("kernel", "scale", "reduce", 13, {"C"}, {"C"}),
           WorkOp("call", "reduce", "main", 21, {"C"}, {"C"}, true),
           WorkOp("copy", "cudaMemcpy", "main", 19, {"h"}, {"A"})};
  const auto w = DeviceWorkByLine(a, "main.cu");
  EXPECT_TRUE(w.at(20).compute);  // through step, then matmul
  EXPECT_FALSE(w.at(20).comm);
  EXPECT_TRUE(w.at(21).comm);     // reduce launches a kernel too, but it communicates
  EXPECT_FALSE(w.at(21).compute);
  EXPECT_EQ(w.count(19), 0u);     // a copy is neither
  EXPECT_TRUE(DeviceWorkByLine(a, "other.cu").empty());
}

TEST(FeedingComputeTest, TheComputeProducingWhatTheCollectiveReadsIsTaken) {
  const std::string text =
      "int main() {\n"                              // 1
      "  cudaMalloc(&A, n);\n"                      // 2
      "  fill<<<g, b>>>(A);\n"                      // 3: writes A, reads nothing: set-up
      "  gemm(A, B, C);\n"                          // 4: feeds scale (reads A, B; writes C)
      "  scale<<<g, b>>>(C, D);\n"                  // 5: feeds the all-reduce (reads C; writes D)
      "  CHECK(cudaDeviceSynchronize());\n"         // 6: goes with them
      "  ncclAllReduce(D, D, n, f, s, comm, 0);\n"  // 7
      "}\n";
  std::map<int, LineWork> w;
  w[3] = {true, false, {}, {"A"}};
  w[4] = {true, false, {"A", "B"}, {"C"}};
  w[5] = {true, false, {"C"}, {"D"}};
  w[7] = {false, true, {"D"}, {"D"}};
  const auto t = Scan(text);
  const size_t open = FirstOnLine(t, 1) + 4, comm = FirstOnLine(t, 7);
  ASSERT_EQ(t[open].text, "{");
  const size_t last = StatementEnd(t, comm);
  EXPECT_EQ(t[FeedingComputeStart(t, open, comm, last, w)].line, 4);
  w[4].writes = {"E"};  // line 4 no longer feeds line 5: the walk ends at line 5
  EXPECT_EQ(t[FeedingComputeStart(t, open, comm, last, w)].line, 5);
  w[5].writes = {"F"};  // nothing feeds the all-reduce: the communication alone
  EXPECT_EQ(FeedingComputeStart(t, open, comm, last, w), comm);
}

TEST(FeedingComputeTest, AnythingElseBetweenEndsTheWalk) {
  const std::string text =
      "int main() {\n"                              // 1
      "  gemm(A, B, C);\n"                          // 2
      "  cudaMemcpy(C, h, n, cudaMemcpyHostToDevice);\n"  // 3: no compute: ends the walk
      "  ncclAllReduce(C, C, n, f, s, comm, 0);\n"  // 4
      "  if (x) { gemm(A, B, D); }\n"               // 5
      "  ncclAllReduce(D, D, n, f, s, comm, 0);\n"  // 6
      "}\n";
  std::map<int, LineWork> w;
  w[2] = {true, false, {"A", "B"}, {"C"}};
  w[4] = {false, true, {"C"}, {"C"}};
  w[5] = {true, false, {"A", "B"}, {"D"}};
  w[6] = {false, true, {"D"}, {"D"}};
  const auto t = Scan(text);
  const size_t open = FirstOnLine(t, 1) + 4;
  const size_t at4 = FirstOnLine(t, 4), at6 = FirstOnLine(t, 6);
  EXPECT_EQ(FeedingComputeStart(t, open, at4, StatementEnd(t, at4), w), at4);
  EXPECT_EQ(FeedingComputeStart(t, open, at6, StatementEnd(t, at6), w), at6);  // a block before: never half of one
}

}  // namespace
}  // namespace cuco::scaffold_internal
