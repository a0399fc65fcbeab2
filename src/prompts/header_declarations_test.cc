#include "prompts/header_declarations.h"
#include "util/testutil.h"

#include <gtest/gtest.h>

#include <string>

namespace cuco {
using testutil::Has;
namespace {

const char* kHeader = R"(/* Copyright header
 * spanning lines */
#ifndef _MY_H_
#define _MY_H_
#include <stdint.h>
#define MY_API_VERSION 3
#define MY_CHECK(x) do { if (!(x)) abort(); } while (0)
#define MY_LONG_VALUE { sizeof(int), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 }
#define _MY_PRIVATE 1

// Allocates n bytes.
int myAlloc(void** ptr,
            size_t n);
int pmyAlloc(void** ptr, size_t n);

typedef enum { myOk = 0,
  myBad = 1 } myResult_t;

struct myPoint {
  int x, y;  // coordinates
  int norm() const { return x * x + y * y; }
};

class myBox {
  int hidden_;
 public:
  // Makes a box.
  myBox(int w) : w_(w), h_(w) {}
  int area() const;
 private:
  int w_, h_;
};

template<typename T>
struct myHolder_internal;

namespace detail {
int helper();
}

namespace my {
inline int twice(int v) {
  if (v > 0) { return 2 * v; }
  return 0;
}
struct Opt { int a = 1; int b[4] = {1, 2, 3, 4}; };
}

NCCL_DEVICE_INLINE void* myPeer(int peer, const char* s = "}{;");
static_assert(sizeof(int) == 4, "int");
int _myPrivate();
#endif
)";

TEST(ExtractDeclarations, KeepsPrototypesAndPublicMembers) {
  const std::string out = ExtractDeclarations(kHeader);
  EXPECT_TRUE(Has(out, "#define MY_API_VERSION 3\n")) << out;
  EXPECT_TRUE(Has(out, "#define MY_CHECK(x)\n")) << out;
  EXPECT_FALSE(Has(out, "MY_LONG_VALUE")) << out;
  EXPECT_FALSE(Has(out, "_MY_H_")) << out;
  EXPECT_FALSE(Has(out, "_MY_PRIVATE")) << out;
  EXPECT_TRUE(Has(out, "int myAlloc(void** ptr, size_t n);\n")) << out;
  EXPECT_FALSE(Has(out, "pmyAlloc")) << out;
  EXPECT_TRUE(Has(out, "typedef enum { myOk = 0, myBad = 1 } myResult_t;\n")) << out;
  EXPECT_TRUE(Has(out, "struct myPoint {\n  int x, y;\n  int norm() const;\n};\n")) << out;
  EXPECT_TRUE(Has(out, "class myBox {\n  myBox(int w);\n  int area() const;\n};\n")) << out;
  EXPECT_FALSE(Has(out, "hidden_")) << out;
  EXPECT_FALSE(Has(out, "w_")) << out;
  EXPECT_FALSE(Has(out, "_internal")) << out;
  EXPECT_FALSE(Has(out, "helper")) << out;
  EXPECT_TRUE(Has(out, "namespace my {\n  inline int twice(int v);\n  struct Opt {\n    int a = 1;\n    int b[4] = {...};\n  };\n}\n"))
      << out;
  EXPECT_TRUE(Has(out, "__device__ void* myPeer(int peer, const char* s = \"}{;\");\n")) << out;
  EXPECT_FALSE(Has(out, "static_assert")) << out;
  EXPECT_FALSE(Has(out, "_myPrivate")) << out;
  EXPECT_FALSE(Has(out, "Copyright")) << out;
  EXPECT_FALSE(Has(out, "Allocates")) << out;  // comments only when asked
}

TEST(ExtractDeclarations, CommentsWhenAsked) {
  DeclarationOptions o;
  o.keep_comments = true;
  const std::string out = ExtractDeclarations(kHeader, o);
  EXPECT_TRUE(Has(out, "// Allocates n bytes.\nint myAlloc(void** ptr, size_t n);\n")) << out;
  EXPECT_TRUE(Has(out, "  int x, y;  // coordinates\n")) << out;
  EXPECT_TRUE(Has(out, "  // Makes a box.\n  myBox(int w);\n")) << out;
  EXPECT_FALSE(Has(out, "Copyright")) << out;
}

TEST(ExtractDeclarations, FiltersAndCap) {
  DeclarationOptions skip;
  skip.skip_names = {"Alloc", "myBox"};
  const std::string s = ExtractDeclarations(kHeader, skip);
  EXPECT_FALSE(Has(s, "myAlloc")) << s;
  EXPECT_FALSE(Has(s, "area")) << s;
  EXPECT_TRUE(Has(s, "struct myPoint")) << s;

  DeclarationOptions only;
  only.only_names = {"myPoint"};
  const std::string o = ExtractDeclarations(kHeader, only);
  EXPECT_TRUE(Has(o, "struct myPoint {\n  int x, y;\n")) << o;
  EXPECT_FALSE(Has(o, "myAlloc")) << o;

  DeclarationOptions cap;
  cap.max_chars = 120;
  const std::string c = ExtractDeclarations(kHeader, cap);
  EXPECT_LE(c.size(), 120u + 40u);
  EXPECT_TRUE(Has(c, "more lines cut)\n")) << c;
}

TEST(ExtractDeclarations, NeverFailsOnGarbage) {
  for (const std::string& junk : {std::string(""), std::string("}}}{{{;;;(((\n#define\n"), std::string("struct {"),
                                 std::string("/* unterminated"), std::string("\"unterminated string\n{"),
                                 std::string(1000, '{'), std::string("int f(int a = ((1)"), std::string("\0\xff", 2)}) {
    std::string out = ExtractDeclarations(junk);
    EXPECT_LE(out.size(), junk.size() + 64) << out;
  }
}

}  // namespace
}  // namespace cuco
