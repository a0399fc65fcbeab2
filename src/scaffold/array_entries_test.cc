#include "scaffold/array_entries.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

ProgramDefaults NoArguments(const std::string& code) { return DefaultsOf(code, {}, {}); }

// Per-layer weights and activations: each entry a buffer, the length evaluated before the loop.
TEST(ArrayEntries, EachEntryOfALocalArray) {
  const std::string code = "const int L = 3;\nfloat* w[L];\nfloat* act[L + 1];\nf(w[l], act[l], act[l + 1]);\n";
  std::string why;
  std::optional<ArrayEntries> e = EntriesOf("act", code, NoArguments(code), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->length, "L + 1");
  EXPECT_EQ(e->entries, (std::vector<std::string>{"act[0]", "act[1]", "act[2]", "act[3]"}));
  EXPECT_TRUE(why.empty());
}

// A struct per layer (`layers[l].w`) and a member array (`pool.buffers[b]`): the subscript goes where
// the program writes it.
TEST(ArrayEntries, AStructPerLayerAndAMemberArray) {
  const std::string layers = "struct Layer { float* w; };\nconst int L = 2;\nstd::vector<Layer> layers(L);\ng(layers[l].w);\n";
  std::string why;
  std::optional<ArrayEntries> e = EntriesOf("layers.w", layers, NoArguments(layers), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->entries, (std::vector<std::string>{"layers[0].w", "layers[1].w"}));
  const std::string pool = "struct Pool { float* buffers[2]; };\nPool pool;\nh(pool.buffers[0], pool.buffers[1]);\n";
  e = EntriesOf("pool.buffers", pool, NoArguments(pool), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->array, "pool.buffers");
  EXPECT_EQ(e->entries, (std::vector<std::string>{"pool.buffers[0]", "pool.buffers[1]"}));
}

// A pointer (never subscripted, or subscripted but declared no array) is no array; an array whose
// length is unknown, too long, or that is subscripted twice has no entries, and *why says so.
TEST(ArrayEntries, PointersAndArraysThatCannotBeBound) {
  std::string why;
  EXPECT_FALSE(EntriesOf("x", "float* x;\nf(x);\n", NoArguments(""), 16, &why).has_value());
  EXPECT_FALSE(EntriesOf("x", "float* x;\nf(x[3]);\n", NoArguments(""), 16, &why).has_value());
  const std::string unknown = "float** w = make();\nf(w[l]);\n";
  std::optional<ArrayEntries> e = EntriesOf("w", unknown, NoArguments(unknown), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->entries.empty());
  EXPECT_NE(why.find("its length not found"), std::string::npos) << why;
  const std::string many = "float* w[64];\nf(w[l]);\n";
  e = EntriesOf("w", many, NoArguments(many), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->entries.empty());
  EXPECT_NE(why.find("`64` = 64"), std::string::npos) << why;
  const std::string twice = "struct S { float* b[2]; };\nS s[2];\nf(s[i].b[j]);\n";
  e = EntriesOf("s.b", twice, NoArguments(twice), 16, &why);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(e->entries.empty());
  EXPECT_NE(why.find("subscripted twice"), std::string::npos) << why;
}

TEST(ArrayEntries, LengthOfAnyElementType) {
  EXPECT_EQ(ArrayLength("Layer layers[4];", "layers"), "4");
  EXPECT_EQ(ArrayLength("std::vector<Layer> layers(n_layers);", "layers"), "n_layers");
  EXPECT_EQ(ArrayLength("std::array<Stage, 3> stages;", "stages"), "3");
  EXPECT_EQ(ArrayLength("float* w[L];", "w"), "L");
  EXPECT_EQ(ArrayLength("return layers[i];", "layers"), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
