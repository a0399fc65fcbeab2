#include "search/novelty.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

const char* kA = R"(// frozen header
// EVOLVE-BLOCK-START
static void Kernel(float* out, const float* in, int n) {
  for (int i = 0; i < n; ++i) out[i] = in[i] * 2.0f;  // scale
}
constexpr int kChunks = 4;  // cuco:knob chunks
// EVOLVE-BLOCK-END
int frozen_tail();
)";

TEST(Novelty, TokensDropCommentsAndWhitespace) {
  EXPECT_EQ(CodeTokens("a  +b // c\n/* d */ \"x y\""), (std::vector<std::string>{"a", "+", "b", "\"x y\""}));
  EXPECT_EQ(Shingles("int   x = 1;", 2), Shingles("int x=1; // comment", 2));
}

TEST(Novelty, EvolveTextIsTheBlockBodies) {
  std::string t = EvolveText(kA);
  EXPECT_NE(t.find("Kernel"), std::string::npos);
  EXPECT_EQ(t.find("frozen_tail"), std::string::npos);
  EXPECT_EQ(EvolveText("no blocks"), "no blocks");
}

TEST(Novelty, JaccardOrdersSimilarity) {
  std::string b = kA;
  b.replace(b.find("kChunks = 4"), 11, "kChunks = 8");
  std::string c = R"(// frozen header
// EVOLVE-BLOCK-START
__global__ void Other(double* p) { p[threadIdx.x] += __shfl_sync(0xffffffff, p[0], 1); }
// EVOLVE-BLOCK-END
int frozen_tail();
)";
  auto sa = Shingles(EvolveText(kA), 4), sb = Shingles(EvolveText(b), 4), sc = Shingles(EvolveText(c), 4);
  EXPECT_DOUBLE_EQ(Jaccard(sa, sa), 1.0);
  EXPECT_DOUBLE_EQ(Jaccard({}, {}), 1.0);
  const double ab = Jaccard(sa, sb), ac = Jaccard(sa, sc);
  EXPECT_GT(ab, 0.6);
  EXPECT_LT(ab, 1.0);
  EXPECT_LT(ac, 0.1);
  // Whitespace and comment edits change nothing.
  std::string reformatted = kA;
  reformatted.replace(reformatted.find("// scale"), 8, "/* twice */");
  EXPECT_DOUBLE_EQ(Jaccard(sa, Shingles(EvolveText(reformatted), 4)), 1.0);
}

TEST(Novelty, IndexFindsTheNearest) {
  NoveltyIndex idx(4);
  auto empty = idx.Query(kA);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->id, 0);
  EXPECT_EQ(empty->similarity, 0);
  ASSERT_TRUE(idx.Add(3, "// EVOLVE-BLOCK-START\nint f() { return 1 + 2 + 3; }\n// EVOLVE-BLOCK-END\n").ok());
  ASSERT_TRUE(idx.Add(7, kA).ok());
  ASSERT_TRUE(idx.Add(9, kA).ok());
  auto n = idx.Query(kA);
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->id, 7);  // ties go to the older candidate
  EXPECT_DOUBLE_EQ(n->similarity, 1.0);
  EXPECT_EQ(idx.size(), 3u);
}

TEST(Novelty, EmbedderHookReplacesJaccard) {
  NoveltyIndex idx;
  int calls = 0;
  idx.SetEmbedder([&](const std::string& text) -> Result<std::vector<float>> {
    ++calls;
    return std::vector<float>{static_cast<float>(text.size()), 1.0f};
  });
  ASSERT_TRUE(idx.Add(1, "aaaa").ok());
  auto n = idx.Query("aaaa");
  ASSERT_TRUE(n.ok());
  EXPECT_NEAR(n->similarity, 1.0, 1e-9);
  EXPECT_EQ(calls, 2);
  idx.SetEmbedder([](const std::string&) -> Result<std::vector<float>> { return Status::Unavailable("endpoint down"); });
  EXPECT_FALSE(idx.Query("b").ok());
}

}  // namespace
}  // namespace cuco
