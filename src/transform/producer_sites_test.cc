#include "transform/producer_sites.h"

#include <gtest/gtest.h>

#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {
namespace {

// The producer site of the seed's one ncclAllReduce, in a block of a function body.
struct Found {
  std::optional<ProducerSite> site;
  std::string why, text;
};
Found Site(const std::string& body) {
  Found f;
  f.text = "void f(float* z, float* w[], Out o, ncclComm_t c, cudaStream_t s, bool b) {\n// EVOLVE-BLOCK-START\n" + body +
           "// EVOLVE-BLOCK-END\n}\n";
  auto split = SplitEvolveBlocks(f.text, "seed.cu");
  EXPECT_TRUE(split.ok()) << split.status().message();
  SeedSource src(f.text, "seed.cu", *split);
  auto calls = src.Calls([](const std::string& n) { return n == "ncclAllReduce"; });
  EXPECT_EQ(calls.size(), 1u);
  f.site = FindProducerSite(src, calls.at(0), &f.why);
  return f;
}

TEST(ProducerSites, TheCallStatementBeforeTheCollectiveNamingItsBuffer) {
  Found f = Site("  gemm(h, 8, z);\n  NCCLCHECK(ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s));\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_EQ(f.site->buffer, "z");
  EXPECT_EQ(f.site->producer_line, 3);
  EXPECT_EQ(f.site->indent, "  ");
  EXPECT_EQ(f.text.substr(f.site->insert_at, 6), "  gemm");
}

TEST(ProducerSites, AMemberChainBufferAndAProducerSharingItsLine) {
  Found f = Site("  prep(); gemm(h, o . out);  ncclAllReduce(o.out, o.out, 8, ncclFloat, ncclSum, c, s);\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_EQ(f.site->buffer, "o.out");
  EXPECT_EQ(f.site->indent, "");
  EXPECT_EQ(f.text.substr(f.site->insert_at, 6), " gemm(");  // right after `prep();`
}

TEST(ProducerSites, EachCaseWithoutOneSaysWhy) {
  const std::pair<const char*, const char*> kCases[] = {
      {"  gemm(h, z);\n  if (b) ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "the body of `if` without braces"},
      {"  if (ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s) != ncclSuccess) return;\n", "not a statement of its own"},
      {"  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "no statement comes before it"},
      {"  scale<<<1, 32, 0, s>>>(z);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "is not a call"},
      {"  gemm(h, w[0]);\n  ncclAllReduce(w[0], w[0], 8, ncclFloat, ncclSum, c, s);\n", "is not a plain name"},
      {"  gemm(h, zz);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "does not name `z`"},
      {"  for (int i = 0; i < 2; ++i) gemm(h, z);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "is not a call"},
      {"  { gemm(h, z); }\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "a braced block"},
  };
  for (const auto& [body, why] : kCases) {
    Found f = Site(body);
    EXPECT_FALSE(f.site) << body;
    EXPECT_NE(f.why.find(why), std::string::npos) << body << " -> " << f.why;
  }
}

}  // namespace
}  // namespace cuco::transform_internal
