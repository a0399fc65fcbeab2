#include "analyze/compile_flags.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "analyze/analysis.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

TEST(CompileFlags, KeepsWhatChangesParsingFromAnNvccCommand) {
  Result<CompileFlags> f = FlagsFromCommand(
      {"nvcc", "-O2", "-I../common", "-I", "inc", "--include-path=/opt/x", "-DUSE_BF16", "-D", "N=4", "-std=c++17",
       "-Xcompiler", "-fopenmp,-DHOST_ONLY", "main.cu", "-o", "prog", "-lnccl", "-arch=sm_90"},
      "/work/p/app");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->flags, (std::vector<std::string>{"-I/work/p/common", "-I/work/p/app/inc", "-I/opt/x", "-DUSE_BF16",
                                                "-DN=4", "-std=c++17", "-fopenmp", "-DHOST_ONLY"}));
  EXPECT_EQ(f->include_dirs, (std::vector<std::string>{"/work/p/common", "/work/p/app/inc", "/opt/x"}));
  // The program's own include folders are those it names relatively (cuco init copies from them).
  EXPECT_EQ(f->own_include_dirs, (std::vector<std::string>{"/work/p/common", "/work/p/app/inc"}));
  EXPECT_TRUE(f->nvcc) << "nvcc's files see __NVCC__";
}

// The sources a command compiles, absolute against its folder, in order and once each (merged with
// another command's): a program built from several files whose user names only main's
// (cli/program_flags.h's AddCommandSources). Objects, libraries and -o's value are not sources.
TEST(CompileFlags, KeepsTheSourcesTheCommandCompiles) {
  Result<CompileFlags> f = FlagsFromCommand({"nvcc", "-O3", "-ccbin=mpicxx", "utils/gemm.cu", "router/fwd.cpp", "Jacobi.c",
                                             "main.cu", "-o", "build/out.cu", "helpers.o", "libx.a", "-lmpi"},
                                            "/work/p/week_08");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->sources, (std::vector<std::string>{"/work/p/week_08/utils/gemm.cu", "/work/p/week_08/router/fwd.cpp",
                                                  "/work/p/week_08/Jacobi.c", "/work/p/week_08/main.cu"}));
  Result<CompileFlags> g = FlagsFromCommand({"nvcc", "main.cu", "../common/ring.cu"}, "/work/p/week_08");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(MergeFlags(*f, *g).sources.back(), "/work/p/common/ring.cu");
  EXPECT_EQ(MergeFlags(*f, *g).sources.size(), 5u);
}

// nvcc's language flags (jihwan01/nccl_Imp's `--expt-relaxed-constexpr`: its kernels call std::min)
// are kept apart for the harness's nvcc build; a flag no build of cuco's takes is named, and the ones
// cuco's builds decide themselves (architecture, optimisation, output, host compiler) are not.
TEST(CompileFlags, KeepsNvccsLanguageFlagsAndNamesTheUnused) {
  Result<CompileFlags> f = FlagsFromCommand({"nvcc", "-arch=sm_90a", "-O3", "-ccbin", "mpicxx", "--expt-relaxed-constexpr",
                                             "-Xptxas", "-v", "-rdc=true", "-gencode", "arch=compute_90,code=sm_90",
                                             "x.cu", "-o", "x", "-lnccl"},
                                            "/w");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->nvcc_flags, (std::vector<std::string>{"--expt-relaxed-constexpr"}));
  EXPECT_TRUE(f->flags.empty()) << "clang's analysis is not given nvcc's flags";
  EXPECT_EQ(f->unused, (std::vector<std::string>{"-rdc=true"}));
}

// `-include FILE` names a file of the compiler's folder when there is one, else a header found along
// the include search: janilbols-w/dl_distribution_examples builds with `nvcc -include cstdio`.
TEST(CompileFlags, APreIncludedHeaderNotInTheFolderIsSearchedFor) {
  const fs::path dir = fs::temp_directory_path() / "cuco_cc_pre_include";
  fs::create_directories(dir);
  std::ofstream(dir / "config.h") << "#define X 1\n";
  Result<CompileFlags> f = FlagsFromCommand({"nvcc", "-include", "cstdio", "-include", "config.h", "x.cu"}, dir.string());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->flags, (std::vector<std::string>{"-includecstdio", "-include" + (dir / "config.h").string()}));
}

// Code written `#ifdef __NVCC__` (ParRes Kernels' transpose kernels) is seen by clang when nvcc
// builds it, by any path; not when another compiler does.
TEST(CompileFlags, KnowsWhenTheCommandIsNvccs) {
  EXPECT_TRUE(FlagsFromCommand({"/usr/local/cuda/bin/nvcc", "x.cu"}, "/w")->nvcc);
  EXPECT_FALSE(FlagsFromCommand({"mpicxx", "-I/usr/local/cuda/include", "x.cpp"}, "/w")->nvcc);
  EXPECT_FALSE(FlagsFromCommand({"g++", "-Xcompiler", "-O2", "x.cpp"}, "/w")->nvcc);
  EXPECT_TRUE(MergeFlags(*FlagsFromCommand({"g++", "x.cpp"}, "/w"), *FlagsFromCommand({"nvcc", "y.cu"}, "/w")).nvcc);
}

// The libraries a build line links (llm.c's `nvcc -lmpi -lnccl -L... -lcublas -lcublasLt x.cu`),
// in order; nvcc's -lineinfo / -lib are flags, not libraries.
TEST(CompileFlags, KeepsTheLibrariesTheCommandLinks) {
  Result<CompileFlags> f = FlagsFromCommand(
      {"nvcc", "-lmpi", "-lnccl", "-L/usr/lib/x86_64-linux-gnu/openmpi/lib/", "-lcublas", "-lineinfo", "-l", "cublasLt",
       "--library=cudnn", "--library", "m", "-l:libfoo.so.1", "-lib", "x.cu", "-o", "x"},
      "/tmp");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->libraries, (std::vector<std::string>{"mpi", "nccl", "cublas", "cublasLt", "cudnn", "m", ":libfoo.so.1"}));
  EXPECT_TRUE(f->flags.empty());
  EXPECT_FALSE(FlagsFromCommand({"nvcc", "x.cu", "-l"}, "/tmp").ok());
}

TEST(CompileFlags, AFlagWithoutItsValueIsAnError) {
  Result<CompileFlags> f = FlagsFromCommand({"nvcc", "main.cu", "-I"}, "/tmp");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("'-I' needs a value"), std::string::npos);
}

TEST(CompileFlags, SplitsShellWordsWithQuotes) {
  EXPECT_EQ(SplitShellWords("nvcc -DMSG=\"a b\" '-I my dir' x\\ y.cu"),
            (std::vector<std::string>{"nvcc", "-DMSG=a b", "-I my dir", "x y.cu"}));
}

TEST(CompileFlags, ReadsTheEntryOfTheFileFromCompileCommands) {
  const fs::path dir = fs::temp_directory_path() / "cuco_cc_test";
  fs::create_directories(dir / "src");
  std::ofstream(dir / "src/main.cu") << "int main() { return 0; }\n";
  std::ofstream(dir / "compile_commands.json")
      << R"([{"directory": ")" << dir.string()
      << R"(", "file": "src/other.cu", "command": "nvcc -DOTHER -c src/other.cu"},
             {"directory": ")" << dir.string()
      << R"(", "file": "src/main.cu", "arguments": ["nvcc", "-Iinclude", "-DMAIN", "-c", "src/main.cu"]}])";
  Result<CompileFlags> f = FlagsFromCompileCommands(dir.string(), (dir / "src/main.cu").string());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->flags, (std::vector<std::string>{"-I" + (dir / "include").string(), "-DMAIN"}));
  EXPECT_EQ(f->own_include_dirs, (std::vector<std::string>{(dir / "include").string()}));
  Result<CompileFlags> none = FlagsFromCompileCommands(dir.string(), (dir / "src/absent.cu").string());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("no entry for"), std::string::npos);
  std::ofstream(dir / "bad.json") << "[{\"file\": ";
  Result<CompileFlags> bad = FlagsFromCompileCommands((dir / "bad.json").string(), "x.cu");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.json: not JSON"), std::string::npos);
  fs::remove_all(dir);
}

// CMake names a CUDA target's include folders in a response file (`--options-file
// CMakeFiles/t.dir/includes_CUDA.rsp`, quoted -isystem="DIR" included); compilers take `@FILE`.
TEST(CompileFlags, OptionsFilesAreReadWhereTheyAreNamed) {
  const fs::path dir = fs::temp_directory_path() / "cuco_cc_optf_test";
  fs::create_directories(dir / "CMakeFiles");
  std::ofstream(dir / "CMakeFiles/includes_CUDA.rsp") << "-I/src/proj/include -isystem=\"/opt/mpi/include\"\n";
  std::ofstream(dir / "more.rsp") << "-DFROM_AT @CMakeFiles/includes_CUDA.rsp\n";
  Result<CompileFlags> f = FlagsFromCommand(
      SplitShellWords("nvcc -DTOKENS=256 --options-file CMakeFiles/includes_CUDA.rsp -x cu -c /src/proj/main.cu"), dir.string());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->flags, (std::vector<std::string>{"-DTOKENS=256", "-I/src/proj/include", "-isystem/opt/mpi/include"}));
  Result<CompileFlags> at = FlagsFromCommand({"g++", "@more.rsp", "main.cc"}, dir.string());
  ASSERT_TRUE(at.ok()) << at.status().message();
  EXPECT_EQ(at->flags, (std::vector<std::string>{"-DFROM_AT", "-I/src/proj/include", "-isystem/opt/mpi/include"}));
  Result<CompileFlags> missing = FlagsFromCommand({"nvcc", "-optf", "gone.rsp", "main.cu"}, dir.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("gone.rsp"), std::string::npos) << missing.status().message();
  fs::remove_all(dir);
}

// The point of the flags: a program that includes its own header from another folder parses with
// clang (real headers) once -I names that folder, and not without.
TEST(CompileFlags, AProgramsHeaderFromAnotherFolderParsesWithClangGivenItsFlags) {
  const fs::path dir = fs::temp_directory_path() / "cuco_cc_hdr";
  fs::create_directories(dir / "common");
  fs::create_directories(dir / "app");
  std::ofstream(dir / "common/utils.h") << "#pragma once\n#define NCCLCHECK(x) do { (x); } while (0)\n"
                                           "typedef float real_t;\n";
  const std::string prog = (dir / "app/main.cu").string();
  std::ofstream(prog) << "#include <nccl.h>\n#include \"utils.h\"\n"
                         "void step(real_t* buf, size_t n, ncclComm_t comm, cudaStream_t s) {\n"
                         "  NCCLCHECK(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, s));\n}\n";
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  Result<Analysis> without = AnalyzeFile(prog, o);
  ASSERT_TRUE(without.ok());
  EXPECT_NE(without->parse_path, "clang");
  bool hinted = false;
  for (const auto& w : without->warnings) hinted |= w.find("compile flags") != std::string::npos;
  EXPECT_TRUE(hinted);
  Result<CompileFlags> f = FlagsFromCommand({"nvcc", "-I../common", "main.cu"}, (dir / "app").string());
  ASSERT_TRUE(f.ok());
  o.program_flags = f->flags;
  Result<Analysis> with = AnalyzeFile(prog, o);
  ASSERT_TRUE(with.ok());
  if (with->parse_path == "clang-stub") GTEST_SKIP() << "no real CUDA/NCCL headers on this machine";
  EXPECT_EQ(with->parse_path, "clang");
  ASSERT_EQ(with->ops.size(), 1u);
  EXPECT_EQ(with->ops[0].api, "ncclAllReduce");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cuco
