#include "propose/prompt_builder.h"

#include <gtest/gtest.h>

#include "prompts/test_seed_text.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Has;
namespace {

using test_seed::kSeed;

std::string WithChunks(int chunks, const std::string& marker) {
  std::string s = kSeed;
  s.replace(s.find("kChunks = 4"), 11, "kChunks = " + std::to_string(chunks));
  s.replace(s.find("  return cuco"), 0, "  // " + marker + "\n");
  return s;
}

WorkloadConfig Workload() {
  WorkloadConfig w;
  w.name = "scale_allgather";
  w.description = "Scale a vector, then all-gather it";
  w.language = "cuda";
  w.seed_file = "seed.cu";
  w.world_size = 2;
  w.world_sizes = {2, 4};
  w.verify_sizes = {{"N", 1024}};
  w.bench_sizes = {{"N", 1 << 24}};
  w.tol_rel_l2 = 0.01;
  w.tol_max_abs = 0.0625;
  w.knobs = {{"chunks", {"1", "4", "16"}, "4", "pipelining depth"}};
  return w;
}

CandidateView View(int64_t id, const std::string& code, const std::string& status, double ms, double speedup,
                   const std::string& feedback = "") {
  CandidateView v;
  v.id = id;
  v.code = code;
  v.status = status;
  v.time_ms = ms;
  v.speedup = speedup;
  v.feedback = feedback;
  v.knobs = {{"chunks", "4"}};
  v.mutation_kind = "diff";
  return v;
}

struct Fixture {
  WorkloadConfig wl = Workload();
  ProposalContext ctx;
  Fixture() {
    ctx.workload = &wl;
    ctx.seed_code = kSeed;
    ctx.mutation_kind = "diff";
    ctx.parent = View(7, WithChunks(8, "PARENT-MARK"), "ok", 1.25, 1.6, "rank 0: 1.25 ms median; tail 0.01 ms");
    ctx.inspirations = {View(11, WithChunks(16, "INSPIRATION-ELEVEN"), "ok", 0.98, 2.04),
                        View(12, WithChunks(1, "INSPIRATION-TWELVE"), "ok", 1.4, 1.43),
                        View(13, WithChunks(4, "INSPIRATION-THIRTEEN"), "ok", 1.9, 1.05)};
    ctx.failures = {View(20, WithChunks(2, "FAILURE-TWENTY"), "compile_error", -1, 0,
                         "cand.cu:9: error: identifier \"Scal\" is undefined"),
                    View(21, WithChunks(3, "FAILURE-TWENTYONE"), "wrong_result", -1, 0,
                         "rank 1: rel_l2 0.7 > 0.01 (a rank's contribution is missing)")};
    ctx.meta_summary = "TRIED: chunking. WORKED: 16 chunks. NEXT: LSA stores.";
    KnobMove move;
    move.set = {{"chunks", "16"}};
    move.gain = 1.27;
    move.observations = 2;
    move.children = {11, 14};
    ctx.improving_moves = {move};
    ctx.hardware = "GPUs: 2 x H200, 132 SMs, NV18";
    ctx.comm_api = "__device__ void* ncclGetLsaPointer(ncclWindow_t w, size_t offset, int peer);\n";
    ctx.temperature = 0.7;
  }
};

TEST(BuildPrompt, HasEveryPiece) {
  Fixture f;
  PromptOptions o;
  o.contract = "CONTRACT-TEXT cuco_candidate_run\n";
  Prompt p = BuildPrompt(f.ctx, o);
  EXPECT_FALSE(p.truncated);
  // System: stable facts.
  for (const char* part : {"EVOLVE-BLOCK-START", "## Design space", "1. Communication backend", "## Harness rules",
                           "ctx.side_stream(i)", "CONTRACT-TEXT", "ncclGetLsaPointer(ncclWindow_t w",
                           "GPUs: 2 x H200", "scale_allgather", "Scale a vector, then all-gather it",
                           "must also work with 2, 4", "N=16777216", "relative L2 error <= 0.01",
                           "chunks in {1, 4, 16} (default 4): pipelining depth"})
    EXPECT_TRUE(Has(p.system, part)) << part << "\n" << p.system;
  // User: this call.
  for (const char* part : {"TRIED: chunking", "Candidate #7: ok, 1.25 ms, speedup 1.6x over the seed",
                           "Knobs: chunks=4", "rank 0: 1.25 ms median", "PARENT-MARK", "```cuda\n",
                           "Candidate #11: ok, 0.98 ms, speedup 2.04x", "INSPIRATION-ELEVEN", "INSPIRATION-THIRTEEN",
                           "Candidate #20: compile_error", "identifier \"Scal\" is undefined", "Key lines:",
                           "Candidate #21: wrong_result", "a rank's contribution is missing", "## Task",
                           "## Knob moves measured faster than their parent", "- chunks=16: 1.27x over its parent (2 pairs: #11, #14)",
                           "The file has 2 EVOLVE blocks.", "SUMMARY:", "<<<<<<< SEARCH", ">>>>>>> REPLACE"})
    EXPECT_TRUE(Has(p.user, part)) << part << "\n" << p.user;
  EXPECT_EQ(p.inspiration_ids, (std::vector<int64_t>{11, 12, 13}));
  EXPECT_TRUE(p.partner_ids.empty());
  // The failure's key lines: the line the compiler named, with its neighbours.
  EXPECT_TRUE(Has(p.user, "  9: ")) << p.user;
  // Only the system message carries the stable parts.
  EXPECT_FALSE(Has(p.user, "## Design space"));
  EXPECT_FALSE(Has(p.system, "PARENT-MARK"));
}

TEST(BuildPrompt, KindsAndFormats) {
  Fixture f;
  f.ctx.mutation_kind = "rewrite";
  Prompt r = BuildPrompt(f.ctx);
  EXPECT_TRUE(Has(r.user, "Rewrite the parent's EVOLVE blocks")) << r.user;
  EXPECT_TRUE(Has(r.user, "```cuda\n// EVOLVE-BLOCK-START\n<the whole new first block>")) << r.user;
  EXPECT_FALSE(Has(r.user, "<<<<<<< SEARCH"));

  f.ctx.mutation_kind = "crossover";
  Prompt c = BuildPrompt(f.ctx);
  EXPECT_EQ(c.partner_ids, (std::vector<int64_t>{11, 12}));
  EXPECT_TRUE(Has(c.user, "## Parent 1 (the base)")) << c.user;
  EXPECT_TRUE(Has(c.user, "### Parent 2 = candidate #11: ok, 0.98 ms")) << c.user;
  EXPECT_TRUE(Has(c.user, "### Parent 3 = candidate #12")) << c.user;
  EXPECT_TRUE(Has(c.user, "combines the best ideas")) << c.user;
  EXPECT_TRUE(Has(c.user, "<<<<<<< SEARCH")) << c.user;  // either format

  f.ctx.mutation_kind = "knobs";  // asked as a diff
  EXPECT_TRUE(Has(BuildPrompt(f.ctx).user, "<<<<<<< SEARCH"));
  f.ctx.phase = "exploit";
  EXPECT_TRUE(Has(BuildPrompt(f.ctx).user, "Phase: exploit"));
}

TEST(BuildPrompt, IslandInstructionsAndCpuWorkloads) {
  Fixture f;
  f.ctx.island_prompt = "Use the copy engine only.";
  f.ctx.allowed_knobs = {{"chunks", {"4", "16"}}};
  Prompt p = BuildPrompt(f.ctx);
  EXPECT_TRUE(Has(p.user, "## Island instructions\nUse the copy engine only.")) << p.user;
  EXPECT_TRUE(Has(p.user, "chunks in {4, 16}")) << p.user;

  f.wl.language = "cpu";
  Prompt cpu = BuildPrompt(f.ctx);
  EXPECT_FALSE(Has(cpu.system, "## Design space"));
  EXPECT_FALSE(Has(cpu.system, "## Harness rules"));
  EXPECT_TRUE(Has(cpu.user, "```cpp\n")) << cpu.user;
  EXPECT_TRUE(Has(cpu.system, "cuco/cpu_harness.h")) << cpu.system;
}

TEST(BuildPrompt, CapsCutInspirationsFirstAndNeverTheParent) {
  Fixture f;
  const std::string filler(20000, 'x');
  for (auto& c : f.ctx.inspirations) c.code += "// " + filler + "\n";
  Prompt full = BuildPrompt(f.ctx);
  ASSERT_FALSE(full.truncated);

  // A little less room: the last inspirations lose their code, the first keeps it.
  PromptOptions o;
  o.limits.max_total_chars = full.size() - 15000;
  Prompt a = BuildPrompt(f.ctx, o);
  EXPECT_TRUE(a.truncated);
  EXPECT_LE(a.size(), o.limits.max_total_chars);
  EXPECT_TRUE(Has(a.user, "INSPIRATION-ELEVEN")) << a.user;
  EXPECT_FALSE(Has(a.user, "INSPIRATION-THIRTEEN"));
  EXPECT_TRUE(Has(a.user, "Candidate #13: ok, 1.9 ms")) << a.user;  // still listed, without code
  EXPECT_TRUE(Has(a.user, "FAILURE-TWENTY") || Has(a.user, "Candidate #20")) << a.user;
  EXPECT_TRUE(Has(a.user, "PARENT-MARK"));

  // Much less room: inspirations go, then failures; the parent stays whole.
  o.limits.max_total_chars = 11000;
  Prompt b = BuildPrompt(f.ctx, o);
  EXPECT_TRUE(b.truncated);
  EXPECT_TRUE(b.inspiration_ids.empty());
  EXPECT_FALSE(Has(b.user, "Candidate #13"));
  EXPECT_FALSE(Has(b.user, "Candidate #21"));
  EXPECT_TRUE(Has(b.user, f.ctx.parent.code)) << b.user;
  EXPECT_TRUE(Has(b.user, "<<<<<<< SEARCH"));

  // The individual caps.
  Fixture g;
  g.ctx.meta_summary = std::string(50000, 'm');
  g.ctx.comm_api = std::string(50000, 'a');
  g.ctx.parent.feedback = std::string(50000, 'f');
  PromptOptions caps;
  caps.limits.max_meta_chars = 1000;
  caps.limits.max_comm_api_chars = 2000;
  caps.limits.max_feedback_chars = 3000;
  Prompt c = BuildPrompt(g.ctx, caps);
  EXPECT_LT(c.size(), 1000u + 2000u + 3000u + 40000u);
  EXPECT_FALSE(Has(c.user, std::string(1001, 'm')));
  EXPECT_TRUE(Has(c.user, std::string(500, 'm')));
  EXPECT_FALSE(Has(c.system, std::string(2001, 'a')));
  EXPECT_FALSE(Has(c.user, std::string(3001, 'f')));
  EXPECT_TRUE(Has(c.user, "characters in all; cut here]"));

  caps.limits.max_inspirations = 1;
  caps.limits.max_failures = 1;
  Prompt d = BuildPrompt(g.ctx, caps);
  EXPECT_EQ(d.inspiration_ids, (std::vector<int64_t>{11}));
  EXPECT_TRUE(Has(d.user, "Candidate #20"));
  EXPECT_FALSE(Has(d.user, "Candidate #21"));
}

TEST(SummaryPrompt, AsksForTriedWorkedNext) {
  Prompt p = BuildSummaryPrompt("chunks=16: 3 ok, best 0.98 ms\n");
  EXPECT_TRUE(Has(p.user, "chunks=16: 3 ok, best 0.98 ms"));
  EXPECT_TRUE(Has(p.user, "TRIED:"));
  EXPECT_TRUE(Has(p.user, "WORKED:"));
  EXPECT_TRUE(Has(p.user, "NEXT:"));
  EXPECT_FALSE(p.truncated);
  Prompt big = BuildSummaryPrompt(std::string(100000, 's'), 5000);
  EXPECT_TRUE(big.truncated);
  EXPECT_LT(big.user.size(), 6000u);
}

}  // namespace
}  // namespace cuco
