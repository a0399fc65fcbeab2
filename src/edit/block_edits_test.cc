#include "edit/block_edits.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <sstream>

#include "util/files.h"
#include "workload/evolve_blocks.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Replaced;
namespace {

// A small two-block file in the shape of a real seed.
const std::string kSeed =
    "#include <cuco/harness.h>\n"                                   // 1
    "#include <nccl.h>\n"                                           // 2
    "\n"                                                            // 3
    "// EVOLVE-BLOCK-START\n"                                       // 4
    "namespace {\n"                                                 // 5
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"             // 6
    "__global__ void Scale(float* x, int n) {\n"                    // 7
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"            // 8
    "  if (i < n) x[i] *= 2.0f;\n"                                  // 9
    "}\n"                                                           // 10
    "}  // namespace\n"                                             // 11
    "// EVOLVE-BLOCK-END\n"                                         // 12
    "\n"                                                            // 13
    "static int frozen_helper() { return 1; }\n"                    // 14
    "\n"                                                            // 15
    "// EVOLVE-BLOCK-START\n"                                       // 16
    "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {\n"  // 17
    "  float* x = static_cast<float*>(io.out(\"X\").ptr);\n"      // 18
    "  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n"            // 19
    "  CUCO_CHECK_LAUNCH();\n"                                      // 20
    "  return cuco::Status::Ok();\n"                                // 21
    "}\n"                                                           // 22
    "// EVOLVE-BLOCK-END\n"                                         // 23
    "int after_blocks;\n";                                          // 24

// ---------------------------------------------------------------------------------------------
// Parsing diffs.

TEST(ParseSearchReplace, SeveralDiffsInFencesWithProse) {
  const std::string answer =
      "SUMMARY: launch with 128 threads and widen the grid\n"
      "\n"
      "Here are the changes:\n"
      "```cpp\n"
      "<<<<<<< SEARCH\n"
      "  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n"
      "=======\n"
      "  Scale<<<128, 128, 0, ctx.stream>>>(x, 1 << 14);\n"
      ">>>>>>> REPLACE\n"
      "```\n"
      "and\n"
      "```\n"
      "<<<<<<< SEARCH\n"
      "constexpr int kChunks = 4;  // cuco:knob chunks\n"
      "=======\n"
      "constexpr int kChunks = 8;  // cuco:knob chunks\n"
      ">>>>>>> REPLACE\n"
      "```\n";
  ASSERT_TRUE(HasSearchReplace(answer));
  auto edits = ParseSearchReplace(answer);
  ASSERT_TRUE(edits.ok()) << edits.status().ToString();
  ASSERT_EQ(edits->size(), 2u);
  EXPECT_EQ((*edits)[0].search, "  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n");
  EXPECT_EQ((*edits)[0].replace, "  Scale<<<128, 128, 0, ctx.stream>>>(x, 1 << 14);\n");
  EXPECT_EQ((*edits)[0].answer_line, 5);
  EXPECT_EQ((*edits)[1].answer_line, 13);
}

TEST(ParseSearchReplace, EmptyReplaceDeletesAndCrlfIsAccepted) {
  auto edits = ParseSearchReplace("<<<<<<< SEARCH\r\n  CUCO_CHECK_LAUNCH();\r\n=======\r\n>>>>>>> REPLACE\r\n");
  ASSERT_TRUE(edits.ok()) << edits.status().ToString();
  ASSERT_EQ(edits->size(), 1u);
  EXPECT_EQ((*edits)[0].search, "  CUCO_CHECK_LAUNCH();\n");
  EXPECT_EQ((*edits)[0].replace, "");
}

TEST(ParseSearchReplace, MalformedDiffsAreErrors) {
  auto none = ParseSearchReplace("I would use a larger grid.\n");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "the answer has no SEARCH/REPLACE diff");

  auto cut = ParseSearchReplace("<<<<<<< SEARCH\nint a;\n=======\nint b;\n");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("ends without `>>>>>>> REPLACE` (was the answer cut off?)"), std::string::npos);

  auto no_divider = ParseSearchReplace("<<<<<<< SEARCH\nint a;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(no_divider.ok());
  EXPECT_NE(no_divider.status().message().find("has no `=======` line"), std::string::npos);

  auto stray = ParseSearchReplace("text\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("answer line 2"), std::string::npos);

  auto empty_search = ParseSearchReplace("<<<<<<< SEARCH\n\n=======\nint b;\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(empty_search.ok());
  EXPECT_NE(empty_search.status().message().find("empty SEARCH"), std::string::npos);

  auto second_search = ParseSearchReplace("<<<<<<< SEARCH\na\n=======\nb\n<<<<<<< SEARCH\n");
  ASSERT_FALSE(second_search.ok());
  EXPECT_NE(second_search.status().message().find("no `>>>>>>> REPLACE`"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Applying diffs.

TEST(ApplySearchReplace, ExactMatchChangesOnlyTheBlock) {
  std::vector<SearchReplace> edits = {{"  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n",
                                       "  Scale<<<128, 256, 0, ctx.stream>>>(x, 1 << 14);\n", 1}};
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Replaced(kSeed, "<<<64,", "<<<128,"));
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
}

TEST(ApplySearchReplace, EditsApplyInSequence) {
  std::vector<SearchReplace> edits = {
      {"  if (i < n) x[i] *= 2.0f;\n", "  if (i < n) x[i] *= 3.0f;\n", 1},
      {"  if (i < n) x[i] *= 3.0f;\n", "  if (i < n) x[i] = x[i] * 3.0f + 1.0f;\n", 5},
  };
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, Replaced(kSeed, "x[i] *= 2.0f;", "x[i] = x[i] * 3.0f + 1.0f;"));
}

TEST(ApplySearchReplace, InsertsAndDeletesLines) {
  std::vector<SearchReplace> edits = {
      {"  CUCO_CHECK_LAUNCH();\n  return cuco::Status::Ok();\n", "  return cuco::Status::Ok();\n", 1},
      {"__global__ void Scale(float* x, int n) {\n",
       "__global__ void __launch_bounds__(256) Scale(float* x, int n) {\n  // one element per thread\n", 9}};
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->find("CUCO_CHECK_LAUNCH"), std::string::npos);
  EXPECT_NE(out->find("__launch_bounds__(256) Scale(float* x, int n) {\n  // one element per thread\n  int i"),
            std::string::npos);
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
}

TEST(ApplySearchReplace, WhitespaceTolerantMatchReindents) {
  // The model dropped the indentation and added trailing spaces and blank lines around the text.
  std::vector<SearchReplace> edits = {{"\nfloat* x = static_cast<float*>(io.out(\"X\").ptr);   \n"
                                       "Scale<<<64,   256, 0, ctx.stream>>>(x, 1 << 14);\n\n",
                                       "\nfloat* x = static_cast<float*>(io.out(\"X\").ptr);\n"
                                       "if (x != nullptr) {\n"
                                       "  Scale<<<32, 256, 0, ctx.stream>>>(x, 1 << 14);\n"
                                       "}\n\n",
                                       3}};
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("{\n  float* x = static_cast<float*>(io.out(\"X\").ptr);\n"
                      "  if (x != nullptr) {\n"
                      "    Scale<<<32, 256, 0, ctx.stream>>>(x, 1 << 14);\n"
                      "  }\n"
                      "  CUCO_CHECK_LAUNCH();\n"),
            std::string::npos)
      << *out;
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
}

TEST(ApplySearchReplace, OverIndentedSearchIsDedented) {
  std::vector<SearchReplace> edits = {{"    CUCO_CHECK_LAUNCH();\n", "    CUCO_CHECK_LAUNCH();\n    // checked\n", 1}};
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("\n  CUCO_CHECK_LAUNCH();\n  // checked\n"), std::string::npos) << *out;
}

TEST(ApplySearchReplace, AmbiguousSearchIsAnError) {
  std::vector<SearchReplace> edits = {{"}\n", "} // end\n", 7}};
  auto out = ApplySearchReplace(kSeed, edits);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "diff 1 (answer line 7): the SEARCH text matches 2 places in the EVOLVE blocks (starting at lines 10, "
            "22); include more surrounding lines so that it matches exactly one");
}

TEST(ApplySearchReplace, FrozenTextIsRefused) {
  // Wholly frozen.
  auto frozen = ApplySearchReplace(kSeed, {{"static int frozen_helper() { return 1; }\n", "static int frozen_helper() { return 2; }\n", 4}});
  ASSERT_FALSE(frozen.ok());
  EXPECT_NE(frozen.status().message().find("diff 1 (answer line 4): edit outside the EVOLVE blocks"), std::string::npos)
      << frozen.status().message();
  EXPECT_NE(frozen.status().message().find("frozen line 14"), std::string::npos) << frozen.status().message();

  // Spanning from a block into the frozen text between blocks.
  auto spans = ApplySearchReplace(
      kSeed, {{"}  // namespace\n// EVOLVE-BLOCK-END\n\nstatic int frozen_helper() { return 1; }\n", "}\n", 2}});
  ASSERT_FALSE(spans.ok());
  EXPECT_NE(spans.status().message().find("edit outside the EVOLVE blocks"), std::string::npos) << spans.status().message();

  // Quoting a marker line.
  auto marker = ApplySearchReplace(kSeed, {{"// EVOLVE-BLOCK-START\nnamespace {\n", "// EVOLVE-BLOCK-START\nnamespace  {\n", 2}});
  ASSERT_FALSE(marker.ok());
  EXPECT_NE(marker.status().message().find("edit outside the EVOLVE blocks"), std::string::npos);

  // Frozen includes, tolerantly matched (indentation differs).
  auto includes = ApplySearchReplace(kSeed, {{"  #include <nccl.h>\n", "#include <nccl_device.h>\n", 1}});
  ASSERT_FALSE(includes.ok());
  EXPECT_NE(includes.status().message().find("edit outside the EVOLVE blocks"), std::string::npos);

  // A replacement adding a marker.
  auto adds = ApplySearchReplace(kSeed, {{"}  // namespace\n", "}  // namespace\n// EVOLVE-BLOCK-END\n", 1}});
  ASSERT_FALSE(adds.ok());
  EXPECT_NE(adds.status().message().find("REPLACE text contains an EVOLVE-BLOCK marker"), std::string::npos);
}

TEST(ApplySearchReplace, NotFoundSaysWhereItDiverges) {
  auto out = ApplySearchReplace(kSeed, {{"  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) x[i] *= 4.0f;\n",
                                         "  int i = threadIdx.x;\n", 3}});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "diff 1 (answer line 3): the SEARCH text is not in the parent: its first 1 line match at line 8, but its "
            "line 2 \"if (i < n) x[i] *= 4.0f;\" differs from the parent's \"if (i < n) x[i] *= 2.0f;\"");
  auto nowhere = ApplySearchReplace(kSeed, {{"cudaMemcpyAsync(a, b, n, cudaMemcpyDeviceToDevice, s);\n", "x;\n", 3}});
  ASSERT_FALSE(nowhere.ok());
  EXPECT_NE(nowhere.status().message().find("its first line \"cudaMemcpyAsync(a, b, n, cudaMemcpyDeviceToDevice, s);\" "
                                            "matches no line"),
            std::string::npos);
}

TEST(ApplySearchReplace, ASecondDiffFailingFailsTheWholeAnswer) {
  auto out = ApplySearchReplace(kSeed, {{"  CUCO_CHECK_LAUNCH();\n", "", 1}, {"  CUCO_CHECK_LAUNCH();\n", "", 6}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("diff 2 (answer line 6)"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Rewrites.

TEST(FencedCodeBlocks, FindsFencesWithLanguagesAndUnclosedLast) {
  auto f = FencedCodeBlocks("a\n```cuda\nint x;\n```\nb\n~~~\ny\n~~~\n```cpp\nz\n");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], "int x;\n");
  EXPECT_EQ(f[1], "y\n");
  EXPECT_EQ(f[2], "z\n");
}

TEST(ApplyBlockRewrite, BlocksOnlyInOneFence) {
  const std::string answer =
      "SUMMARY: double the chunks and fuse the launch check\n"
      "```cuda\n"
      "// EVOLVE-BLOCK-START\n"
      "namespace {\n"
      "constexpr int kChunks = 8;  // cuco:knob chunks\n"
      "__global__ void Scale(float* x, int n) { for (int i = threadIdx.x; i < n; i += blockDim.x) x[i] *= 2.0f; }\n"
      "}  // namespace\n"
      "// EVOLVE-BLOCK-END\n"
      "\n"
      "// EVOLVE-BLOCK-START\n"
      "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void*, const cuco::IO& io) {\n"
      "  Scale<<<1, 1024, 0, ctx.stream>>>(static_cast<float*>(io.out(\"X\").ptr), 1 << 14);\n"
      "  CUCO_CHECK_LAUNCH();\n"
      "  return cuco::Status::Ok();\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n"
      "```\n";
  auto out = ApplyBlockRewrite(kSeed, answer);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
  EXPECT_NE(out->find("kChunks = 8"), std::string::npos);
  EXPECT_NE(out->find("static int frozen_helper() { return 1; }\n"), std::string::npos);
  auto split = SplitEvolveBlocks(*out, "x");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->blocks[1].body.substr(0, 18), "cuco::Status cuco_");
}

TEST(ApplyBlockRewrite, OneFencePerBlockWithProseBetween) {
  const std::string answer =
      "First block:\n```cpp\n// EVOLVE-BLOCK-START\nint a = 1;\n// EVOLVE-BLOCK-END\n```\n"
      "Second block:\n```cpp\n// EVOLVE-BLOCK-START\nint b = 2;\n// EVOLVE-BLOCK-END\n```\n";
  auto out = ApplyBlockRewrite(kSeed, answer);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto split = SplitEvolveBlocks(*out, "x");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->blocks[0].body, "int a = 1;\n");
  EXPECT_EQ(split->blocks[1].body, "int b = 2;\n");
}

TEST(ApplyBlockRewrite, FrozenTextCopiedBetweenBlocksIsIgnored) {
  // Blocks with the frozen text between them reproduced (but not the file's head): blocks mode.
  const std::string answer =
      "```cpp\n// EVOLVE-BLOCK-START\nint a = 1;\n// EVOLVE-BLOCK-END\n\n"
      "static int frozen_helper() { return 1; }\n\n"
      "// EVOLVE-BLOCK-START\nint b = 2;\n// EVOLVE-BLOCK-END\n```\n";
  auto out = ApplyBlockRewrite(kSeed, answer);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
  auto split = SplitEvolveBlocks(*out, "x");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(split->blocks[1].body, "int b = 2;\n");
}

TEST(ApplyBlockRewrite, UnfencedBlocksIgnoreProse) {
  const std::string answer =
      "Summary: trivial\n// EVOLVE-BLOCK-START\nint a = 1;\n// EVOLVE-BLOCK-END\nthen\n"
      "// EVOLVE-BLOCK-START\nint b = 2;\n// EVOLVE-BLOCK-END\nDone.\n";
  auto out = ApplyBlockRewrite(kSeed, answer);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", *out, "cand").ok());
}

TEST(ApplyBlockRewrite, WholeFileMustKeepFrozenText) {
  std::string whole = Replaced(kSeed, "x[i] *= 2.0f", "x[i] += x[i]");
  auto ok = ApplyBlockRewrite(kSeed, "SUMMARY: add\n```cuda\n" + whole + "```\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(*ok, whole);

  std::string bad = Replaced(whole, "#include <nccl.h>\n", "#include <nccl.h>\n#include <nvshmem.h>\n");
  auto refused = ApplyBlockRewrite(kSeed, "```cuda\n" + bad + "```\n", "seed.cu");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("changes frozen code"), std::string::npos) << refused.status().message();
  EXPECT_NE(refused.status().message().find("answer:3: frozen code differs from the seed (seed.cu:3)"),
            std::string::npos)
      << refused.status().message();
}

TEST(ApplyBlockRewrite, WrongBlockCountAndUnbalancedMarkers) {
  auto one = ApplyBlockRewrite(kSeed, "```\n// EVOLVE-BLOCK-START\nint a;\n// EVOLVE-BLOCK-END\n```\n");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("the answer gives 1 EVOLVE block, the file has 2"), std::string::npos);

  auto unbalanced = ApplyBlockRewrite(kSeed, "```\n// EVOLVE-BLOCK-START\nint a;\n// EVOLVE-BLOCK-START\n```\n");
  ASSERT_FALSE(unbalanced.ok());
  EXPECT_NE(unbalanced.status().message().find("unbalanced"), std::string::npos);
  EXPECT_NE(unbalanced.status().message().find("nested EVOLVE-BLOCK-START"), std::string::npos);

  auto unclosed = ApplyBlockRewrite(kSeed, "```\n// EVOLVE-BLOCK-START\nint a;\n");  // cut off
  ASSERT_FALSE(unclosed.ok());
  EXPECT_NE(unclosed.status().message().find("never closed"), std::string::npos);

  auto none = ApplyBlockRewrite(kSeed, "```\nint a;\n```\n");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no EVOLVE-BLOCK-START / EVOLVE-BLOCK-END marker lines"), std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Whole answers.

TEST(ApplyLlmAnswer, DiffAnswer) {
  const std::string answer =
      "**Summary:** widen the grid to cover all SMs\n\n"
      "```\n<<<<<<< SEARCH\n  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n=======\n"
      "  Scale<<<132, 256, 0, ctx.stream>>>(x, 1 << 14);\n>>>>>>> REPLACE\n```\n";
  auto out = ApplyLlmAnswer(kSeed, kSeed, answer);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->format, "diff");
  EXPECT_EQ(out->edits, 1);
  EXPECT_EQ(out->description, "widen the grid to cover all SMs");
  EXPECT_EQ(out->code, Replaced(kSeed, "<<<64,", "<<<132,"));
}

TEST(ApplyLlmAnswer, DiffAgainstAParentThatIsNotTheSeed) {
  std::string parent = Replaced(kSeed, "x[i] *= 2.0f", "x[i] *= 2.5f");
  auto out = ApplyLlmAnswer(kSeed, parent, "<<<<<<< SEARCH\n  if (i < n) x[i] *= 2.5f;\n=======\n  if (i < n) x[i] *= 3.5f;\n>>>>>>> REPLACE\n");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->code.find("3.5f"), std::string::npos);
}

TEST(ApplyLlmAnswer, RewriteAnswer) {
  auto out = ApplyLlmAnswer(kSeed, kSeed,
                            "SUMMARY: minimal\n```\n// EVOLVE-BLOCK-START\nint a;\n// EVOLVE-BLOCK-END\n"
                            "// EVOLVE-BLOCK-START\nint b;\n// EVOLVE-BLOCK-END\n```\n");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->format, "rewrite");
  EXPECT_EQ(out->edits, 2);
  EXPECT_EQ(out->description, "minimal");
}

TEST(ApplyLlmAnswer, MalformedAnswersAreErrorsNeverCrashes) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the answer is empty"},
      {"  \n\n\t\n", "the answer is empty"},
      {"I think you should use NVSHMEM.", "neither SEARCH/REPLACE diffs nor EVOLVE-BLOCK"},
      {"```cuda\n__global__ void k() {}\n```\n", "its code has no EVOLVE-BLOCK marker lines"},
      {"<<<<<<< SEARCH\n  return cuco::Status::Ok();\n=======\n  return cuco::Status::Ok();\n>>>>>>> REPLACE\n",
       "the answer changes nothing"},
      {"<<<<<<< SEARCH\n#include <nccl.h>\n=======\n#include <nccl_device.h>\n>>>>>>> REPLACE\n",
       "edit outside the EVOLVE blocks"},
      {"<<<<<<< SEARCH\nint nothing_like_this;\n=======\nint y;\n>>>>>>> REPLACE\n", "not in the parent"},
      {"<<<<<<< SEARCH\n  CUCO_CHECK_LAUNCH();\n=======\n", "was the answer cut off?"},
      {"```\n// EVOLVE-BLOCK-END\nint a;\n```\n", "unbalanced"},
      {">>>>>>> REPLACE\n<<<<<<< SEARCH\n", "without a `<<<<<<< SEARCH`"},
      {"\x01\x02\xff\xfe<<<<<<<\n=======\n", "neither SEARCH/REPLACE diffs"},
  };
  for (const auto& [answer, expect] : cases) {
    auto out = ApplyLlmAnswer(kSeed, kSeed, answer);
    ASSERT_FALSE(out.ok()) << "answer: " << answer;
    EXPECT_NE(out.status().message().find(expect), std::string::npos)
        << "answer: " << answer << "\nmessage: " << out.status().message();
  }
}

TEST(ApplyLlmAnswer, EveryTruncationAndRandomNoiseIsHandled) {
  const std::string answer =
      "SUMMARY: two edits and a rewrite marker in prose (EVOLVE-BLOCK-START)\n"
      "```\n<<<<<<< SEARCH\n  Scale<<<64, 256, 0, ctx.stream>>>(x, 1 << 14);\n=======\n"
      "  Scale<<<132, 256, 0, ctx.stream>>>(x, 1 << 14);\n>>>>>>> REPLACE\n```\n"
      "```\n// EVOLVE-BLOCK-START\nint a;\n// EVOLVE-BLOCK-END\n// EVOLVE-BLOCK-START\nint b;\n// EVOLVE-BLOCK-END\n```\n";
  // An answer cut off anywhere (max_tokens) either applies or fails with a message.
  for (size_t n = 0; n <= answer.size(); ++n) {
    auto out = ApplyLlmAnswer(kSeed, kSeed, answer.substr(0, n));
    if (out.ok()) EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", out->code, "cand").ok());
    else EXPECT_FALSE(out.status().message().empty());
  }
  // Random splices of marker lines, code lines and noise.
  const std::vector<std::string> pieces = {"<<<<<<< SEARCH\n", "=======\n", ">>>>>>> REPLACE\n", "```\n",
                                           "// EVOLVE-BLOCK-START\n", "// EVOLVE-BLOCK-END\n", "}\n",
                                           "  CUCO_CHECK_LAUNCH();\n", "#include <nccl.h>\n", "\n", "\t \r\n",
                                           "static int frozen_helper() { return 1; }\n", "\xff\xfe\n"};
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 3000; ++trial) {
    std::string a;
    const int n = static_cast<int>(rng() % 14);
    for (int i = 0; i < n; ++i) a += pieces[rng() % pieces.size()];
    auto out = ApplyLlmAnswer(kSeed, kSeed, a);
    if (out.ok()) EXPECT_TRUE(CheckFrozenCode(kSeed, "seed", out->code, "cand").ok()) << a;
    else EXPECT_FALSE(out.status().message().empty()) << a;
  }
}

TEST(ApplyLlmAnswer, RealSeedDiffFromAModel) {
  auto seed = ReadFile(std::filesystem::path(CUCO_SOURCE_DIR) / "workloads" / "gemm_reducescatter" / "seed.cu");
  ASSERT_TRUE(seed.ok());
  auto split = SplitEvolveBlocks(*seed, "seed.cu");
  ASSERT_TRUE(split.ok());
  // Two lines of the real block that occur once in the file: one at column 0, one indented.
  auto count = [&](const std::string& line) {
    size_t n = 0;
    for (size_t p = seed->find(line + "\n"); p != std::string::npos; p = seed->find(line + "\n", p + 1))
      n += (p == 0 || (*seed)[p - 1] == '\n');
    return n;
  };
  std::string flat, indented;
  std::istringstream body(split->blocks[0].body);
  for (std::string line; std::getline(body, line);) {
    if (line.size() < 20 || line.find("EVOLVE") != std::string::npos || count(line) != 1) continue;
    if (flat.empty() && line[0] != ' ') flat = line;
    if (indented.empty() && line.rfind("  ", 0) == 0 && line[2] != ' ') indented = line;
  }
  ASSERT_FALSE(flat.empty());
  ASSERT_FALSE(indented.empty());
  const std::string stripped = indented.substr(2);
  // What a model typically sends: a summary, a rationale, two fenced diffs, one with the
  // indentation lost.
  const std::string answer =
      "SUMMARY: annotate two lines\n\nThe comments document the design.\n\n"
      "```cpp\n<<<<<<< SEARCH\n" + flat + "\n=======\n// first note\n" + flat + "\n>>>>>>> REPLACE\n```\n\n"
      "```cpp\n<<<<<<< SEARCH\n" + stripped + "\n=======\n// second note\n" + stripped + "\n>>>>>>> REPLACE\n```\n";
  auto out = ApplyLlmAnswer(*seed, *seed, answer, "seed.cu");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->edits, 2);
  EXPECT_EQ(out->description, "annotate two lines");
  EXPECT_NE(out->code.find("// first note\n" + flat + "\n"), std::string::npos);
  EXPECT_NE(out->code.find("  // second note\n" + indented + "\n"), std::string::npos) << out->code;
  EXPECT_TRUE(CheckFrozenCode(*seed, "seed.cu", out->code, "cand").ok());

  // The same model trying to add an include above the block.
  auto bad = ApplyLlmAnswer(*seed, *seed,
                            "<<<<<<< SEARCH\n#include <nccl_device.h>\n=======\n#include <nccl_device.h>\n"
                            "#include <nvshmem.h>\n>>>>>>> REPLACE\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("edit outside the EVOLVE blocks"), std::string::npos) << bad.status().message();
}

TEST(AnswerSummary, Forms) {
  EXPECT_EQ(AnswerSummary("SUMMARY: fuse the GEMM epilogue with the scatter\nmore"),
            "fuse the GEMM epilogue with the scatter");
  EXPECT_EQ(AnswerSummary("## Summary:\nUse LSA stores.\n"), "Use LSA stores.");
  EXPECT_EQ(AnswerSummary("```\ncode\n```\nI changed the chunk size.\n"), "I changed the chunk size.");
  EXPECT_EQ(AnswerSummary("Description of the change follows.\n"), "Description of the change follows.");
  EXPECT_EQ(AnswerSummary(""), "");
  EXPECT_EQ(AnswerSummary("Summary: " + std::string(500, 'x')).size(), 240u);
}

}  // namespace
}  // namespace cuco
