#include "scaffold/untyped_buffers.h"

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

TEST(UntypedBuffers, OneFloatingTypeNamedByEveryCollectiveIsTheType) {
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclFloat"}), "float");
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclFloat", "ncclFloat32"}), "float");
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclBfloat16"}), "__nv_bfloat16");
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclHalf"}), "__half");
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclFloat", "ncclHalf"}), "");  // two types: bytes stay bytes
  EXPECT_EQ(FloatTypeOfDatatypes({"ncclInt32"}), "");              // integers keep the program's values
  EXPECT_EQ(FloatTypeOfDatatypes({"type"}), "");                   // a variable: not known
  EXPECT_EQ(FloatTypeOfDatatypes({}), "");
}

TEST(UntypedBuffers, ADatatypeVariableGivenOneConstantIsThatConstant) {
  const std::string code =
      "ncclDataType_t dtype = ncclBfloat16;\nstruct Args { ncclDataType_t type; };\nArgs a{};\na.type = ncclFloat;\n"
      "ncclDataType_t mixed = ncclFloat;\nif (half) mixed = ncclHalf;\n";
  EXPECT_EQ(DatatypeValue(code, "ncclInt8"), "ncclInt8");
  EXPECT_EQ(DatatypeValue(code, "dtype"), "ncclBfloat16");
  EXPECT_EQ(DatatypeValue(code, "args->type"), "ncclFloat");  // a member: its name's assignments
  EXPECT_EQ(DatatypeValue(code, "mixed"), "mixed");           // two values: not known
  EXPECT_EQ(DatatypeValue(code, "unset"), "unset");
}

TEST(UntypedBuffers, BytePointersAndTheirArraysAreUntyped) {
  const std::string code =
      "struct threadArgs {\n  size_t nbytes;\n  void** sendbuffs;\n  float** typed;\n};\n"
      "void *sendbuff, *recvbuff;\nchar* staging;\nstd::vector<void*> per_peer(4);\nfloat* grid;\n"
      "void run(const char* label, float* x);\n";
  EXPECT_TRUE(DeclaredUntyped(code, "args->sendbuffs[0]"));
  EXPECT_TRUE(DeclaredUntyped(code, "sendbuff"));
  EXPECT_TRUE(DeclaredUntyped(code, "recvbuff"));  // the second declarator of one declaration
  EXPECT_TRUE(DeclaredUntyped(code, "staging"));
  EXPECT_TRUE(DeclaredUntyped(code, "per_peer[1]"));
  EXPECT_FALSE(DeclaredUntyped(code, "grid"));
  EXPECT_FALSE(DeclaredUntyped(code, "args->typed[0]"));
  EXPECT_FALSE(DeclaredUntyped(code, "x"));  // after a byte parameter, past its declaration
  // A helper's untyped parameter of the name main declares typed: typed.
  EXPECT_FALSE(DeclaredUntyped("void run(const void* A, void* C);\n__nv_bfloat16 *A = nullptr, *C = nullptr;\n", "C"));
}

// An output's declared precision (moe_ep_mpi's `half *dX=nullptr,*dY=nullptr` with its communication
// in bytes): init's tolerance is the least precise of it and the collectives' datatype.
TEST(UntypedBuffers, AFloatingPointersDeclaredTypeIsFound) {
  const std::string code =
      "half *dX=nullptr,*dY=nullptr,*dWgate=nullptr;\nstd::vector<__nv_bfloat16*> acts(4);\nfloat* grid;\n"
      "double* both;\nfloat* both_too;\nvoid* bytes;\nvoid run(float* both);\n";
  EXPECT_EQ(DeclaredFloatType(code, "dY"), "__half");  // the second declarator, `half` as __half
  EXPECT_EQ(DeclaredFloatType(code, "acts[1]"), "__nv_bfloat16");
  EXPECT_EQ(DeclaredFloatType(code, "grid"), "float");
  EXPECT_EQ(DeclaredFloatType(code, "both"), "");  // double and float: not known
  EXPECT_EQ(DeclaredFloatType(code, "bytes"), "");
  EXPECT_EQ(DeclaredFloatType(code, "undeclared"), "");
}

}  // namespace
}  // namespace cuco::scaffold_internal
