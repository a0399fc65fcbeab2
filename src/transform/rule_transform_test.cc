#include "transform/rule_transform.h"

#include <gtest/gtest.h>

#include "util/files.h"
#include "workload/evolve_blocks.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Count;
namespace {

std::string Workload(const std::string& rel) {
  Result<std::string> text = ReadFile(std::string(CUCO_SOURCE_DIR) + "/" + rel);
  EXPECT_TRUE(text.ok()) << rel;
  return text.ok() ? *text : "";
}

const char* kHead =
    "#include <cuco/harness.h>\n#include <cuco/codesign.h>\n#include <nccl.h>\n";

TEST(RuleTransform, GemmReduceScatterSeed) {
  const std::string seed = Workload("workloads/gemm_reducescatter/seed.cu");
  Result<RuleTransformResult> r = RuleTransform(seed, "seed.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->collectives, 1);
  EXPECT_EQ(Count(r->code, "ncclReduceScatter("), 0);
  EXPECT_EQ(Count(r->code, "cuco_dc.reduce_scatter(s->partial.ptr, io.out(\"C\").ptr"), 1);
  // The partial product is read by the peers: symmetric memory, freed by the harness.
  EXPECT_EQ(Count(r->code, "cuco_dc.malloc(&s->partial.ptr, partial_bytes)"), 1);
  EXPECT_EQ(Count(r->code, "cudaMalloc(&s->workspace"), 1);  // the workspace stays private
  EXPECT_EQ(Count(r->code, "cudaFree("), 0);
  EXPECT_EQ(Count(r->code, "cuco_dc.alloc_symmetric(ctx, partial_bytes, &s->partial)"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.init(ctx, size_t(0) << 20)"), 1);  // no send/recv: no mailbox
  EXPECT_EQ(Count(r->code, "cuco_dc.bind(io);"), 1);
  EXPECT_EQ(Count(r->code, "static cuco::codesign::DeviceCollectives cuco_dc;"), 1);
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
  // init comes first in setup, before any allocation.
  EXPECT_LT(r->code.find("cuco_dc.init("), r->code.find("cuco_dc.malloc("));
}

TEST(RuleTransform, GemmAllGatherSeedReadsAHarnessBuffer) {
  const std::string seed = Workload("workloads/gemm_allgather/seed.cu");
  Result<RuleTransformResult> r = RuleTransform(seed, "seed.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "cuco_dc.all_gather(io.in(\"A\").ptr"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.malloc("), 0);  // A is the harness's: symmetric already
  EXPECT_TRUE(r->warnings.empty()) << r->warnings.front();
}

TEST(RuleTransform, GroupedSendRecvUseTheMailbox) {
  const std::string seed = std::string(kHead) +
      "// EVOLVE-BLOCK-START\n"
      "struct S { float* buf = nullptr; float* out = nullptr; };\n"
      "cuco::Status cuco_candidate_setup(cuco::RankContext& c, const cuco::Sizes&, void** state) {\n"
      "  auto* s = new S; *state = s;\n"
      "  CUCO_CUDA_CHECK(cudaMalloc((void**)&s->out, 64));\n"
      "  return cuco::Status::Ok();\n}\n"
      "cuco::Status cuco_candidate_run(cuco::RankContext& c, void* state, const cuco::IO& bufs) {\n"
      "  auto* s = static_cast<S*>(state);\n"
      "  // ncclAllReduce(a comment is not a call)\n"
      "  const char* t = \"ncclAllReduce(\";\n"
      "  CUCO_NCCL_CHECK(ncclGroupStart());\n"
      "  for (int p = 0; p < c.world_size; ++p) {\n"
      "    CUCO_NCCL_CHECK(ncclSend(bufs.in(\"X\").ptr, 4, ncclFloat32, p, c.comm, c.stream));\n"
      "    CUCO_NCCL_CHECK(::ncclRecv(s->out + 4 * p, 4, ncclFloat32, p, c.comm, c.stream));\n"
      "  }\n"
      "  CUCO_NCCL_CHECK(ncclGroupEnd());\n"
      "  (void)t;\n  return cuco::Status::Ok();\n}\n"
      "void cuco_candidate_teardown(cuco::RankContext&, void* state) { auto* s = static_cast<S*>(state); cudaFree(s->out); delete s; }\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = RuleTransform(seed, "p2p.cu", {.mailbox_mib = 64, .build_flags = {}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->collectives, 2);
  EXPECT_EQ(Count(r->code, "cuco_dc.group_start()"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.group_end()"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.send(bufs.in"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.recv(s->out"), 1);  // the "::" went with the name
  EXPECT_EQ(Count(r->code, "::cuco_dc"), 0);
  EXPECT_EQ(Count(r->code, "// ncclAllReduce(a comment"), 1);
  EXPECT_EQ(Count(r->code, "\"ncclAllReduce(\""), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.init(c, size_t(64) << 20)"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.bind(bufs);"), 1);
  EXPECT_EQ(Count(r->code, "cudaMalloc((void**)&s->out"), 1);  // a recv buffer stays private
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("mailbox"), std::string::npos);
}

TEST(RuleTransform, Refusals) {
  // A collective in frozen code.
  const std::string frozen_call = std::string(kHead) +
      "void helper(ncclComm_t c, cudaStream_t s, float* x) { ncclAllReduce(x, x, 1, ncclFloat32, ncclSum, c, s); }\n"
      "// EVOLVE-BLOCK-START\n"
      "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes&, void**) { return cuco::Status::Ok(); }\n"
      "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) { return cuco::Status::Ok(); }\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = RuleTransform(frozen_call, "f.cu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("f.cu:4: frozen code calls ncclAllReduce"), std::string::npos)
      << r.status().message();
  // No blocks.
  r = RuleTransform(std::string(kHead) + "int x;\n", "n.cu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("n.cu:1: no EVOLVE block"), std::string::npos);
  // The include is missing.
  r = RuleTransform("#include <cuco/harness.h>\n// EVOLVE-BLOCK-START\nint x;\n// EVOLVE-BLOCK-END\n", "i.cu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("<cuco/codesign.h>"), std::string::npos);
  // Nothing to transform.
  r = RuleTransform(std::string(kHead) +
                        "// EVOLVE-BLOCK-START\n"
                        "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes&, void**) { return cuco::Status::Ok(); }\n"
                        "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) { return cuco::Status::Ok(); }\n"
                        "// EVOLVE-BLOCK-END\n",
                    "e.cu");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nothing to transform"), std::string::npos);
}

TEST(RuleTransform, WarnsWhenASendBufferIsNotFoundSymmetric) {
  const std::string seed = std::string(kHead) +
      "static float* g_buf;\n"
      "// EVOLVE-BLOCK-START\n"
      "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes&, void**) { return cuco::Status::Ok(); }\n"
      "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"
      "  CUCO_NCCL_CHECK(ncclAllReduce(g_buf, io.out(\"Y\").ptr, 8, ncclFloat32, ncclSum, ctx.comm, ctx.stream));\n"
      "  return cuco::Status::Ok();\n}\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = RuleTransform(seed, "w.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("w.cu:8: ncclAllReduce reads `g_buf`"), std::string::npos) << r->warnings[0];
  EXPECT_NE(FormatRuleTransform(*r, "w.cu").find("w.cu:8: ncclAllReduce -> cuco_dc.all_reduce"), std::string::npos);
}

TEST(RuleTransform, NamesAnUnnamedRankContext) {
  const std::string seed = Workload("tests/gpu/workloads/block_allgather/seed.cu");
  ASSERT_NE(seed.find("cuco_candidate_setup(cuco::RankContext& /*ctx*/,"), std::string::npos);
  Result<RuleTransformResult> r = RuleTransform(seed, "seed.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "cuco_candidate_setup(cuco::RankContext& cuco_ctx /*ctx*/,"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.init(cuco_ctx, size_t(0) << 20)"), 1);
  EXPECT_EQ(Count(r->code, "cuco_dc.all_gather(io.in(\"x\").ptr, io.out(\"y\").ptr"), 1);
}

TEST(RuleTransform, LocalPointersIntoHarnessBuffersCountAsSymmetric) {
  const std::string seed = Workload("tests/gpu/workloads/collectives_suite/seed.cu");
  Result<RuleTransformResult> r = RuleTransform(seed, "seed.cu");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->collectives, 9);  // 7 collectives, one send, one recv
  for (const std::string& w : r->warnings) EXPECT_NE(w.find("mailbox"), std::string::npos) << w;
  EXPECT_EQ(r->warnings.size(), 1u);
  for (const char* call : {"ncclAllGather(", "ncclReduceScatter(", "ncclAllReduce(", "ncclBroadcast(", "ncclAlltoAll(",
                           "ncclSend(", "ncclRecv(", "ncclReduce(", "ncclGroupStart(", "ncclGroupEnd("})
    EXPECT_EQ(Count(r->code, call), 0) << call;
}

}  // namespace
}  // namespace cuco
