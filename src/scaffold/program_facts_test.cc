// GatherFacts on small programs analysed with libclang: what a program's text says about how it runs.
#include "scaffold/program_facts.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "scaffold/init_project.h"

namespace cuco::scaffold_internal {
namespace {

// `text` written to a file of its own (libclang reads the file) and analysed with `flags`.
Analysis AnalyzeWith(const std::string& text, const std::vector<std::string>& flags = {}) {
  const std::string path = (std::filesystem::temp_directory_path() / ("cuco_facts_" + std::to_string(::getpid()) + ".cc")).string();
  std::ofstream(path) << text;
  AnalyzeOptions o;
  o.include_dirs = DefaultIncludeDirs();
  o.program_flags = flags;
  Result<Analysis> a = AnalyzeFile(path, o);
  std::filesystem::remove(path);
  EXPECT_TRUE(a.ok()) << a.status().ToString();
  return a.ok() ? *a : Analysis{};
}

// NCCL's examples build one utils.cc for MPI (-DMPI_SUPPORT) or for pthreads: in the pthreads build
// the MPI calls under `#ifdef MPI_SUPPORT` are not the program's, and it is no mpirun program.
// The build line's libraries join the guess (a library called only from a header, as llm.c's
// cuBLAS, is still linked); MPI, NCCL and the CUDA runtime are the harness's own.
TEST(ProgramFacts, TheBuildLinesLibrariesJoinTheGuess) {
  std::vector<std::string> libs = {"cublasLt", "nccl", "mpi"};
  AddBuildLineLibraries({"mpi", "mpi_cxx", "nccl", "cublas", "cublasLt", "cudart", "cudart_static", "pthread", "cublas",
                         ":libnccl.so.2", ":libfoo.so.1"},
                        &libs);
  EXPECT_EQ(libs, (std::vector<std::string>{"cublasLt", "nccl", "mpi", "cublas", "pthread", ":libfoo.so.1"}));
}

TEST(ProgramFacts, CodeThisBuildSkipsIsNotTheProgramsOwn) {
  const std::string text =
      "#include <nccl.h>\n#ifdef MPI_SUPPORT\n#include <mpi.h>\n#endif\n#include <pthread.h>\n"
      "int main(int argc, char** argv) {\n"
      "#ifdef MPI_SUPPORT\n  MPI_Init(&argc, &argv);\n#endif\n"
      "  ncclComm_t comm;\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  ncclCommInitRank(&comm, 1, id, 0);\n"
      "  float* x = nullptr;\n  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, comm, 0);\n  return 0;\n}\n";
  const Analysis plain = AnalyzeWith(text);
  ASSERT_EQ(plain.parse_path, "clang");
  const ProgramFacts f = GatherFacts(plain, "main.cc", "p", text);
  EXPECT_NE(f.launcher, "mpirun") << f.launcher_source;
  EXPECT_EQ(std::count(f.libs.begin(), f.libs.end(), "mpi"), 0);
  const Analysis mpi = AnalyzeWith(text, {"-DMPI_SUPPORT"});
  EXPECT_EQ(GatherFacts(mpi, "main.cc", "p", text).launcher, "mpirun");
}

// MPI started in the program's own header (keyroog/multi-gpu-collectives: nccl_context.hpp's inline
// init_nccl calls MPI_Init), which main's analysis does not list: mpirun, the header named; one
// under `#ifdef USE_MPI` is code a build may leave out, and does not decide it.
TEST(ProgramFacts, MpiStartedInTheProgramsOwnHeaderIsMpirun) {
  const std::string text =
      "#include \"ctx.hpp\"\nint main(int argc, char** argv) {\n  Ctx c = init_ctx(argc, argv);\n"
      "  float* x = nullptr;\n  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c.comm, 0);\n  return 0;\n}\n";
  const std::string header = "#pragma once\n#include <mpi.h>\ninline Ctx init_ctx(int argc, char** argv) {\n"
                             "  // MPI_Init in a comment is none\n  MPI_Init(&argc, &argv);\n  return Ctx{};\n}\n";
  const Analysis a = AnalyzeWith(text);
  const ProgramFacts f = GatherFacts(a, "main.cu", "p", text, {{"common/ctx.hpp", header, false, "common/ctx.hpp"}});
  EXPECT_EQ(f.launcher, "mpirun");
  EXPECT_EQ(f.launcher_source, "common/ctx.hpp:5: MPI_Init (the program's own header)");
  const std::string optional = "#pragma once\n#ifdef USE_MPI\n#include <mpi.h>\ninline void up(int* c, char*** v) { MPI_Init(c, v); }\n"
                               "#endif\n";
  EXPECT_NE(GatherFacts(a, "main.cu", "p", text, {{"ctx.hpp", optional, false, "ctx.hpp"}}).launcher, "mpirun");
}

// MPI processes that each start a thread per GPU, each thread an NCCL rank (YconquestY/ncclAllReduce):
// rank_threads names the start; threads that make no rank (a progress thread) are none.
TEST(ProgramFacts, ThreadsMakingRanksInEachMpiProcessAreNamed) {
  const std::string text =
      "#include <mpi.h>\n#include <nccl.h>\n#include <thread>\n#include <vector>\n"
      "void worker(int size, int rank, int i, ncclUniqueId* id) {\n  ncclComm_t c;\n"
      "  ncclCommInitRank(&c, size * 4, *id, rank * 4 + i);\n  float* x = nullptr;\n"
      "  ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0);\n}\n"
      "void progress() {}\n"
      "int main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n  int r = 0, s = 1;\n  ncclUniqueId id;\n"
      "  std::thread p(progress);\n  std::vector<std::thread> w;\n"
      "  for (int i = 0; i < 4; ++i) w.emplace_back(worker, s, r, i, &id);\n  for (auto& t : w) t.join();\n"
      "  p.join();\n  MPI_Finalize();\n}\n";
  const Analysis a = AnalyzeWith(text);
  const ProgramFacts f = GatherFacts(a, "main.cc", "p", text);
  EXPECT_EQ(f.launcher, "mpirun");
  EXPECT_EQ(f.rank_threads, "main.cc:18: threads each making an NCCL rank (emplace_back running worker, which calls ncclCommInitRank)");
  const std::string one_gpu_a_process = text.substr(0, text.find("  std::thread p")) + "  worker(s, r, 0, &id);\n}\n";
  EXPECT_EQ(GatherFacts(AnalyzeWith(one_gpu_a_process), "main.cc", "p", one_gpu_a_process).rank_threads, "");
}

// One thread making every GPU's rank with ncclCommInitRank outside a group (KAOZUOI/rebuildCCL's
// native.cu) hangs in real NCCL: named, so that init says so; in a group it is one process driving
// every GPU.
TEST(ProgramFacts, RanksMadeOneByOneFromOneThreadAreNamed) {
  const std::string text =
      "#include <nccl.h>\n#include <vector>\nint main() {\n  int n = 4;\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n"
      "  std::vector<ncclComm_t> comms(n);\n  for (int r = 0; r < n; r++) {\n    cudaSetDevice(r);\n"
      "    ncclCommInitRank(&comms[r], n, id, r);\n  }\n  return 0;\n}\n";
  const ProgramFacts f = GatherFacts(AnalyzeWith(text), "main.cu", "p", text);
  EXPECT_EQ(f.ungrouped_rank_inits, "main.cu:10: ncclCommInitRank(&comms[r], ...)");
  EXPECT_NE(UngroupedRankInitsRefusal(f).message().find("hangs as written"), std::string::npos);
  std::string grouped = text;
  grouped.replace(grouped.find("  for (int r"), 0, "  ncclGroupStart();\n");
  grouped.replace(grouped.find("  return 0;"), 0, "  ncclGroupEnd();\n");
  const ProgramFacts g = GatherFacts(AnalyzeWith(grouped), "main.cu", "p", grouped);
  EXPECT_EQ(g.ungrouped_rank_inits, "");
  EXPECT_EQ(g.launcher, "single");
  EXPECT_TRUE(UngroupedRankInitsRefusal(g).ok());
}

// A class starting a thread per GPU on its static method, which makes the GPU's NCCL rank, with no
// `std::thread` spelled where it starts (whitelok/nccl_allreduce_demo_without_mpi declares the
// vector in a header): one process for every GPU, the start named.
TEST(ProgramFacts, ThreadsMakingRanksWithoutMpiAreAThreadPerGpu) {
  const std::string text =
      "#include <nccl.h>\n#include <thread>\n#include <vector>\nusing namespace std;\n"
      "struct Pool {\n  vector<thread> ts;\n"
      "  static void run(int g, int n, ncclUniqueId id) {\n    ncclComm_t c;\n    ncclCommInitRank(&c, n, id, g);\n"
      "    float* x = nullptr;\n    ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0);\n  }\n"
      "  void start(int n, ncclUniqueId id) { for (int g = 0; g < n; ++g) ts.emplace_back(run, g, n, id); }\n};\n"
      "int main() {\n  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  Pool p;\n  p.start(2, id);\n  return 0;\n}\n";
  const ProgramFacts f = GatherFacts(AnalyzeWith(text), "main.cc", "p", text);
  EXPECT_EQ(f.launcher, "single");
  EXPECT_EQ(f.launcher_source.rfind("main.cc:13: threads each making an NCCL rank (emplace_back running run, which calls "
                                    "ncclCommInitRank)", 0), 0u) << f.launcher_source;
}

// Communicators made for every GPU at once, then a thread per GPU doing its GPU's work with its
// communicator (AIComm's moe.cu: ncclCommInitAll, then `threads.emplace_back(rank_thread, ...)`):
// the threads' case, each rank's own thread working; without threads, one process drives every GPU.
TEST(ProgramFacts, CommunicatorsForEveryGpuHandedToThreadsAreAThreadPerGpu) {
  const std::string text =
      "#include <nccl.h>\n#include <thread>\n#include <vector>\n"
      "static void rank_thread(ncclComm_t c, float* x) { ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c, 0); }\n"
      "int main() {\n  int devs[2] = {0, 1};\n  ncclComm_t comms[2];\n  ncclCommInitAll(comms, 2, devs);\n"
      "  std::vector<std::thread> threads;\n  float* x = nullptr;\n"
      "  for (int r = 0; r < 2; ++r) threads.emplace_back(rank_thread, comms[r], x);\n"
      "  for (auto& t : threads) t.join();\n  return 0;\n}\n";
  const ProgramFacts f = GatherFacts(AnalyzeWith(text), "main.cc", "p", text);
  EXPECT_EQ(f.launcher, "single");
  EXPECT_NE(f.launcher_source.find("main.cc:8: ncclCommInitAll (one process drives every GPU)"), std::string::npos)
      << f.launcher_source;
  EXPECT_NE(f.launcher_source.find("(a thread per GPU in one process)"), std::string::npos) << f.launcher_source;
  std::string no_threads = text;
  no_threads.replace(no_threads.find("#include <thread>"), 17, "");
  no_threads.replace(no_threads.find("  std::vector<std::thread> threads;"), 35, "");
  no_threads.replace(no_threads.find("threads.emplace_back(rank_thread, comms[r], x);"), 47, "rank_thread(comms[r], x);");
  no_threads.replace(no_threads.find("  for (auto& t : threads) t.join();"), 35, "");
  const ProgramFacts one = GatherFacts(AnalyzeWith(no_threads), "main.cc", "p", no_threads);
  EXPECT_EQ(one.launcher, "single");
  EXPECT_EQ(one.launcher_source.find("a thread per GPU"), std::string::npos) << one.launcher_source;
  // Made in another of the program's files (a class's set-up): that file is named, not main's.
  Analysis elsewhere = AnalyzeWith(no_threads);
  for (auto& op : elsewhere.ops)
    if (op.api == "ncclCommInitAll") op.file = "/src/env/NcclEnvironment.cu", op.line = 223;
  const ProgramFacts other = GatherFacts(elsewhere, "main.cc", "p", no_threads);
  EXPECT_NE(other.launcher_source.find("NcclEnvironment.cu:223: ncclCommInitAll"), std::string::npos)
      << other.launcher_source;
}

// One thread driving every GPU, its per-GPU all-reduces outside a group (NCCL-1-era examples): a
// TODO says the program can hang as written; inside ncclGroupStart/End, nothing is said.
TEST(ProgramFacts, PerGpuCallsFromOneThreadOutsideAGroupAreFlagged) {
  const std::string grouped =
      "#include <nccl.h>\n"
      "int main() {\n  int devs[2] = {0, 1};\n  ncclComm_t comms[2];\n  ncclCommInitAll(comms, 2, devs);\n"
      "  float* x[2] = {nullptr, nullptr};\n  ncclGroupStart();\n"
      "  for (int g = 0; g < 2; ++g) ncclAllReduce(x[g], x[g], 1, ncclFloat, ncclSum, comms[g], 0);\n"
      "  ncclGroupEnd();\n  return 0;\n}\n";
  auto flagged = [](const ProgramFacts& f) {
    std::string hit;
    for (const std::string& t : f.todos)
      if (t.find("outside ncclGroupStart/ncclGroupEnd") != std::string::npos) hit = t;
    return hit;
  };
  const ProgramFacts in_group = GatherFacts(AnalyzeWith(grouped), "main.cc", "p", grouped);
  EXPECT_EQ(in_group.launcher, "single");
  EXPECT_EQ(flagged(in_group), "");
  std::string ungrouped = grouped;
  ungrouped.replace(ungrouped.find("  ncclGroupStart();\n"), 20, "");
  ungrouped.replace(ungrouped.find("  ncclGroupEnd();\n"), 18, "");
  const ProgramFacts bare = GatherFacts(AnalyzeWith(ungrouped), "main.cc", "p", ungrouped);
  EXPECT_EQ(flagged(bare).rfind("main.cc:7: ncclAllReduce is called for each GPU from one thread", 0), 0u) << flagged(bare);
}

// clang's errors that mean the build line fails (an MPI 4 call against MPI 3.1, a CUDA call CUDA 13
// removed, a call no overload takes) and those it makes alone (C's functions nvcc's implicit
// cuda_runtime.h declares, names of namespace std, a braced launch configuration).
TEST(ProgramFacts, ClangErrorsNvccMakesToo) {
  const std::string text = "int main() {\n  k<<<g, {bx, by, 1}, 0, s>>>(x);\n  go();\n}\n";
  EXPECT_TRUE(NvccWouldFailToo("../25DCannon.cpp:305: error: use of undeclared identifier 'MPI_Isendrecv_replace'", text));
  EXPECT_TRUE(NvccWouldFailToo("nccl.cu:91: error: use of undeclared identifier 'cudaThreadSynchronize'", text));
  EXPECT_TRUE(NvccWouldFailToo("jacobi.cpp:3: error: no matching function for call to 'get_argval'", text));
  EXPECT_FALSE(NvccWouldFailToo("io.cu:3: error: use of undeclared identifier 'strstr'", text));
  EXPECT_FALSE(NvccWouldFailToo("bench.cu:3: error: no type named 'string' in namespace 'std'", text));
  EXPECT_FALSE(NvccWouldFailToo("k.cu:2: error: expected expression", text));  // the launch's line
}

}  // namespace
}  // namespace cuco::scaffold_internal
