#include "util/toml_guard.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

TEST(TomlGuard, UndefinedCodePointsFollowTomlppsTable) {
  EXPECT_FALSE(TomlppWhitespaceUndefined(U'a'));
  EXPECT_FALSE(TomlppWhitespaceUndefined(0xA0));    // no-break space: whitespace
  EXPECT_TRUE(TomlppWhitespaceUndefined(0xB5));     // µ
  EXPECT_TRUE(TomlppWhitespaceUndefined(0x485));    // found by fuzz_run_config
  EXPECT_FALSE(TomlppWhitespaceUndefined(0x2014));  // em dash: chunk 7 has its case
  EXPECT_FALSE(TomlppWhitespaceUndefined(0x3000));
  EXPECT_TRUE(TomlppWhitespaceUndefined(0x3001));
  EXPECT_TRUE(TomlppWhitespaceUndefined(0xFCFF));   // found by fuzz_workload
  EXPECT_FALSE(TomlppWhitespaceUndefined(0xFEFF));
  EXPECT_FALSE(TomlppWhitespaceUndefined(0x1F600));
}

TEST(TomlGuard, AllowsCommentsOnly) {
  EXPECT_TRUE(CheckTomlForParser("a = 1  # 3 \xc2\xb5s \xc3\x97 2\nc = \"\xe2\x80\x94\"\n# \xc2\xb5\n", "w.toml").ok());
  EXPECT_TRUE(CheckTomlForParser("a = \"x \\\" #\" # \xc2\xb5\nb = '''\n#'''  # \xc2\xb5\n", "w.toml").ok());
  Status in_string = CheckTomlForParser("a = 1\nb = \"3 \xc2\xb5s\"\n", "w.toml");
  ASSERT_FALSE(in_string.ok());
  EXPECT_NE(in_string.message().find("w.toml:2:"), std::string::npos) << in_string.message();
  EXPECT_NE(in_string.message().find("U+00B5"), std::string::npos) << in_string.message();
  EXPECT_NE(in_string.message().find("\\u00B5"), std::string::npos) << in_string.message();
  EXPECT_FALSE(CheckTomlForParser("Came =+\"*x\xcf\xb2\x33\x34", "w.toml").ok());  // found by fuzz_workload
  EXPECT_FALSE(CheckTomlForParser("a = \"\"\"#\\  \xc2\xb5\"\"\"\n", "w.toml").ok());  // after a backslash
  EXPECT_FALSE(CheckTomlForParser("a = 2\xc2\xb5\n", "w.toml").ok());
  EXPECT_FALSE(CheckTomlForParser("b = \"x # \xc2\xb5\"\n", "w.toml").ok());  // a '#' in a string starts no comment
  // found by fuzz_run_config in CI: a quoted key holding a '#', then the code point after it
  EXPECT_FALSE(CheckTomlForParser("\"'# kk evolve\t\tkeom =ve\tba\"\xc2\xb5\"\"\"\" ", "w.toml").ok());
  EXPECT_FALSE(CheckTomlForParser("a = '#'\xc2\xb5\n", "w.toml").ok());
  EXPECT_FALSE(CheckTomlForParser("a = x#\xc2\xb5\n", "w.toml").ok());  // '#' glued to a bare word
  EXPECT_FALSE(CheckTomlForParser("a = \"\"\"\n# \\\"\"\" \xc2\xb5\"\"\"\n", "w.toml").ok());
}

}  // namespace
}  // namespace cuco
