#include "workload/deny_list.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

std::string Wrap(const std::string& body) {
  return "#include <cstdio>\n// EVOLVE-BLOCK-START\n" + body + "\n// EVOLVE-BLOCK-END\nint main() { return 0; }\n";
}

std::vector<std::string> Tokens(const std::string& body) {
  auto hits = ScanEvolveBlocks(Wrap(body), "c.cu");
  EXPECT_TRUE(hits.ok());
  std::vector<std::string> t;
  for (const auto& h : *hits) t.push_back(h.token);
  return t;
}

TEST(DenyList, CatchesEachCategory) {
  EXPECT_EQ(Tokens("FILE* f = fopen(\"m.json\", \"w\");"), (std::vector<std::string>{"fopen"}));
  EXPECT_EQ(Tokens("const char* e = getenv(\"X\");"), (std::vector<std::string>{"getenv"}));
  EXPECT_EQ(Tokens("if (x) exit(0);"), (std::vector<std::string>{"exit"}));
  EXPECT_EQ(Tokens("cudaEventRecord(ev, s);"), (std::vector<std::string>{"cudaEventRecord"}));
  EXPECT_EQ(Tokens("cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);"),
            (std::vector<std::string>{"cudaStreamCreateWithFlags"}));
  EXPECT_EQ(Tokens("extern float* cuco_frozen_reference;"), std::vector<std::string>{});  // whole-word only
  EXPECT_EQ(Tokens("namespace cuco_frozen { extern float* ref; }"), (std::vector<std::string>{"cuco_frozen"}));
  EXPECT_EQ(Tokens("std::thread t(work);"), (std::vector<std::string>{"thread"}));
  EXPECT_EQ(Tokens("asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));"), (std::vector<std::string>{"globaltimer"}));
  EXPECT_EQ(Tokens("#define G(a,b) a##b"), (std::vector<std::string>{"##"}));
  EXPECT_EQ(Tokens("#include <fstream>"), (std::vector<std::string>{"#include", "fstream"}));
  EXPECT_EQ(Tokens("__attribute__((constructor)) static void f() {}"), (std::vector<std::string>{"constructor"}));
}

TEST(DenyList, IgnoresCommentsStringsMembersAndPlainWords) {
  EXPECT_TRUE(Tokens("// we never call exit() or getenv here\nint a = 0; /* fopen */").empty());
  EXPECT_TRUE(Tokens("printf(\"time taken: exit code\\n\");").empty());
  EXPECT_TRUE(Tokens("s.time = 3; p->open = 1;").empty());
  EXPECT_TRUE(Tokens("int signal = 0; float time = 1.f; bool thread = true;").empty());
  EXPECT_TRUE(Tokens("cudaStreamWaitEvent(a, b, 0); cudaStreamWaitValue32(a, p, 1, 0);").empty());
  EXPECT_TRUE(Tokens("auto v = 0x1'000;").empty());
}

TEST(DenyList, OnlyBlocksAreScannedAndLinesAreRight) {
  // The frozen main() outside the block is not a hit; the hit is on line 4.
  std::string text = Wrap("int ok = 1;\nint bad = clock64();");
  auto hits = ScanEvolveBlocks(text, "c.cu");
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].line, 4);
  Status s = CheckDenyList(text, "c.cu");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "c.cu:4: uses 'clock64' (timing and event APIs), which candidates may not use inside EVOLVE blocks");
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(MaskCommentsAndLiterals, BlanksCommentsAndLiteralContentsKeepingOffsets) {
  const std::string text = "f(\"a(b\", 'c'); // g(\n/* h( */ k(0x1'000);\n";
  const std::string masked = MaskCommentsAndLiterals(text);
  ASSERT_EQ(masked.size(), text.size());
  EXPECT_EQ(masked, "f(\"   \", ' ');      \n         k(0x1'000);\n");
}

}  // namespace
}  // namespace cuco
