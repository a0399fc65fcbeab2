#include "analyze/c_as_cpp.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace cuco::analyze_internal {
namespace {

FileDiagnostic Error(const std::string& message, size_t b, size_t e) { return {message, {{b, e}}, {}, {}}; }

// The type of a cast edit: its `before` without "(" and ")(".
std::string CastType(const CppEdit& e) { return e.before.substr(1, e.before.size() - 3); }

TEST(CAsCpp, EachConversionCIsAskedForIsCastToItsTarget) {
  const std::vector<CppEdit> casts = EditsCppNeeds({
      Error("assigning to 'uint8_t *' (aka 'unsigned char *') from incompatible type 'void *'", 10, 20),
      Error("cannot initialize a variable of type 'ncclDataType_t' with an rvalue of type 'int'", 30, 31),
      Error("cannot initialize return object of type 'kind_t' with an lvalue of type 'int'", 40, 41),
      Error("use of undeclared identifier 'x'", 50, 51),                                        // no conversion
      Error("cannot initialize a variable of type 'int[3]' with an rvalue of type 'int *'", 60, 61),  // an array
      Error("assigning to 'enum (unnamed enum at a.c:3:1)' from incompatible type 'int'", 70, 71),
  });
  ASSERT_EQ(casts.size(), 3u);
  EXPECT_EQ(casts[0].before, "(uint8_t *)(");
  EXPECT_EQ(casts[0].after, ")");
  EXPECT_EQ(casts[0].begin, 10u);
  EXPECT_EQ(casts[0].end, 20u);
  EXPECT_EQ(CastType(casts[1]), "ncclDataType_t");
  EXPECT_EQ(CastType(casts[2]), "kind_t");
}

TEST(CAsCpp, AnArgumentIsCastOnlyWhereTheCallHasOneCandidateCCouldMean) {
  FileDiagnostic call = Error("no matching function for call to 'take'", 0, 4);
  call.notes.push_back(Error("candidate function not viable: cannot convert argument of incomplete type 'void *' to "
                             "'struct opt *' for 1st argument", 5, 14));
  std::vector<CppEdit> casts = EditsCppNeeds({call});
  ASSERT_EQ(casts.size(), 1u);
  EXPECT_EQ(CastType(casts[0]), "struct opt *");
  EXPECT_EQ(casts[0].begin, 5u);
  call.notes.push_back(Error("candidate function not viable: no known conversion from 'int' to 'float *' for 2nd "
                             "argument", 16, 17));  // an overload: which one C meant is not known
  EXPECT_TRUE(EditsCppNeeds({call}).empty());
  // A template beside the one function is C++'s own overload, which C never meant: cudaMalloc's.
  FileDiagnostic malloc_call = Error("no matching function for call to 'cudaMalloc'", 0, 10);
  malloc_call.notes.push_back(Error("candidate function not viable: no known conversion from 'void *' to 'void **' for "
                                    "1st argument; take the address of the argument with &", 11, 27));
  malloc_call.notes.push_back(Error("candidate template ignored: could not match 'T **' against 'void *'", 40, 50));
  casts = EditsCppNeeds({malloc_call});
  ASSERT_EQ(casts.size(), 1u);
  EXPECT_EQ(CastType(casts[0]), "void **");
  EXPECT_EQ(casts[0].begin, 11u);
  // Declared in a system header, the candidate's note carries no range: the argument is found in the call.
  const std::string text = "cudaMalloc((void *)&buf, n * sizeof(float));";
  FileDiagnostic in_header = Error("no matching function for call to 'cudaMalloc'", 0, 10);
  in_header.notes.push_back({"candidate function not viable: cannot convert argument of incomplete type 'void *' to "
                             "'void **' for 1st argument", {}, {}, {}});
  in_header.notes.push_back(Error("candidate template ignored: could not match 'T *' against 'void'", 40, 50));
  EXPECT_EQ(WithEdits(text, EditsCppNeeds({in_header}, text)), "cudaMalloc((void **)((void *)&buf), n * sizeof(float));");
  // Inside a check macro, clang places the call (and the note's range) at the macro's name.
  const std::string checked = "CHECK(cudaMalloc((void *)&buf, n * sizeof(float)));";
  FileDiagnostic in_macro = Error("no matching function for call to 'cudaMalloc'", 0, 0);
  in_macro.notes.push_back({"expanded from macro 'CHECK'", {}, {}, {}});
  in_macro.notes.push_back(Error("candidate function not viable: cannot convert argument of incomplete type 'void *' to "
                                 "'void **' for 1st argument", 0, 0));
  in_macro.notes.push_back(Error("candidate template ignored: could not match 'T *' against 'void'", 40, 50));
  EXPECT_EQ(WithEdits(checked, EditsCppNeeds({in_macro}, checked)),
            "CHECK(cudaMalloc((void **)((void *)&buf), n * sizeof(float)));");
}

// C's enumerator of an enum inside a struct is named through the struct, as clang offers; any other
// "did you mean" (a typo of another name) is not taken.
TEST(CAsCpp, AnEnumeratorOfAStructsEnumIsQualified) {
  FileDiagnostic e = Error("use of undeclared identifier 'OPTION_CHAR'; did you mean 'options::OPTION_CHAR'?", 8, 19);
  e.fixits.push_back({8, 19, "options::OPTION_CHAR"});
  std::vector<CppEdit> edits = EditsCppNeeds({e});
  ASSERT_EQ(edits.size(), 1u);
  EXPECT_EQ(edits[0].before, "options::");
  EXPECT_EQ(edits[0].after, "");
  FileDiagnostic typo = Error("use of undeclared identifier 'OPTON_CHAR'; did you mean 'options::OPTION_CHAR'?", 8, 18);
  typo.fixits.push_back({8, 18, "options::OPTION_CHAR"});
  EXPECT_TRUE(EditsCppNeeds({typo}).empty());
}

TEST(CAsCpp, EditsAreWrittenAroundTheirBytesAndOverlapsLeftOut) {
  const std::string text = "p = malloc(n);\nk = 1;\n";
  EXPECT_EQ(WithEdits(text, {{15 + 4, 15 + 5, "(kind_t)(", ")"}, {4, 13, "(char *)(", ")"}}),
            "p = (char *)(malloc(n));\nk = (kind_t)(1);\n");
  EXPECT_EQ(WithEdits(text, {{4, 13, "(char *)(", ")"}, {6, 12, "(int)(", ")"}}), "p = (char *)(malloc(n));\nk = 1;\n");
  EXPECT_EQ(WithEdits(text, {{4, 400, "(char *)(", ")"}}), text);  // out of the text
}

// The whole way, with libclang: a C source, edited, parses as C++ without an error.
TEST(CAsCpp, ACSourceBecomesCppThatClangTakes) {
  const std::string path = std::filesystem::temp_directory_path() / "cuco_c_as_cpp.c";
  const std::string text =
      "#include <stdlib.h>\n#include <stdint.h>\ntypedef enum { A, B } kind_t;\n"
      "struct opt { int x; enum { OPT_INT, OPT_CHAR } type; };\n"
      "static kind_t next(int v) { return v + 1; }\nvoid take(struct opt* o) { free(o); }\n"
      "int main(void) {\n  uint8_t *buf;\n  buf = malloc(10);\n  kind_t k = 1;\n  struct opt* o = malloc(sizeof *o);\n"
      "  take(malloc(sizeof *o));\n  int* a = calloc(3, sizeof(int)), *b = realloc(a, 8);\n  k = 0;\n"
      "  o->type = OPT_CHAR;\n  free(buf); free(o); free(b);\n  return (int)next(k);\n}\n";
  std::ofstream(path) << text;
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  const std::vector<FileDiagnostic> errors = ClangErrorsIn(path, text, o);
  if (errors.empty()) GTEST_SKIP() << "libclang did not load";
  const std::string cpp = WithEdits(text, EditsCppNeeds(errors));
  EXPECT_NE(cpp.find("buf = (uint8_t *)(malloc(10));"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("kind_t k = (kind_t)(1);"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("take((struct opt *)(malloc(sizeof *o)));"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("*b = (int *)(realloc(a, 8));"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("return (kind_t)(v + 1);"), std::string::npos) << cpp;
  EXPECT_NE(cpp.find("o->type = opt::OPT_CHAR;"), std::string::npos) << cpp;
  EXPECT_EQ(std::count(cpp.begin(), cpp.end(), '\n'), std::count(text.begin(), text.end(), '\n'));
  EXPECT_TRUE(ClangErrorsIn(path, cpp, o).empty());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace cuco::analyze_internal
