#include "scaffold/input_files.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace cuco::scaffold_internal {
namespace {

namespace fs = std::filesystem;

// A matrix given with --args by a path relative to where init ran (the CG solver's
// `matrix/example.mtx`): its absolute path is named. An option's `--file=rel` too; a word that is no
// file, an absolute path and a flag are not.
TEST(RelativeInputPaths, AnArgumentNamingAFileHereGetsItsAbsolutePath) {
  const fs::path dir = fs::temp_directory_path() / "cuco_input_files_test";
  fs::create_directories(dir / "matrix");
  std::ofstream(dir / "matrix" / "a.mtx") << "%%MatrixMarket\n";
  ProgramFacts f;
  f.file = "cg.cu";
  f.code = "int main(int argc, char** argv) { FILE* m = fopen(argv[1], \"r\"); }\n";
  f.program_args = {"matrix/a.mtx", "--mode=csr", "/etc/hostname", "--in=matrix/a.mtx", "4096"};
  const std::vector<std::string> todos = RelativeInputPaths(f, dir.string());
  ASSERT_EQ(todos.size(), 2u);
  EXPECT_EQ(todos[0], "--args gives `matrix/a.mtx`, a path relative to where cuco init ran: cuco runs the program in an "
                      "empty folder of each run, where it finds nothing; give `" + (dir / "matrix" / "a.mtx").string() + "`");
  fs::remove_all(dir);
}

// A program that opens files and spells a relative path outside its prints (a case folder's
// `std::string dir = "cases/case1";`, hn_moe_nccl): one TODO naming the line. A path in a print or an
// #include, or a program that opens nothing, says nothing.
TEST(RelativeInputPaths, ARelativePathOfAProgramThatOpensFiles) {
  ProgramFacts f;
  f.file = "moe.cu";
  f.code =
      "#include \"common/util.h\"\n"
      "static void read_bin(const std::string& p) { FILE* f = fopen(p.c_str(), \"rb\"); }\n"
      "int main() {\n"
      "  printf(\"usage: moe --case data/case1\\n\");\n"
      "  std::string dir = \"cases/case1\";\n"
      "  read_bin(dir + \"/Wg.bin\");\n"
      "}\n";
  const std::vector<std::string> todos = RelativeInputPaths(f, "/nonexistent");
  ASSERT_EQ(todos.size(), 1u);
  EXPECT_EQ(todos[0].rfind("moe.cu:5: the program opens files, and `cases/case1` is a path relative to where it runs", 0), 0u)
      << todos[0];
  f.code = "int main() {\n  std::string dir = \"cases/case1\";\n}\n";
  EXPECT_TRUE(RelativeInputPaths(f, "/nonexistent").empty());
}

// A program writing its fields into a folder of where it runs (gpritam/CUDA-aware-MPI's
// `sprintf(s,"Output/Field-%d-%04d.tec",...)` then `std::ofstream Output(s, ...)`): the folder is
// named once, and so is one spelled "./results/run1/" with a file; a print's path, a rate ("GB/s"),
// an #include, and a file that writes nothing name none.
TEST(WrittenFolders, AFolderTheProgramWritesFilesInto) {
  ProgramFacts f;
  f.file = "spinodal.cpp";
  f.code =
      "#include \"include/General.h\"\n"
      "int main() {\n"
      "  printf(\"see logs/out.txt, %f GB/s\\n\", r);\n"
      "  char s[64]; sprintf(s,\"Output/Field-%d-%04d.tec\",t,rank);\n"
      "  std::ofstream Output(s, std::ios::out);\n"
      "  std::ofstream again(\"Output/Field.visit\");\n"
      "  FILE* l = fopen(\"./results/run1/log.txt\", \"w\");\n"
      "  double bw = bytes / t; const char* unit = \"GB/s\";\n"
      "}\n";
  EXPECT_EQ(WrittenFolders(f), (std::vector<std::string>{"Output", "results/run1"}));
  f.code = "int main() {\n  FILE* in = fopen(\"cases/case1/meta.txt\", \"r\");\n}\n";
  EXPECT_TRUE(WrittenFolders(f).empty());
  f.code = "int main() {\n  std::ofstream o(\"../up/x.txt\");\n}\n";
  EXPECT_TRUE(WrittenFolders(f).empty());
  f.code = "int main() {}\n";
  f.other_code = {{"io.cpp", "void save() { std::ofstream o(\"Output/a.dat\"); }\n"}};
  EXPECT_EQ(WrittenFolders(f), (std::vector<std::string>{"Output"}));
}

// An absolute path given with --args (a training set under /tmp, SadreevAmir/hpc_final_project's
// `train_vit /tmp/vitdata/train.csv 200 8 0.05`) is listed once for the sandboxes to show; an
// option's value too; numbers, relative paths and flags are not.
TEST(AbsoluteInputPaths, EachAbsolutePathAnArgumentNames) {
  EXPECT_EQ(AbsoluteInputPaths({"/tmp/vitdata/train.csv", "200", "--data=/data/d", "-i", "/tmp/vitdata/train.csv",
                                "rel/a.bin", "--mode=csr", "/"}),
            (std::vector<std::string>{"/tmp/vitdata/train.csv", "/data/d"}));
}

// A path an output option names is written (a solver's `-o /tmp/sol.bin`): not bound read-only, where
// it would fail the program's write once it exists; outside /tmp, the sandbox takes no write there,
// which a TODO says. `-w` (a warm-up count, often) is no output option.
TEST(AbsoluteInputPaths, APathAnOutputOptionNamesIsWrittenNotRead) {
  const std::vector<std::string> args = {"--out=/data/o", "-o", "/tmp/sol.bin", "--save", "/data/ckpt", "-w", "/data/w",
                                         "/data/in.bin"};
  EXPECT_EQ(AbsoluteInputPaths(args), (std::vector<std::string>{"/data/w", "/data/in.bin"}));
  const std::vector<std::string> todos = WrittenPathTodos(args);
  ASSERT_EQ(todos.size(), 2u);
  EXPECT_EQ(todos[0].rfind("--args names `/data/o` after an output option: the program writes it", 0), 0u) << todos[0];
  EXPECT_NE(todos[1].find("`/data/ckpt`"), std::string::npos);
}

}  // namespace
}  // namespace cuco::scaffold_internal
