#include "workload/knob_marks.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

const char* kFile =
    "#include <x>\n"
    "// EVOLVE-BLOCK-START\n"
    "constexpr int kChunks = 4;  // cuco:knob chunks\n"
    "constexpr const char* kStrategy = \"ring\";  // cuco:knob strategy\n"
    "constexpr bool kFlag = false;// cuco:knob flag\n"
    "int body() { return kChunks; }\n"
    "// EVOLVE-BLOCK-END\n";

std::vector<Knob> Declared() {
  return {Knob{"chunks", {"1", "2", "4", "8"}, "4", ""}, Knob{"strategy", {"ring", "sequential"}, "ring", ""},
          Knob{"flag", {"false", "true"}, "false", ""}};
}

TEST(KnobMarksTest, FindsMarksWithValuesAndLines) {
  auto marks = FindKnobMarks(kFile, "g.cu");
  ASSERT_TRUE(marks.ok()) << marks.status().ToString();
  ASSERT_EQ(marks->size(), 3u);
  EXPECT_EQ((*marks)[0].name, "chunks");
  EXPECT_EQ((*marks)[0].value, "4");
  EXPECT_EQ((*marks)[0].line, 3);
  EXPECT_EQ((*marks)[1].value, "ring");
  EXPECT_TRUE((*marks)[1].quoted);
  EXPECT_EQ((*marks)[2].value, "false");
  EXPECT_TRUE(CheckKnobMarks(kFile, "g.cu", Declared()).ok());
}

TEST(KnobMarksTest, AppliesOnlyTheValues) {
  auto out = ApplyKnobs(kFile, "g.cu", {{"chunks", "8"}, {"strategy", "sequential"}}, Declared());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_NE(out->find("constexpr int kChunks = 8;  // cuco:knob chunks\n"), std::string::npos);
  EXPECT_NE(out->find("kStrategy = \"sequential\";  // cuco:knob strategy\n"), std::string::npos);
  EXPECT_NE(out->find("kFlag = false;// cuco:knob flag\n"), std::string::npos);
  // Everything else is unchanged, byte for byte.
  auto back = ApplyKnobs(*out, "g.cu", {{"chunks", "4"}, {"strategy", "ring"}}, Declared());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, kFile);
}

TEST(KnobMarksTest, RejectsUndeclaredValuesAndUnknownKnobs) {
  auto bad = ApplyKnobs(kFile, "g.cu", {{"chunks", "3"}}, Declared());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("chunks"), std::string::npos);
  auto unknown = ApplyKnobs(kFile, "g.cu", {{"nope", "1"}}, Declared());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("nope"), std::string::npos);
}

TEST(KnobMarksTest, MarkOutsideBlocksOrMalformedNamesTheLine) {
  const std::string outside = std::string("constexpr int kX = 1;  // cuco:knob x\n") + kFile;
  auto a = FindKnobMarks(outside, "g.cu");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("g.cu:1"), std::string::npos);
  const std::string malformed = "// EVOLVE-BLOCK-START\nint x;  // cuco:knob x\n// EVOLVE-BLOCK-END\n";
  auto b = FindKnobMarks(malformed, "m.cu");
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("m.cu:2"), std::string::npos);
}

TEST(KnobMarksTest, MissingDeclaredKnobIsAnError) {
  std::vector<Knob> d = Declared();
  d.push_back(Knob{"ctas", {"8", "16"}, "8", ""});
  Status s = CheckKnobMarks(kFile, "g.cu", d);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("ctas"), std::string::npos);
}

}  // namespace
}  // namespace cuco
