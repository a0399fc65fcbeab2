#include "scaffold/held_random_state.h"

#include <gtest/gtest.h>

#include "scaffold/main_rewrite.h"

namespace cuco::scaffold_internal {
namespace {

// The habit of a training program (SadreevAmir/hpc_final_project's ViT): a batch sampled on the host
// each step from an engine and a distribution declared before the loop.
const char* kSampling = R"(#include <random>
int main(int argc, char** argv) {
  std::mt19937 init_rng(7);                     // used only before the loop
  float w = std::normal_distribution<float>(0.f, 1.f)(init_rng);
  std::mt19937 rng(42 + 1000u * rank);
  std::uniform_int_distribution<int> sampler(0, N - 1);
  std::random_device device;
  auto jitter = std::mt19937_64(device());
  for (int step = 1; step <= steps; step++) {
    for (int b = 0; b < B; b++) h_target[b] = labels[sampler(rng)];
    cudaMemcpyAsync(d_target, h_target, B * sizeof(int), cudaMemcpyHostToDevice, stream);
    if (rand() % 2) shuffle(jitter);
    ncclAllReduce(d_grads, d_grads, n, ncclFloat, ncclSum, comm, stream);
  }
  return 0;
}
)";

TEST(HeldRandomState, TheGeneratorsTheLoopDrawsFromAreHeldAtTheirStateWhenItStarts) {
  Result<TimedLoop> loop = FindTimedLoop("train.cu", kSampling, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->random_state.generators, (std::vector<std::string>{"rng", "sampler", "jitter"}));
  EXPECT_EQ(loop->random_state.restarts, (std::vector<std::string>{"srand(1)"}));
  const std::string out = RewriteMain(kSampling, *loop, {});
  const size_t copy = out.find("auto cuco_held_rng = rng;");
  const size_t serve = out.find("cuco_program::serve(");
  const size_t restore = out.find("rng = cuco_held_rng;", serve);
  const size_t draw = out.find("sampler(rng)");
  ASSERT_NE(copy, std::string::npos) << out;
  EXPECT_LT(copy, serve);
  EXPECT_LT(restore, draw) << out;  // each harness iteration starts from the loop's first state
  EXPECT_NE(out.find("sampler = cuco_held_sampler;"), std::string::npos);
  EXPECT_NE(out.find("srand(1);"), std::string::npos);
  EXPECT_EQ(out.find("cuco_held_init_rng"), std::string::npos);  // the loop does not draw from it
  EXPECT_EQ(out.find("cuco_held_device"), std::string::npos);   // a random_device holds no state
}

TEST(HeldRandomState, AGeneratorOfABlockClosedBeforeTheLoopOrSeededInItIsNot) {
  const std::string text = R"(int main() {
  { std::mt19937 rng(1); fill(a, rng); }
  std::mt19937 rng(2);
  while (it < n) { srand(it); x = rand(); step(x); it++; }
}
)";
  const std::vector<Tok> t = Scan(text);
  size_t open = 0, first = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text == "{" && open == 0) open = i;
    if (t[i].text == "while") first = i;
  }
  const HeldRandomState held = RandomStateDrawn(t, open, first, t.size() - 2);
  EXPECT_TRUE(held.generators.empty());  // the loop names no engine; the first rng's block has closed
  EXPECT_TRUE(held.restarts.empty());    // the loop seeds rand() itself
}

TEST(HeldRandomState, AGeneratorALambdaTheLoopCallsDrawsFrom) {
  const std::string text = R"(int main() {
  std::mt19937 rng(2);
  std::bernoulli_distribution coin(0.5);
  auto step = [&]() { if (coin(rng)) ncclAllReduce(a, a, n, ncclFloat, ncclSum, comm, s); };
  for (int i = 0; i < iters; ++i) step();
}
)";
  Result<TimedLoop> loop = FindTimedLoop("p.cu", text, {"ncclAllReduce"});
  ASSERT_TRUE(loop.ok()) << loop.status().message();
  EXPECT_EQ(loop->random_state.generators, (std::vector<std::string>{"rng", "coin"}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
