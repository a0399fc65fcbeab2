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

TEST(PointerArrays, MemberArraysAndTheirLength) {
  // nccl-tests' layout: the thread's argument struct holds the process's per-GPU arrays.
  const std::string nccl_tests =
      "struct threadArgs { int nGpus; void** sendbuffs; void** recvbuffs; };\n"
      "std::vector<void*> sendbuffs(nGpus * nThreads);\nstd::vector<void*> recvbuffs(nGpus * nThreads);\n"
      "threads[t].args.recvbuffs = recvbuffs.data() + t * nGpus;\n";
  std::optional<MemberPointerArray> m = MemberPointerArrayOf("args->recvbuffs", nccl_tests);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->field, "recvbuffs");
  EXPECT_EQ(m->length, "nGpus * nThreads");
  // A member's own extent; one declared and assigned from an array of another length: none known.
  m = MemberPointerArrayOf("pool.buffers", "struct Pool { float* buffers[2]; };");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->length, "2");
  m = MemberPointerArrayOf("a.bufs", "struct A { float** bufs; }; float* mine[1]; float* two[2]; a.bufs = mine; b.bufs = two;");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->length, "");
  m = MemberPointerArrayOf("s.parts", "struct S { std::vector<half*> parts; }; s.parts.resize(n);");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->length, "n");
  // A pointer member, a bare name, a pointer-array parameter: no member array.
  EXPECT_FALSE(MemberPointerArrayOf("b.recv", "struct Bufs { float* send; float* recv; };").has_value());
  EXPECT_FALSE(MemberPointerArrayOf("bufs", "float** bufs;").has_value());
  EXPECT_FALSE(MemberPointerArrayOf("c.recv", "struct C { float* recv; }; void f(float** recv);").has_value());
}

}  // namespace
}  // namespace cuco::scaffold_internal
