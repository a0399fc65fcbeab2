#include "workload/deny_list.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "util/source_text.h"

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
  EXPECT_EQ(Tokens("namespace cuco_frozen { extern float* ref; }"), (std::vector<std::string>{"cuco_frozen", "namespace cuco_frozen"}));
  EXPECT_EQ(Tokens("std::thread t(work);"), (std::vector<std::string>{"thread"}));
  EXPECT_EQ(Tokens("asm volatile(\"mov.u64 %0, %%globaltimer;\" : \"=l\"(t));"), (std::vector<std::string>{"asm", "globaltimer"}));
  EXPECT_EQ(Tokens("#define G(a,b) a##b"), (std::vector<std::string>{"##"}));
  EXPECT_EQ(Tokens("#include <fstream>"), (std::vector<std::string>{"#include", "fstream"}));
  EXPECT_EQ(Tokens("__attribute__((constructor)) static void f() {}"), (std::vector<std::string>{"__attribute__((constructor))"}));
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
  const std::string masked = BlankCommentsAndLiteralContents(text);
  ASSERT_EQ(masked.size(), text.size());
  EXPECT_EQ(masked, "f(\"   \", ' ');      \n         k(0x1'000);\n");
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

// Scanner evasion (issue 15, class 4): each of these hid a denied name from the raw-text scan.
TEST(DenyListEvasion, SplicedNamesAndDirectives) {
  EXPECT_EQ(Tokens("int v = get\\\nenv(\"X\") != 0;"), (std::vector<std::string>{"getenv"}));
  EXPECT_EQ(Tokens("#\\\ninclude <fstream>"), (std::vector<std::string>{"#include", "fstream"}));
}

TEST(DenyListEvasion, DigraphsAndDirectiveSpacing) {
  EXPECT_EQ(Tokens("%:include <cstdlib>"), (std::vector<std::string>{"#include"}));
  EXPECT_EQ(Tokens("#  include <cstdlib>"), (std::vector<std::string>{"#include"}));
  EXPECT_EQ(Tokens("/* x */ # /* y */ undef X"), (std::vector<std::string>{"#undef"}));
  EXPECT_EQ(Tokens("#define P(a, b) a %:%: b"), (std::vector<std::string>{"##"}));
  EXPECT_EQ(Tokens("#line 1 \"seed.cu\""), (std::vector<std::string>{"#line"}));
  EXPECT_EQ(Tokens("# 1 \"seed.cu\""), (std::vector<std::string>{"#1"}));
  EXPECT_EQ(Tokens("#pragma push_macro(\"X\")"), (std::vector<std::string>{"#pragma push_macro"}));
  EXPECT_EQ(Tokens("#pragma GCC poison x"), (std::vector<std::string>{"#pragma GCC"}));
  EXPECT_EQ(Tokens("_Pragma(\"GCC visibility push(default)\")"), (std::vector<std::string>{"_Pragma"}));
  EXPECT_EQ(Tokens("#error no"), (std::vector<std::string>{"#error"}));
  EXPECT_TRUE(Tokens("#define N 4\n#if N > 2\n#pragma unroll\n#elif 1\n#else\n#endif\n#ifdef N\n#endif\n#ifndef M\n#endif")
                  .empty());
}

TEST(DenyListEvasion, LiteralsThatFlippedQuoteTracking) {
  EXPECT_EQ(Tokens("auto s = R\"(\")\"; int v = getenv(\"X\") != 0;"), (std::vector<std::string>{"getenv"}));
  EXPECT_EQ(Tokens("auto c = u8'\"'; int v = getenv(\"X\") != 0; auto d = '\"';"),
            (std::vector<std::string>{"getenv"}));
  EXPECT_EQ(Tokens("auto s = R\"d()\")d\"; int v = getenv(\"X\") != 0;"), (std::vector<std::string>{"getenv"}));
}

TEST(DenyListEvasion, AsmAndBuiltins) {
  EXPECT_EQ(Tokens("asm(\"syscall\");"), (std::vector<std::string>{"asm"}));
  EXPECT_EQ(Tokens("__asm__ __volatile__(\"nop\");"), (std::vector<std::string>{"__asm__"}));
  EXPECT_EQ(Tokens("int f() __asm(\"write\");"), (std::vector<std::string>{"__asm"}));
  EXPECT_EQ(Tokens("auto t = __builtin_ia32_rdtsc();"), (std::vector<std::string>{"__builtin_ia32_rdtsc"}));
  EXPECT_EQ(Tokens("auto t = __builtin_readcyclecounter();"), (std::vector<std::string>{"__builtin_readcyclecounter"}));
  EXPECT_EQ(Tokens("write(1, p, n); writev(1, v, 2); mprotect(p, n, 0);"),
            (std::vector<std::string>{"mprotect", "write", "writev"}));
  EXPECT_EQ(Tokens("sigsetjmp(b, 1);"), (std::vector<std::string>{"sigsetjmp"}));
  EXPECT_TRUE(Tokens("bool write = true, read = false; io.write(x);").empty());
  EXPECT_EQ(Tokens("const char* p = \"/pr\" \"oc/self/environ\";"), (std::vector<std::string>{"/proc/"}));
  EXPECT_EQ(Tokens("const char* p = \"\\x2fproc/self/mem\";"), (std::vector<std::string>{"/proc/"}));
}

TEST(DenyListEvasion, LoadTimeAndRenamingAttributes) {
  EXPECT_EQ(Tokens("[[gnu::constructor]] static void f() {}"), (std::vector<std::string>{"[[constructor]]", "constructor"}));
  EXPECT_EQ(Tokens("[[using gnu: destructor]] static void f() {}"), (std::vector<std::string>{"[[destructor]]", "destructor"}));
  EXPECT_EQ(Tokens("[[__gnu__::__section__(\".init_array\")]] void* p = 0;"),
            (std::vector<std::string>{"[[__section__]]"}));
  EXPECT_EQ(Tokens("void g() __attribute__((weak, alias(\"f\")));"),
            (std::vector<std::string>{"__attribute__((alias))", "__attribute__((weak))"}));
  EXPECT_EQ(Tokens("__attribute__((__used__, visibility(\"default\"))) int x;"),
            (std::vector<std::string>{"__attribute__((__used__))", "__attribute__((visibility))"}));
  EXPECT_EQ(Tokens("int y __attribute__((cleanup(done)));"), (std::vector<std::string>{"__attribute__((cleanup))"}));
  EXPECT_EQ(Tokens("struct S { S(); }; static S s __attribute__((init_priority(101)));"),
            (std::vector<std::string>{"__attribute__((init_priority))"}));
  EXPECT_TRUE(Tokens("[[maybe_unused]] int a; __attribute__((aligned(16))) int b; [[nodiscard]] int f();").empty());
}

TEST(DenyListEvasion, ForeignNamespacesAndCLinkage) {
  EXPECT_EQ(Tokens("namespace std { int x; }"), (std::vector<std::string>{"namespace std"}));
  EXPECT_EQ(Tokens("namespace std::chrono { int x; }"), (std::vector<std::string>{"chrono", "namespace std"}));
  EXPECT_EQ(Tokens("namespace __gnu_cxx { int x; }"), (std::vector<std::string>{"namespace __gnu_cxx"}));
  EXPECT_EQ(Tokens("extern \"C\" long write(int, const void*, unsigned long) { return 0; }"),
            (std::vector<std::string>{"extern \"C\"", "write"}));
  EXPECT_EQ(Tokens("extern \"C\" { int ncclAllReduce(); }"), (std::vector<std::string>{"extern \"C\""}));
  EXPECT_TRUE(Tokens("using namespace std; namespace { int a; } namespace mine { int b; } extern \"C++\" int c;")
                  .empty());
}

TEST(DenyListEvasion, DirectivesThatReachFrozenCode) {
  // An #if left open in one block swallows the frozen code up to the next block's #endif.
  const std::string text =
      "// EVOLVE-BLOCK-START\n#if 0\n// EVOLVE-BLOCK-END\nint check() { return 1; }\n"
      "// EVOLVE-BLOCK-START\n#endif\n// EVOLVE-BLOCK-END\n";
  auto hits = ScanEvolveBlocks(text, "c.cu");
  ASSERT_TRUE(hits.ok());
  std::vector<std::string> t;
  for (const auto& h : *hits) t.push_back(h.token + "@" + std::to_string(h.line));
  EXPECT_EQ(t, (std::vector<std::string>{"#if@2", "#endif@6"}));
  // A comment, raw string or splice left open at the end of a block swallows the frozen code too.
  auto spans = [](const std::string& open, const std::string& close) {
    const std::string t = "// EVOLVE-BLOCK-START\nint a;\n" + open + "\n// EVOLVE-BLOCK-END\nint check() { return 1; }\n" +
                          "// EVOLVE-BLOCK-START\n" + close + "\n// EVOLVE-BLOCK-END\n";
    auto h = ScanEvolveBlocks(t, "c.cu");
    std::vector<std::string> v;
    for (const auto& x : *h) v.push_back(x.category + "@" + std::to_string(x.line));
    return v;
  };
  EXPECT_EQ(spans("/*", "*/"), (std::vector<std::string>{"a comment or literal that spans frozen code@3"}));
  EXPECT_EQ(spans("auto s = R\"x(", ")x\";"), (std::vector<std::string>{"a comment or literal that spans frozen code@3",
                                                                   "a comment or literal that spans frozen code@7"}));
  EXPECT_EQ(spans("int b = 0; // \\", ""), (std::vector<std::string>{"a line splice into frozen code@3"}));
  // A macro that the frozen code after the block uses.
  EXPECT_EQ(Tokens("#define main() fake_main()"), (std::vector<std::string>{"#define main", "main"}));
}

// The preprocessed scan: macros are expanded and each token is mapped back to its line.
class DenyListPreprocessed : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("g++ --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "g++ not found";
    dir_ = std::filesystem::temp_directory_path() / ("cuco-deny-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "evil.h") << "#define NICE(x) get##env(x)\n#define QUIET 0\n";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  Status Check(const std::string& text, std::vector<std::string> extra_argv = {}) {
    std::string path = (dir_ / "cand.cc").string();
    std::ofstream(path) << text;
    std::vector<std::string> argv = {"g++", "-std=c++20", "-I" + dir_.string()};
    argv.insert(argv.end(), extra_argv.begin(), extra_argv.end());
    argv.insert(argv.end(), {"-E", path});
    return CheckDenyListPreprocessed(text, path, argv, 60);
  }
  std::filesystem::path dir_;
};

TEST_F(DenyListPreprocessed, MacroExpansionsAreScannedAtTheInvocationLine) {
  const std::string text = "#include \"evil.h\"\n#include <cstdlib>\n// EVOLVE-BLOCK-START\nint f() {\n"
                           "  return NICE(\"X\") != nullptr;\n}\n// EVOLVE-BLOCK-END\n";
  EXPECT_TRUE(CheckDenyList(text, "cand.cc").ok());  // the raw scan cannot see it
  Status s = Check(text);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cand.cc:5: uses 'getenv' (environment access)"), std::string::npos) << s.message();
}

TEST_F(DenyListPreprocessed, FrozenCodeAndDeadCodeAreNotScanned) {
  const std::string text = "#include <cstdlib>\nconst char* frozen() { return getenv(\"HOME\"); }\n"
                           "// EVOLVE-BLOCK-START\n#if 0\nint x = getenv(\"X\") != 0;\n#endif\n"
                           "#pragma unroll\nint ok() { return 1; }\n// EVOLVE-BLOCK-END\n";
  EXPECT_FALSE(CheckDenyList(text, "cand.cc").ok());  // the raw scan sees the dead getenv
  Status s = Check(text);
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST_F(DenyListPreprocessed, PragmaOperatorAndAsmThroughMacros) {
  const std::string text = "#define DO_ASM(x) asm(x)\n#define PR(x) _Pragma(#x)\n// EVOLVE-BLOCK-START\n"
                           "void f() { DO_ASM(\"nop\"); }\n// EVOLVE-BLOCK-END\n";
  Status s = Check(text);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(":4: uses 'asm'"), std::string::npos) << s.message();
}

TEST_F(DenyListPreprocessed, MissingCompilerFallsBackToTheRawScan) {
  const std::string text = "// EVOLVE-BLOCK-START\nint v = get\\\nenv(\"X\") != 0;\n// EVOLVE-BLOCK-END\n";
  Status s = CheckDenyListPreprocessed(text, "cand.cc", {"/nonexistent/cuco-no-compiler", "-E", "cand.cc"}, 10);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cand.cc:2: uses 'getenv'"), std::string::npos) << s.message();
}

TEST(DenyListPreprocessedCuda, HostAndDevicePassesAreBothScanned) {
  const char* nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "nvcc not found at " << nvcc;
  auto dir = std::filesystem::temp_directory_path() / ("cuco-deny-cu-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "cand.cu").string();
  auto check = [&](const std::string& text) {
    std::ofstream(path) << text;
    return CheckDenyListPreprocessed(
        text, path, {nvcc, "-std=c++20", "-gencode=arch=compute_90a,code=sm_90a", "-E", path}, 120);
  };
  const std::string host_only = "#include <cstdlib>\n#define H(x) get##env(x)\n// EVOLVE-BLOCK-START\n"
                                "#ifndef __CUDA_ARCH__\nint v = H(\"X\") != 0;\n#endif\n// EVOLVE-BLOCK-END\n";
  Status s = check(host_only);
  EXPECT_NE(s.message().find("cand.cu:5: uses 'getenv'"), std::string::npos) << s.message();
  const std::string device_only = "#define C() clock64()\n// EVOLVE-BLOCK-START\n__global__ void k(long long* t) {\n"
                                  "#ifdef __CUDA_ARCH__\n  *t = C();\n#endif\n}\n// EVOLVE-BLOCK-END\n";
  s = check(device_only);
  EXPECT_NE(s.message().find("cand.cu:5: uses 'clock64'"), std::string::npos) << s.message();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

}  // namespace
}  // namespace cuco
