#include "evaluate/runtime_knobs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "launch/subprocess.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// What `cuco transform` writes at the top of a program's first EVOLVE block (codesign.h).
const char* kCandidate =
    "#include <cuco/program/candidate.h>\n"
    "// EVOLVE-BLOCK-START\n"
    "constexpr const char* kCucoBackend = \"nccl\";  // cuco:knob backend\n"
    "constexpr const char* kCucoGraph = \"off\";     // cuco:knob graph\n"
    "static constexpr const char* kCucoChunks = \"4\";  // cuco:knob chunks\n"
    "// EVOLVE-BLOCK-END\n";

TEST(RuntimeKnobs, ValuesLeaveTheCodeLineForLine) {
  auto k = SplitRuntimeKnobs(kCandidate);
  ASSERT_TRUE(k.has_value());
  EXPECT_EQ(k->values, (std::vector<std::string>{"nccl", "off", "4"}));
  const auto before = SplitLines(kCandidate), after = SplitLines(k->code);
  ASSERT_EQ(after.size(), before.size());
  EXPECT_EQ(after[2], "const char* const kCucoBackend = ::cuco_program::knob_value(0);  // cuco:knob backend");
  EXPECT_EQ(after[4], "static const char* const kCucoChunks = ::cuco_program::knob_value(2);  // cuco:knob chunks");
  EXPECT_EQ(after[0], before[0]);
  EXPECT_EQ(k->code.find("\"nccl\""), std::string::npos);
  // Two settings of the knobs are one knob-free code.
  std::string other = kCandidate;
  other.replace(other.find("\"nccl\""), 6, "\"lsa\"");
  auto k2 = SplitRuntimeKnobs(other);
  ASSERT_TRUE(k2.has_value());
  EXPECT_EQ(k2->code, k->code);
  EXPECT_EQ(k2->values[0], "lsa");
}

TEST(RuntimeKnobs, OnlyProgramCandidatesWithStringKnobsOfThatFormSplit) {
  const std::string c = kCandidate;
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = c;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  EXPECT_FALSE(SplitRuntimeKnobs(replaced("#include <cuco/program/candidate.h>", "#include <cuco/harness.h>")))
      << "not a program candidate: knob_value is not declared";
  EXPECT_FALSE(SplitRuntimeKnobs(replaced("constexpr const char* kCucoGraph = \"off\";", "constexpr int kCucoGraph = 0;")))
      << "an int knob may be a template argument";
  EXPECT_FALSE(SplitRuntimeKnobs(replaced("\"off\"", "\"o\\\"ff\""))) << "a value outside the allowed characters";
  EXPECT_FALSE(SplitRuntimeKnobs(replaced("\"off\"", "\"a b\"")));
  EXPECT_FALSE(SplitRuntimeKnobs(replaced("// EVOLVE-BLOCK-END", "// a cuco:knob in a comment\n// EVOLVE-BLOCK-END")));
  EXPECT_FALSE(SplitRuntimeKnobs("#include <cuco/program/candidate.h>\nint main() {}\n")) << "no knob";
}

// Where a knob line is not a declaration of its own, the code could tell the erased text from the
// candidate's (a string made of it), so it is compiled whole.
TEST(RuntimeKnobs, AKnobLineTheCodeCouldReadAsTextIsNotSplit) {
  const std::string c = kCandidate;
  auto around = [&](const std::string& before, const std::string& after) {
    std::string s = c;
    const size_t line = s.find("constexpr const char* kCucoGraph");
    s.insert(s.find('\n', line) + 1, after);
    s.insert(line, before);
    return s;
  };
  EXPECT_FALSE(SplitRuntimeKnobs(around("const char* cuco_text = STR(\n", ")\n"))) << "a macro's argument";
  EXPECT_FALSE(SplitRuntimeKnobs(around("#define CUCO_KNOBS \\\n", ""))) << "a #define's body";
  EXPECT_FALSE(SplitRuntimeKnobs(around("#define CUCO_KNOBS \\\r\n", ""))) << "spliced, CRLF";
  EXPECT_FALSE(SplitRuntimeKnobs(around("const char* cuco_text = R\"x(\n", ")x\";\n"))) << "a raw string";
  EXPECT_TRUE(SplitRuntimeKnobs(around("void f() { g(1);\n", "}\n"))) << "a block: a declaration of its own";
}

TEST(RuntimeKnobs, LineEndingsAreKept) {
  std::string crlf;
  for (const std::string& l : SplitLines(kCandidate)) crlf += l + "\r\n";
  auto k = SplitRuntimeKnobs(crlf);
  ASSERT_TRUE(k.has_value());
  size_t crlfs = 0;
  for (size_t i = 0; (i = k->code.find("\r\n", i)) != std::string::npos; i += 2) ++crlfs;
  EXPECT_EQ(crlfs, SplitLines(kCandidate).size());
  EXPECT_NE(k->code.find("knob_value(0);  // cuco:knob backend\r\n"), std::string::npos) << k->code;
}

// The erased code and the unit of its values, compiled and linked by the host compiler, print the
// values the candidate wrote: the same program as the candidate.
TEST(RuntimeKnobs, ErasedCodeAndValuesUnitRunAsTheCandidate) {
  const fs::path dir = fs::temp_directory_path() / ("cuco_runtime_knobs_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  ASSERT_TRUE(MakeDirs(dir / "cuco" / "program").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "cuco" / "program" / "candidate.h",
                              "namespace cuco_program { const char* knob_value(int index); }\n").ok());
  std::string code = std::string(kCandidate) + "#include <cstdio>\nint main() { std::printf(\"%s %s %s\\n\", kCucoBackend, kCucoGraph, kCucoChunks); }\n";
  code.replace(code.find("\"nccl\""), 6, "\"lsa\"");
  auto k = SplitRuntimeKnobs(code);
  ASSERT_TRUE(k.has_value());
  ASSERT_TRUE(WriteFileAtomic(dir / "cand.cc", k->code).ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "values.cc", RuntimeKnobsUnit(k->values)).ok());
  auto built = RunCapture({"g++", "-I" + dir.string(), (dir / "cand.cc").string(), (dir / "values.cc").string(), "-o",
                           (dir / "cand").string()}, 120);
  ASSERT_TRUE(built.outcome.ok()) << built.output;
  auto ran = RunCapture({(dir / "cand").string()}, 30);
  EXPECT_EQ(ran.output, "lsa off 4\n");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco
