#include "scaffold/program_files.h"

#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "scaffold/scaffold.h"
#include "util/files.h"

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

class ProgramFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("cuco_program_files_" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  std::string P(const std::string& rel) const { return (root_ / rel).string(); }
  fs::path root_;
};

// NCCL's examples: main.cc in examples/<x>/c/, a shared utils.cc in examples/common/src/ and its
// header in examples/common/include/ (named by -I../../common/include). Both come in, keeping their
// place relative to main with `..` spelled `_up`, and the header's folder flag names the copy.
TEST_F(ProgramFilesTest, SourcesAndIncludeFoldersOutsideMainsFolder) {
  Write("ex/ring/c/main.cc", "#include \"utils.h\"\n#include \"local.h\"\nint main() { return run(); }\n");
  Write("ex/ring/c/local.h", "#pragma once\n");
  Write("ex/common/src/utils.cc", "#include <utils.h>\n#include \"../include/detail.h\"\nint run() { return 0; }\n");
  Write("ex/common/include/utils.h", "#pragma once\n#include \"nccl_utils.h\"\nint run();\n");
  Write("ex/common/include/nccl_utils.h", "#pragma once\n");
  Write("ex/common/include/detail.h", "#pragma once\n");
  Write("ex/common/include/unused.h", "#pragma once\n");
  Result<std::vector<ProgramFile>> files =
      CollectProgramFiles(P("ex/ring/c/main.cc"), {P("ex/common/src/utils.cc")}, {P("ex/common/include")});
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::vector<std::string> names, sources;
  for (const ProgramFile& f : *files) (f.source ? sources : names).push_back(f.name);
  EXPECT_EQ(sources, (std::vector<std::string>{"_up/_up/common/src/utils.cc"}));
  EXPECT_EQ(names, (std::vector<std::string>{"_up/_up/common/include/utils.h", "local.h",
                                             "_up/_up/common/include/detail.h", "_up/_up/common/include/nccl_utils.h"}));
  const std::set<std::string> own = {P("ex/common/include")};
  EXPECT_EQ(OwnIncludeFlag("-I" + P("ex/common/include"), P("ex/ring/c"), own), "-I_up/_up/common/include");
  EXPECT_EQ(OwnIncludeFlag("-I/usr/local/cuda/include", P("ex/ring/c"), own), "-I/usr/local/cuda/include");
  EXPECT_EQ(OwnIncludeFlag("-DX=1", P("ex/ring/c"), own), "-DX=1");
  // nvcc rejects -isystem and -include joined to their value (CMake's MPI folder came so).
  EXPECT_EQ(OwnIncludeFlag("-isystem/usr/include/mpi", P("ex/ring/c"), own), "-isystem=/usr/include/mpi");
  EXPECT_EQ(OwnIncludeFlag("-isystem" + P("ex/common/include"), P("ex/ring/c"), own), "-isystem=_up/_up/common/include");
  EXPECT_EQ(OwnIncludeFlag("-include/usr/include/x.h", P("ex/ring/c"), own), "-include=/usr/include/x.h");
  EXPECT_EQ(WorkloadName(P("ex/ring/c/include/a.h"), P("ex/ring/c")), "include/a.h");
}

// A CG solver's src/main/cg_solver_mgpu.cu beside its library's src/solvers/cg_solver_mgpu.cu: two
// sources of one file name, which cuco would take for one, are refused naming both; one given twice
// is one.
TEST_F(ProgramFilesTest, TwoSourcesOfOneFileNameAreRefused) {
  Write("src/main/cg.cu", "int main() { return 0; }\n");
  Write("src/solvers/cg.cu", "void solve() {}\n");
  Result<std::vector<ProgramFile>> files = CollectProgramFiles(P("src/main/cg.cu"), {P("src/solvers/cg.cu")});
  ASSERT_FALSE(files.ok());
  EXPECT_NE(files.status().message().find("src/solvers/cg.cu: named like "), std::string::npos) << files.status().message();
  EXPECT_NE(files.status().message().find("src/main/cg.cu (cg.cu)"), std::string::npos) << files.status().message();
  EXPECT_TRUE(CollectProgramFiles(P("src/main/cg.cu"), {P("src/main/cg.cu")}).ok());
}

// RodTol/HPC_part_2's main.c does `#include "gpu_computation.cu"` (under -DGPU) and its build also
// names that file: given as a source, it is main's header (compiled in main's unit), not a second
// definition of its functions in the harness's one unit. A source no file includes stays one.
TEST_F(ProgramFilesTest, ASourceAnotherFileIncludesIsItsHeader) {
  Write("mm/main.c", "#ifdef GPU\n#include \"gpu_computation.cu\"\n#endif\nint main() { return 0; }\n");
  Write("mm/gpu_computation.cu", "void initialise_cuda() {}\n");
  Write("mm/util.c", "void print() {}\n");
  Result<std::vector<ProgramFile>> files = CollectProgramFiles(P("mm/main.c"), {P("mm/gpu_computation.cu"), P("mm/util.c")});
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::map<std::string, bool> source;
  for (const ProgramFile& f : *files) source[f.name] = f.source;
  ASSERT_EQ(source.size(), 2u);
  EXPECT_FALSE(source["gpu_computation.cu"]);
  EXPECT_TRUE(source["util.c"]);
}

// afanasyev-ilya/AIComm: src/tensor_parallel/row_wise.cu includes "../common.cuh" by its own path.
// The copy is _up/common.cuh; the files at the workload's top name it so, and a copy's include of
// another copy keeps its spelling where the two keep their places.
TEST_F(ProgramFilesTest, IncludesThroughDotDotNameTheCopies) {
  Write("src/tp/row_wise.cu", "#include \"../common.cuh\"\n#include \"local.h\"\nint main() { return 0; }\n");
  Write("src/tp/local.h", "#pragma once\n");
  Write("src/common.cuh", "#pragma once\n#include \"util/log.h\"\n#include \"../top.h\"\n");
  Write("src/util/log.h", "#pragma once\n");
  Write("top.h", "#pragma once\n");
  Result<std::vector<ProgramFile>> files = CollectProgramFiles(P("src/tp/row_wise.cu"), {});
  ASSERT_TRUE(files.ok()) << files.status().message();
  std::map<std::string, std::string> by_name;
  for (const ProgramFile& f : *files) by_name[f.name] = f.text;
  ASSERT_EQ(by_name.count("_up/common.cuh"), 1u);
  ASSERT_EQ(by_name.count("_up/util/log.h"), 1u);
  ASSERT_EQ(by_name.count("_up/_up/top.h"), 1u);
  EXPECT_EQ(by_name["_up/common.cuh"], "#pragma once\n#include \"util/log.h\"\n#include \"_up/top.h\"\n");  // ../top.h is _up/_up/top.h
  const std::string main_text = "#include \"../common.cuh\"\n#include \"local.h\"\n// #include \"../missing.h\"\nint main() {}\n";
  EXPECT_EQ(WithWorkloadIncludes(main_text, P("src/tp/row_wise.cu"), "seed.cu", P("src/tp")),
            "#include \"_up/common.cuh\"\n#include \"local.h\"\n// #include \"../missing.h\"\nint main() {}\n");
}

// TensorParallelPTX builds src/main.cu from the repository's root with -I., and includes
// "src/app/cli.h": the -I folder is above main's, where the workload holds no folder of that name.
// Such an include names the copy (`app/cli.h`, beside seed.cu); one the folder beside it resolves,
// or no -I folder, stays as written.
TEST_F(ProgramFilesTest, IncludesThroughAnIncludeFolderAboveMainsNameTheCopies) {
  Write("src/main.cu", "#include \"src/app/cli.h\"\n#include \"local.h\"\n#include \"src/none.h\"\nint main() {}\n");
  Write("src/app/cli.h", "#pragma once\n");
  Write("src/app/cli.cu", "#include \"src/app/cli.h\"\n");
  Write("src/local.h", "#pragma once\n");
  const std::vector<std::string> dirs = {P("")};
  EXPECT_EQ(WithWorkloadIncludes(*ReadFile(P("src/main.cu")), P("src/main.cu"), "seed.cu", P("src"), dirs),
            "#include \"app/cli.h\"\n#include \"local.h\"\n#include \"src/none.h\"\nint main() {}\n");
  EXPECT_EQ(WithWorkloadIncludes(*ReadFile(P("src/app/cli.cu")), P("src/app/cli.cu"), "app/cli.cu", P("src"), dirs),
            "#include \"cli.h\"\n");
  EXPECT_EQ(WithWorkloadIncludes(*ReadFile(P("src/main.cu")), P("src/main.cu"), "seed.cu", P("src")),
            *ReadFile(P("src/main.cu")));
}

// A source file of another folder is pasted into seed.cu (one unit at the workload's root): its
// `#include "argparse.h"` of the header beside it names the copy from the root; an include of a file
// that is not the program's, or absolute, stays as written.
TEST(ProgramFilesUnit, ASourcesIncludesBesideItAreSpelledFromTheRoot) {
  const std::set<std::string> files = {"_up/util/argparse.c", "_up/util/argparse.h", "_up/common/log.h"};
  const std::string text = "#include \"argparse.h\"\n#include \"../common/log.h\"\n#include \"nccl.h\"\n#include <stdio.h>\n"
                           "#include \"/abs/x.h\"\n";
  EXPECT_EQ(IncludesFromUnitRoot(text, "_up/util/argparse.c", files),
            "#include \"_up/util/argparse.h\"\n#include \"_up/common/log.h\"\n#include \"nccl.h\"\n#include <stdio.h>\n"
            "#include \"/abs/x.h\"\n");
  EXPECT_EQ(IncludesFromUnitRoot(text, "helpers.cu", files), text) << "a source at the root resolves as before";
}

// Every NCCL example's main.cc sits in a folder called c/: each gets a workload of its own.
TEST_F(ProgramFilesTest, ProgramsInFoldersOfOneNameGetDistinctNames) {
  const std::string a = DefaultWorkloadName(P("ex/03_collectives/01_allreduce/c/main.cc"));
  const std::string b = DefaultWorkloadName(P("ex/05_symmetric_memory/01_allreduce/c/main.cc"));
  EXPECT_EQ(a.rfind("01_allreduce_c_", 0), 0u) << a;
  EXPECT_NE(a, b);
  // Two programs whose main sits in csrc/ (a role, as src/ is): each named for the folder above it.
  const std::string st = DefaultWorkloadName(P("tut/st_md/csrc/main.cpp")), mt = DefaultWorkloadName(P("tut/mt_md/csrc/main.cpp"));
  EXPECT_EQ(st.rfind("st_md_csrc_", 0), 0u) << st;
  EXPECT_EQ(mt.rfind("mt_md_csrc_", 0), 0u) << mt;
  EXPECT_EQ(DefaultWorkloadName(P("progs/tp_mlp/main.cu")), "tp_mlp");  // a folder named for the program
  EXPECT_EQ(DefaultWorkloadName(P("x/jacobi.cpp")), "jacobi");
}

}  // namespace
}  // namespace cuco::scaffold_internal
