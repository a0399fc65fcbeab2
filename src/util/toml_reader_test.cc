#include "util/toml_reader.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

toml::table Parse(const std::string& text) {
  Result<toml::table> t = ParseToml(text, "c.toml");
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : toml::table{};
}

const toml::table& Sub(const toml::table& root, const std::string& key) { return *root.get(key)->as_table(); }

TEST(TomlReader, ReadsTypedValuesAndKeepsDefaultsOfAbsentKeys) {
  toml::table root = Parse("[t]\ns = \"x\"\ni = 7\nf = 0.5\nb = true\na = [\"p\", \"q\"]\nk = \"beam\"\n[t.sub]\n");
  TomlReader r(Sub(root, "t"), "c.toml", "t");
  std::string s, k = "power_law", absent = "default";
  int i = 0;
  int64_t big = 3;
  double f = 0;
  bool b = false;
  std::vector<std::string> a;
  const toml::table* sub = nullptr;
  const toml::table* none = reinterpret_cast<const toml::table*>(&root);
  EXPECT_TRUE(r.String("s", &s).ok());
  EXPECT_TRUE(r.Integer("i", &i, 0, 10).ok());
  EXPECT_TRUE(r.Integer("missing_int", &big, 0).ok());
  EXPECT_TRUE(r.Number("f", &f, 0, 1).ok());
  EXPECT_TRUE(r.Bool("b", &b).ok());
  EXPECT_TRUE(r.StringArray("a", &a, {"p", "q"}).ok());
  EXPECT_TRUE(r.OneOf("k", &k, {"power_law", "beam"}).ok());
  EXPECT_TRUE(r.OneOf("absent", &absent, {"x"}).ok());
  EXPECT_TRUE(r.Table("sub", &sub).ok());
  EXPECT_TRUE(r.Table("nothing", &none).ok());
  EXPECT_TRUE(r.RejectUnknown().ok());
  EXPECT_EQ(s, "x");
  EXPECT_EQ(i, 7);
  EXPECT_EQ(big, 3);
  EXPECT_EQ(f, 0.5);
  EXPECT_TRUE(b);
  EXPECT_EQ(a, (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(k, "beam");
  EXPECT_EQ(absent, "default");
  EXPECT_NE(sub, nullptr);
  EXPECT_EQ(none, nullptr);
  EXPECT_EQ(r.Line("i"), 3);
  EXPECT_EQ(r.Line("nothing"), 1);
  EXPECT_EQ(r.Line(), 1);
}

// Each bad value: the message names file, line and the key with its prefix, in one form per kind.
TEST(TomlReader, ErrorsNameFileLineAndKey) {
  struct Case {
    std::string value, want;
  };
  const std::vector<Case> cases = {
      {"v = 1", "c.toml:2: 'p.v' must be a string"},
      {"n = -1", "c.toml:2: 'p.n' must be >= 0"},
      {"r = 11", "c.toml:2: 'p.r' must be in [1, 10]"},
      {"r = \"3\"", "c.toml:2: 'p.r' must be an integer"},
      {"big = 3000000000", "c.toml:2: 'p.big' must be in [0, 2147483647]"},
      {"x = 2.5", "c.toml:2: 'p.x' must be in [0, 1]"},
      {"x = \"a\"", "c.toml:2: 'p.x' must be a number"},
      {"y = inf", "c.toml:2: 'p.y' must be >= 0"},
      {"y = -0.5", "c.toml:2: 'p.y' must be >= 0"},
      {"b = 1", "c.toml:2: 'p.b' must be true or false"},
      {"o = \"z\"", "c.toml:2: 'p.o' must be one of: a, b (got 'z')"},
      {"l = \"a\"", "c.toml:2: 'p.l' must be an array of strings"},
      {"l = [\"a\", 2]", "c.toml:2: 'p.l' must hold only strings"},
      {"l = [\"a\", \"c\"]", "c.toml:2: 'p.l': 'c' is not one of: a, b"},
      {"t = 1", "c.toml:2: 'p.t' must be a table ([p.t])"},
      {"typo = 1", "c.toml:2: unknown key 'p.typo'"},
  };
  for (const Case& c : cases) {
    toml::table root = Parse("[p]\n" + c.value + "\n");
    TomlReader r(Sub(root, "p"), "c.toml", "p");
    std::string s = "a", o = "a";
    int n = 0, rr = 1, big = 0;
    double x = 0, y = 0;
    bool b = false;
    std::vector<std::string> l;
    const toml::table* t = nullptr;
    Status st = r.String("v", &s);
    if (st.ok()) st = r.Integer("n", &n, 0);
    if (st.ok()) st = r.Integer("r", &rr, 1, 10);
    if (st.ok()) st = r.Integer("big", &big, 0);
    if (st.ok()) st = r.Number("x", &x, 0, 1);
    if (st.ok()) st = r.Number("y", &y, 0);
    if (st.ok()) st = r.Bool("b", &b);
    if (st.ok()) st = r.OneOf("o", &o, {"a", "b"});
    if (st.ok()) st = r.StringArray("l", &l, {"a", "b"});
    if (st.ok()) st = r.Table("t", &t);
    if (st.ok()) st = r.RejectUnknown();
    ASSERT_FALSE(st.ok()) << c.value;
    EXPECT_EQ(st.message(), c.want) << c.value;
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
  }
}

TEST(TomlReader, RequireAndAllow) {
  toml::table root = Parse("a = 1\n\n[q]\nkept = 2\n");
  TomlReader q(Sub(root, "q"), "c.toml", "q");
  EXPECT_EQ(q.Require("need").message(), "c.toml:3: missing required key 'q.need'");
  EXPECT_TRUE(q.Require("kept").ok());
  EXPECT_EQ(q.RejectUnknown().message(), "c.toml:4: unknown key 'q.kept'");
  q.Allow("kept");
  EXPECT_TRUE(q.RejectUnknown().ok());
  TomlReader top(root, "c.toml");
  EXPECT_EQ(top.Key("a"), "a");
  EXPECT_EQ(top.Error(*root.get("a"), "bad").message(), "c.toml:1: bad");
  EXPECT_EQ(top.ErrorAtTable("whole").message(), "c.toml:1: whole");
}

TEST(TomlReader, ParseErrorsAndScalarText) {
  Result<toml::table> bad = ParseToml("a = 1\nb = = 2\n", "c.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("c.toml:2: ", 0), 0u) << bad.status().message();
  EXPECT_FALSE(ParseToml("a = \"3 \xc2\xb5s\"\n", "c.toml").ok());  // the toml_guard check runs first
  toml::table root = Parse("s = \"ring\"\ni = 32\nf = 0.5\nb = false\nt = {}\n");
  EXPECT_EQ(TomlScalarText(*root.get("s")), "ring");
  EXPECT_EQ(TomlScalarText(*root.get("i")), "32");
  EXPECT_EQ(TomlScalarText(*root.get("f")), "0.5");
  EXPECT_EQ(TomlScalarText(*root.get("b")), "false");
  EXPECT_EQ(TomlScalarText(*root.get("t")), "");
}

}  // namespace
}  // namespace cuco
