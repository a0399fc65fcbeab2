#include "transform/producer_sites.h"

#include <gtest/gtest.h>

#include "workload/evolve_blocks.h"

namespace cuco::transform_internal {
namespace {

// What was found of the seed's one call of a collective, the seed `text` a block in a function body.
struct Found {
  std::optional<ProducerSite> site;       // an all-reduce's producer (Site)
  std::optional<ConsumerSite> consumer;   // an all-gather's consumer (ConsumerOf)
  std::string why, text;
};
template <class Find>
Found FoundIn(const std::string& body, const std::string& name, Find find) {
  Found f;
  f.text = "void f(float* z, float* x, float* w[], Out o, ncclComm_t c, cudaStream_t s, bool b) {\n"
           "// EVOLVE-BLOCK-START\n" + body + "// EVOLVE-BLOCK-END\n}\n";
  auto split = SplitEvolveBlocks(f.text, "seed.cu");
  EXPECT_TRUE(split.ok()) << split.status().message();
  SeedSource src(f.text, "seed.cu", *split);
  auto calls = src.Calls([&](const std::string& n) { return n == name; });
  EXPECT_EQ(calls.size(), 1u);
  find(src, calls.at(0), &f);
  return f;
}
Found Site(const std::string& body) {
  return FoundIn(body, "ncclAllReduce", [](const SeedSource& src, const SeedCall& c, Found* f) {
    f->site = FindProducerSite(src, c, &f->why);
  });
}
Found ConsumerOf(const std::string& body) {
  return FoundIn(body, "ncclAllGather", [](const SeedSource& src, const SeedCall& c, Found* f) {
    f->consumer = FindConsumerSite(src, c, &f->why);
  });
}

TEST(ProducerSites, TheCallStatementBeforeTheCollectiveNamingItsBuffer) {
  Found f = Site("  gemm(h, 8, z);\n  NCCLCHECK(ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s));\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_EQ(f.site->buffer, "z");
  EXPECT_EQ(f.site->producer_line, 3);
  EXPECT_EQ(f.site->indent, "  ");
  EXPECT_EQ(f.text.substr(f.site->insert_at, 6), "  gemm");
}

// A wait for the device between the GEMM and the collective (a first tensor-parallel program's
// habit): the GEMM is the producer, and the wait is where it begins, to be guarded.
TEST(ProducerSites, AWaitBetweenTheGemmAndTheCollectiveIsSteppedOver) {
  for (const std::string wait : {"CUDA_OK(cudaDeviceSynchronize());", "cudaStreamSynchronize(s);",
                                 "check(cudaStreamSynchronize( o.s ) );"}) {
    Found f = Site("  gemm(h, 8, z);\n  " + wait + "\n  NCCLCHECK(ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s));\n");
    ASSERT_TRUE(f.site) << wait << ": " << f.why;
    EXPECT_EQ(f.site->producer_line, 3);
    EXPECT_EQ(f.text.substr(f.site->insert_at, 6), "  gemm");
    ASSERT_EQ(f.site->waits_at.size(), 1u);
    EXPECT_EQ(f.text.substr(f.site->waits_at[0], wait.size()), wait);
  }
  // Not a wait alone: the statement before the collective is what it is.
  Found other = Site("  gemm(h, 8, z);\n  cudaDeviceSynchronize(); log(x);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n");
  EXPECT_FALSE(other.site);
  EXPECT_NE(other.why.find("`z`"), std::string::npos) << other.why;
  Found no_gemm = Site("  prep(x);\n  cudaDeviceSynchronize();\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n");
  EXPECT_FALSE(no_gemm.site);
  EXPECT_NE(no_gemm.why.find("before the wait before it (line 3) does not name `z`"), std::string::npos) << no_gemm.why;
}

// Two streams ordered by an event (overlap code's habit: the GEMM on a compute stream records an
// event, the collective's stream waits for it): the GEMM is the producer; the wait is guarded, the
// record kept (another wait may use the event).
TEST(ProducerSites, AnEventBetweenTheGemmsStreamAndTheCollectivesIsSteppedOver) {
  for (const std::string record : {"CUDA_OK(cudaEventRecord(done, compute));",
                                   "CUDA_OK(cuco_program::shim::EventRecord(done, compute));"}) {
    const std::string wait = "CUDA_OK(cudaStreamWaitEvent(comm_s, done, 0));";
    Found f = Site("  gemm(h, 8, z);\n  " + record + "\n  " + wait +
                   "\n  NCCLCHECK(ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, comm_s));\n");
    ASSERT_TRUE(f.site) << record << ": " << f.why;
    EXPECT_EQ(f.site->producer_line, 3);
    ASSERT_EQ(f.site->waits_at.size(), 1u);
    EXPECT_EQ(f.text.substr(f.site->waits_at[0], wait.size()), wait);
  }
  // A record alone before the collective, with no GEMM before it: no producer.
  Found none = Site("  prep(x);\n  cudaEventRecord(done, s);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n");
  EXPECT_FALSE(none.site);
}

TEST(ProducerSites, AMemberChainBufferAndAProducerSharingItsLine) {
  Found f = Site("  prep(); gemm(h, o . out);  ncclAllReduce(o.out, o.out, 8, ncclFloat, ncclSum, c, s);\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_EQ(f.site->buffer, "o.out");
  EXPECT_EQ(f.site->indent, "");
  EXPECT_EQ(f.text.substr(f.site->insert_at, 6), " gemm(");  // right after `prep();`
}

// One thread driving every GPU: a loop of GEMMs, ncclGroupStart, a loop of the collectives.
TEST(ProducerSites, TheLoopOfGemmsBeforeTheLoopOfCollectives) {
  Found f = Site(
      "  for (int r = 0; r < 2; ++r) {\n"
      "    cudaSetDevice(r);\n"
      "    cublasSgemm(h, 8, g [r] . y, 8);\n"
      "  }\n"
      "  NCCLCHECK(ncclGroupStart());\n"
      "  for (int r = 0; r < 2; ++r) {\n"
      "    cudaSetDevice(r);\n"
      "    NCCLCHECK(ncclAllReduce(g[r].y, g[r].y, 8, ncclFloat, ncclSum, c, s));\n"
      "  }\n"
      "  ncclGroupEnd();\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_TRUE(f.site->loop);
  EXPECT_EQ(f.site->buffer, "g[r].y");
  EXPECT_EQ(f.site->producer_line, 5);
  EXPECT_EQ(f.site->indent, "  ");
  EXPECT_EQ(f.text.substr(f.site->insert_at, 7), "  for (");  // the Producer before the GEMMs' loop
  EXPECT_EQ(f.site->arm_indent, "    ");
  EXPECT_EQ(f.text.substr(f.site->arm_at, 15), "    cublasSgemm");  // each pass armed before its GEMM
  // A buffer subscripted by a name: the statement-before form takes it too.
  Found g = Site("  gemm(h, w[k]);\n  ncclAllReduce(w[k], w[k], 8, ncclFloat, ncclSum, c, s);\n");
  ASSERT_TRUE(g.site) << g.why;
  EXPECT_FALSE(g.site->loop);
  EXPECT_EQ(g.site->buffer, "w[k]");
}

// A cast around the buffer, as NVIDIA's examples write it (`(const void *) sendbuff[i]`), names the
// same pointer: the knobs' sites are the buffer's, uncast.
TEST(ProducerSites, ACastAroundTheBufferNamesTheBufferItself) {
  Found f = Site("  gemm(h, 8, w[i]);\n  ncclAllReduce((const void *) w[i], (void*)w[i], 8, ncclFloat, ncclSum, c, s);\n");
  ASSERT_TRUE(f.site) << f.why;
  EXPECT_EQ(f.site->buffer, "w[i]");
  Found g = ConsumerOf("  ncclAllGather(x, static_cast<float*>(z), 8, ncclFloat, c, s);\n  gemm(h, z);\n");
  ASSERT_TRUE(g.consumer) << g.why;
  EXPECT_EQ(g.consumer->buffer, "z");
  Found h = Site("  gemm(h, w);\n  ncclAllReduce((char*)w + 8, w, 8, ncclFloat, ncclSum, c, s);\n");
  EXPECT_FALSE(h.site);
  EXPECT_NE(h.why.find("its buffer `(char*)w + 8` is not a name"), std::string::npos) << h.why;
}

TEST(ProducerSites, EachCaseWithoutOneSaysWhy) {
  const std::pair<const char*, const char*> kCases[] = {
      {"  gemm(h, z);\n  if (b) ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "the body of `if` without braces"},
      {"  if (ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s) != ncclSuccess) return;\n", "not a statement of its own"},
      {"  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "no statement comes before it"},
      {"  scale<<<1, 32, 0, s>>>(z);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "is not a call"},
      {"  gemm(h, w[i + 1]);\n  ncclAllReduce(w[i + 1], w[i + 1], 8, ncclFloat, ncclSum, c, s);\n", "is not a name"},
      {"  gemm(h, zz);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "does not name `z`"},
      {"  for (int i = 0; i < 2; ++i) gemm(h, z);\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "is not a call"},
      {"  { gemm(h, z); }\n  ncclAllReduce(z, z, 8, ncclFloat, ncclSum, c, s);\n", "a braced block"},
      // The loop form, each part missing in turn.
      {"  for (;;) { gemm(h, w[r]); log(); }\n  for (;;) { ncclAllReduce(w[r], w[r], 8, ncclFloat, ncclSum, c, s); }\n",
       "the last statement of the loop before its loop (line 3) is not a call naming `w[r]`"},
      {"  for (;;) { gemm(h, w[r]); }\n  log();\n  for (;;) { ncclAllReduce(w[r], w[r], 8, ncclFloat, ncclSum, c, s); }\n",
       "is no `for` loop of GEMMs"},
      {"  while (b) { gemm(h, w[r]); }\n  for (;;) { ncclAllReduce(w[r], w[r], 8, ncclFloat, ncclSum, c, s); }\n",
       "is no `for` loop of GEMMs"},
      {"  for (;;) { gemm(h, w[r]); }\n  for (;;) { w[r] = z; ncclAllReduce(w[r], w[r], 8, ncclFloat, ncclSum, c, s); }\n",
       "is not a call"},
  };
  for (const auto& [body, why] : kCases) {
    Found f = Site(body);
    EXPECT_FALSE(f.site) << body;
    EXPECT_NE(f.why.find(why), std::string::npos) << body << " -> " << f.why;
  }
}


// The consumer form: the all-gather, then the call reading what it gathered.
TEST(ProducerSites, TheCallAfterTheAllGatherNamingWhatItGathered) {
  Found f = ConsumerOf("  NCCLCHECK(ncclAllGather(x, o . full, 8, ncclFloat, c, s));\n  gemm(h, o.full, z);\n");
  ASSERT_TRUE(f.consumer) << f.why;
  EXPECT_EQ(f.consumer->buffer, "o . full");
  EXPECT_EQ(f.consumer->consumer_line, 4);  // the consumer's line
  EXPECT_EQ(f.consumer->indent, "  ");
  EXPECT_EQ(f.text.substr(f.consumer->insert_at, 11), "  NCCLCHECK");  // the Consumer before the all-gather
  Found g = ConsumerOf("  prep(); ncclAllGather(x, z, 8, ncclFloat, c, s); gemm(h, [&] { use(z); });\n");
  ASSERT_TRUE(g.consumer) << g.why;
  EXPECT_EQ(g.consumer->indent, "");
  EXPECT_EQ(g.text.substr(g.consumer->insert_at, 14), " ncclAllGather");  // right after `prep();`
}

// A wait after the all-gather: the GEMM after the wait reads what it gathered (the Consumer keeps
// the all-gather until that GEMM, so the wait no longer waits for it).
TEST(ProducerSites, AWaitBetweenTheAllGatherAndTheGemmIsSteppedOver) {
  Found f = ConsumerOf("  ncclAllGather(x, z, 8, ncclFloat, c, s);\n  CUDA_OK(cudaStreamSynchronize(s));\n  gemm(h, z);\n");
  ASSERT_TRUE(f.consumer) << f.why;
  EXPECT_EQ(f.consumer->consumer_line, 5);
  Found g = ConsumerOf("  ncclAllGather(x, z, 8, ncclFloat, c, s);\n  cudaDeviceSynchronize();\n  gemm(h, y);\n");
  EXPECT_FALSE(g.consumer);
  EXPECT_NE(g.why.find("the statement after the wait after it (line 5) does not name `z`"), std::string::npos) << g.why;
}

TEST(ProducerSites, EachConsumerCaseWithoutOneSaysWhy) {
  const std::pair<const char*, const char*> kCases[] = {
      {"  if (b) ncclAllGather(x, z, 8, ncclFloat, c, s);\n  gemm(h, z);\n", "the body of `if` without braces"},
      {"  ncclAllGather(x, z, 8, ncclFloat, c, s);\n", "the statement after it is not a call"},
      {"  ncclAllGather(x, z, 8, ncclFloat, c, s);\n  scale<<<1, 32, 0, s>>>(z);\n", "is not a call"},
      {"  ncclAllGather(x, z, 8, ncclFloat, c, s);\n  { gemm(h, z); }\n", "is not a call"},
      {"  ncclAllGather(x, z + 8, 8, ncclFloat, c, s);\n  gemm(h, z + 8);\n", "is not a name"},
      {"  ncclAllGather(x, z, 8, ncclFloat, c, s);\n  gemm(h, zz);\n", "does not name `z`"},
  };
  for (const auto& [body, why] : kCases) {
    Found f = ConsumerOf(body);
    EXPECT_FALSE(f.consumer) << body;
    EXPECT_NE(f.why.find(why), std::string::npos) << body << " -> " << f.why;
  }
}

}  // namespace
}  // namespace cuco::transform_internal
