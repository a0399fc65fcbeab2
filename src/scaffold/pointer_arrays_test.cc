#include "scaffold/pointer_arrays.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

TEST(PointerArrays, DeclaredForms) {
  EXPECT_TRUE(IsPointerArray("float** sendbuff = (float**)malloc(n * sizeof(float*));", "sendbuff"));
  EXPECT_TRUE(IsPointerArray("float* bufs[4];", "bufs"));
  EXPECT_TRUE(IsPointerArray("std::vector<float*> d_x(n);", "d_x"));
  EXPECT_TRUE(IsPointerArray("std::array<half*, 8> parts;", "parts"));
  EXPECT_FALSE(IsPointerArray("float* x; float** other;", "x"));
  EXPECT_FALSE(IsPointerArray("std::vector<float> host(n);", "host"));
}

TEST(PointerArrays, LengthOfEachForm) {
  EXPECT_EQ(PointerArrayLength("float** s = (float**)malloc(nDev * sizeof(float*));", "s"), "nDev");
  EXPECT_EQ(PointerArrayLength("float** s = (float**)malloc(sizeof(float*) * nDev);", "s"), "nDev");
  EXPECT_EQ(PointerArrayLength("void** s = (void**)calloc(count, sizeof(void*));", "s"), "count");
  EXPECT_EQ(PointerArrayLength("float** s = new float*[ngpus];", "s"), "ngpus");
  EXPECT_EQ(PointerArrayLength("float* s[4];", "s"), "4");
  EXPECT_EQ(PointerArrayLength("std::vector<float*> s(num_gpus, nullptr);", "s"), "num_gpus");
  EXPECT_EQ(PointerArrayLength("std::vector<float*> s; s.resize(n);", "s"), "n");
  EXPECT_EQ(PointerArrayLength("std::array<float*, 2> s;", "s"), "2");
}

TEST(PointerArrays, NoLengthOrTwoThatDisagree) {
  EXPECT_EQ(PointerArrayLength("float** s = make_buffers();", "s"), "");
  EXPECT_EQ(PointerArrayLength("std::vector<float*> s(a); s.resize(b);", "s"), "");
  EXPECT_EQ(PointerArrayLength("float** t = (float**)malloc(n * sizeof(float*));", "s"), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
