#include "scaffold/handed_lambdas.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

TEST(HandedLambdasTest, ARepeaterCallsAParameterInALoop) {
  const std::string text =
      "template <typename Body>\nstats run_benchmark(int warmup, int iters, Body&& body) {\n"
      "  for (int i = 0; i < warmup; ++i) body();\n  for (int i = 0; i < iters; ++i) { timer t; body(); }\n}\n"
      "template <class F> void timed(F f, int n = 3) { for (int k = 0; k < n; ++k) std::forward<F>(f)(); }\n"
      "void once(std::function<void()> fn) { fn(); }\n"          // called once: no loop
      "void loop_of_other(int n, Obj o) { for (int i = 0; i < n; ++i) o.body(); }\n"  // a member, not the parameter
      "std::vector<int> sizes(int n) { std::vector<int> v; for (int i = 0; i < n; ++i) v.push_back(i); return v; }\n";
  const std::set<std::string> r = Repeaters(text);
  EXPECT_TRUE(r.count("run_benchmark"));
  EXPECT_TRUE(r.count("timed"));
  EXPECT_FALSE(r.count("once"));
  EXPECT_FALSE(r.count("loop_of_other"));
  EXPECT_FALSE(r.count("sizes"));
}

TEST(HandedLambdasTest, TheLastLambdaHandedToARepeaterThatCommunicates) {
  const std::string text =
      "for (auto c : cases) {\n"
      "  auto warm = gpu_bench::run_benchmark(1, 1, [&]() { fill<<<1, 1>>>(x); });\n"
      "  const auto stats = gpu_bench::run_benchmark(warmup, iters, [&]() {\n"
      "    ncclGroupStart();\n    ncclSend(x, n, ncclFloat, 1, comm, s);\n    ncclGroupEnd();\n  });\n"
      "  log([&]() { ncclAllReduce(x, x, n, ncclFloat, ncclSum, comm, s); });\n"  // handed to no repeater
      "}\n";
  const std::vector<Tok> t = Scan(text);
  const auto l = LastHandedLambda(t, 0, t.size() - 1, {"run_benchmark"}, {"ncclSend", "ncclAllReduce"});
  ASSERT_TRUE(l.has_value());
  EXPECT_EQ(l->callee, "run_benchmark");
  EXPECT_EQ(t[l->open].line, 3);
  EXPECT_EQ(t[l->close].line, 7);
  EXPECT_FALSE(LastHandedLambda(t, 0, t.size() - 1, {"run_benchmark"}, {"ncclBroadcast"}).has_value())
      << "no lambda reaches that communication";
  const std::vector<Tok> stored = Scan("auto body = [&]() { ncclSend(x, n, ncclFloat, 1, comm, s); };\nrun_benchmark(1, 2, body);\n");
  EXPECT_FALSE(LastHandedLambda(stored, 0, stored.size() - 1, {"run_benchmark"}, {"ncclSend"}).has_value())
      << "a lambda stored in a variable is main's own lambda, not one written as an argument";
  const std::vector<Tok> per_gpu = Scan("ncclGroupStart();\nfor_each_gpu(n, [&](int g) { ncclAllReduce(b[g], b[g], c, ncclFloat, ncclSum, comms[g], s[g]); });\nncclGroupEnd();\n");
  EXPECT_FALSE(LastHandedLambda(per_gpu, 0, per_gpu.size() - 1, {"for_each_gpu"}, {"ncclAllReduce"}).has_value())
      << "a lambda taking the GPU is one GPU's part of the iteration";
}

}  // namespace
}  // namespace cuco::scaffold_internal
