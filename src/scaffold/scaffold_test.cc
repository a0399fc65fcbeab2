// cuco init: folders scaffolded from the analyze corpus and the repo's program-mode workload load
// through LoadWorkload with the guessed settings, the seed's EVOLVE block is well formed and passes
// the deny-list, and bad input is refused with the path named.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "analyze/analysis.h"
#include "scaffold/scaffold.h"
#include "util/files.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

const std::string kSource = CUCO_SOURCE_DIR;

// A fresh folder under the system temp dir, removed with the fixture.
class ScaffoldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("cuco-scaffold-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  // `lexical`: the lexical scan only, on which init writes the skeleton (to test its guesses).
  static Analysis Analyze(const std::string& path, bool lexical = false) {
    AnalyzeOptions o;
    o.include_dirs = DefaultIncludeDirs();
    o.allow_clang = !lexical;
    Result<Analysis> a = AnalyzeFile(path, o);
    EXPECT_TRUE(a.ok()) << a.status().ToString();
    return a.ok() ? *a : Analysis{};
  }

  // Scaffolds `program` into root_/<out>; fails the test when that fails.
  ScaffoldReport Scaffold(const std::string& program, const std::string& out = "wl", ScaffoldOptions o = {},
                          bool lexical = false) {
    Result<ScaffoldReport> r = ScaffoldWorkload(Analyze(program, lexical), program, root_ / out, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ScaffoldReport{};
  }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = root_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  static std::string Read(const fs::path& p) {
    auto t = ReadFile(p);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    return t.ok() ? *t : "";
  }

  fs::path root_;
};

TEST_F(ScaffoldTest, ProgramModeWorkloadFromTheRepoProgram) {
  const std::string program = kSource + "/workloads/gemm_reducescatter_program/program.cu";
  ScaffoldReport r = Scaffold(program);
  const fs::path dir = root_ / "wl";
  EXPECT_EQ(r.name, "program");
  EXPECT_EQ(Read(dir / "program.cu"), Read(program));  // byte for byte

  Result<WorkloadConfig> w = LoadWorkload(dir);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->mode, "program");
  EXPECT_EQ(w->seed_file, "program.cu");
  EXPECT_EQ(w->world_size, 2);
  EXPECT_EQ(r.world_size_source, "");  // its `mpirun -np 2` is in a comment: not read (2 is the default)
  EXPECT_EQ(w->build_libs, (std::vector<std::string>{"cublasLt", "nccl", "mpi"}));
  ASSERT_TRUE(w->program.has_value());
  EXPECT_EQ(w->program->launcher, "mpirun");
  // The regexes come from the program's printf formats and read its real output lines.
  EXPECT_EQ(w->program->time_regex, R"(Time:\s*([0-9.eE+-]+)\s*ms)");
  EXPECT_EQ(w->program->pass_regex, R"(Verification:\s*PASS)");
  EXPECT_EQ(w->program->fail_regex, R"(Verification:\s*FAIL)");
  std::smatch m;
  const std::string line = "Time: 1.2345 ms\n";
  ASSERT_TRUE(std::regex_search(line, m, std::regex(w->program->time_regex)));
  EXPECT_EQ(m[1].str(), "1.2345");
  EXPECT_TRUE(r.time_regex_guessed);
  EXPECT_TRUE(r.pass_regex_guessed);

  const std::string toml = Read(dir / "workload.toml");
  EXPECT_NE(toml.find("ncclReduceScatter (program.cu:145)"), std::string::npos) << toml;
  EXPECT_NE(toml.find("--m 8192 --n 8192 --k 8192 --warmup 5 --iters 20"), std::string::npos) << toml;
  EXPECT_NE(toml.find(R"(# program.cu:298: "Time: %.4f ms\n")"), std::string::npos) << toml;
  // Its `mpirun -np 2` is in a comment, which is never read for a world size: 2 is assumed.
  ASSERT_EQ(r.todos.size(), 1u);
  EXPECT_NE(r.todos[0].find("no rank count found"), std::string::npos) << r.todos[0];
  EXPECT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_NE(Read(dir / "analysis.txt").find("ncclReduceScatter"), std::string::npos);
}

// One process driving every GPU through ncclCommInitAll (line 7), a timed loop over its GPUs.
const char* kInitAll = R"(#include <nccl.h>
#include <cuda_runtime.h>
int main() {
  int n = 0;
  cudaGetDeviceCount(&n);
  ncclComm_t comms[8];
  ncclCommInitAll(comms, n, nullptr);
  float* buf = nullptr;
  for (int it = 0; it < 10; ++it)
    for (int i = 0; i < n; ++i) ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, comms[i], 0);
  return 0;
}
)";

const char* kThreads = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <thread>
#include <vector>
void worker(int r, int n, ncclUniqueId id) {
  cudaSetDevice(r);
  ncclComm_t c;
  ncclCommInitRank(&c, n, id, r);
  float* buf = nullptr;
  cudaMalloc(&buf, 4);
  for (int it = 0; it < 10; ++it) ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, c, 0);
}
int main() {
  int n = 2;
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(worker, r, n, id);
  for (auto& t : threads) t.join();
  return 0;
}
)";

// The repo's program-mode program becomes a harness made of the program itself: its main up to the
// timed loop is the setup, the loop's body the iteration, its own EVOLVE blocks kept; nothing to fill in.
TEST_F(ScaffoldTest, HarnessIsTheProgramItself) {
  ScaffoldReport r = Scaffold(kSource + "/workloads/gemm_reducescatter_program/program.cu");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const fs::path h = root_ / "wl" / "harness";
  Result<WorkloadConfig> w = LoadWorkload(h);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->mode, "harness");
  EXPECT_EQ(w->name, "program_harness");
  EXPECT_EQ(w->build_libs, (std::vector<std::string>{"cublasLt", "nccl"}));  // MPI is answered by cuco
  // Its size options (--m, --n, --k) are the workload's sizes, passed back to it as its flags.
  EXPECT_EQ(w->bench_sizes, (std::map<std::string, int64_t>{{"M", 8192}, {"N", 8192}, {"K", 8192}}));
  EXPECT_EQ(w->verify_sizes, (std::map<std::string, int64_t>{{"M", 1024}, {"N", 1024}, {"K", 1024}}));
  EXPECT_DOUBLE_EQ(w->tol_rel_l2, 0.02);  // bf16 outputs

  const std::string seed = Read(h / "seed.cu");
  EXPECT_NE(seed.find("#include <cuco/program/candidate.h>"), std::string::npos);
  EXPECT_NE(seed.find("#include <cuco/program/mpi.h>"), std::string::npos) << "<mpi.h> is cuco's";
  EXPECT_NE(seed.find("int cuco_program_main(int argc, char** argv)"), std::string::npos);
  EXPECT_NE(seed.find("static int cuco_program_entry(int, char** argv)"), std::string::npos);
  EXPECT_NE(seed.find("std::to_string(cuco_program::size_or(\"M\", 8192))"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_program::serve("), std::string::npos);
  EXPECT_NE(seed.find("cuco_bind.input(\"A\", A);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_bind.output(\"C\", C);"), std::string::npos) << seed;
  EXPECT_EQ(seed.find("TODO(cuco init)"), std::string::npos);
  Result<SplitSource> split = SplitEvolveBlocks(seed, "seed.cu");
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(split->blocks.size(), 1u) << "the program's own block, no other";
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"B", "A"}));
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"C"}));

  const std::string ref = Read(h / "reference.cu");
  EXPECT_NE(ref.find("#define CUCO_PROGRAM_WORKLOAD \"program_harness\""), std::string::npos);
  EXPECT_NE(ref.find("#include <cuco/program/reference.h>"), std::string::npos);
  EXPECT_EQ(ref.find("EVOLVE-BLOCK"), ref.find("EVOLVE-BLOCK")) << "the reference is frozen text";
  EXPECT_NE(Read(h / "README.md").find("program.cu:243: the timed loop"), std::string::npos);
}

// A thread per GPU gets a harness: the timed loop found in the threads' function, its threads
// cuco_program::rank_thread, each rank doing its own GPU's part.
TEST_F(ScaffoldTest, AThreadPerGpuRunsOneThreadPerRank) {
  ScaffoldReport r = Scaffold(Write("threads.cu", kThreads), "threads");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "threads" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("#define CUCO_PROGRAM_THREADS 1"), std::string::npos);
  EXPECT_NE(seed.find("std::vector<cuco_program::rank_thread> threads;"), std::string::npos) << seed;
  EXPECT_LT(seed.find("cuco_program::serve("), seed.find("int cuco_program_main("));  // in worker, before main
  EXPECT_NE(seed.find("cuco_bind.inout(\"buf\", buf);"), std::string::npos) << seed;
  EXPECT_NE(Read(root_ / "threads" / "harness" / "README.md").find("the last loop of worker (each thread's function)"),
            std::string::npos);
}

// Threads that run a lambda written where they start: the timed loop is found in the lambda's body.
TEST_F(ScaffoldTest, AThreadPerGpuRunningALambda) {
  std::string text = kThreads;
  text.replace(text.find("threads.emplace_back(worker, r, n, id);"), std::string("threads.emplace_back(worker, r, n, id);").size(),
               "threads.emplace_back([=] {\n    cudaSetDevice(r);\n    ncclComm_t c;\n    ncclCommInitRank(&c, n, id, r);\n"
               "    float* buf = nullptr;\n    cudaMalloc(&buf, 4);\n"
               "    for (int it = 0; it < 10; ++it) ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, c, 0);\n  });");
  ScaffoldReport r = Scaffold(Write("lambda.cu", text), "lambda");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "lambda" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("cuco_bind.inout(\"buf\", buf);"), std::string::npos) << seed;
  EXPECT_LT(seed.find("threads.emplace_back([=] {"), seed.find("cuco_program::serve("));  // inside the lambda
  EXPECT_NE(seed.find("for (int r = 0; r < n; ++r) threads.emplace_back("), std::string::npos) << "the threads still start";
}

// Threads started with pthread_create run the function it names: its loop is served, and
// pthread_create / pthread_join become cuco's (each new thread knows its rank). NCCL's examples
// start theirs so.
TEST_F(ScaffoldTest, AThreadPerGpuStartedWithPthreadCreate) {
  std::string text = kThreads;
  text.replace(text.find("#include <vector>"), std::string("#include <vector>").size(), "#include <vector>\n#include <pthread.h>");
  text.replace(text.find("void worker(int r, int n, ncclUniqueId id) {"),
               std::string("void worker(int r, int n, ncclUniqueId id) {").size(),
               "struct Arg { int r, n; ncclUniqueId id; };\nvoid* worker(void* p) {\n  const Arg& a = *static_cast<Arg*>(p);\n"
               "  int r = a.r, n = a.n;\n  ncclUniqueId id = a.id;");
  text.replace(text.find("ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, c, 0);\n}"),
               std::string("ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, c, 0);\n}").size(),
               "ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, c, 0);\n  return nullptr;\n}");
  text.replace(text.find("std::vector<std::thread> threads;"), std::string("std::vector<std::thread> threads;").size(),
               "pthread_t threads[8];\n  Arg args[8];");
  text.replace(text.find("threads.emplace_back(worker, r, n, id);"), std::string("threads.emplace_back(worker, r, n, id);").size(),
               "{ args[r] = Arg{r, n, id}; pthread_create(&threads[r], nullptr, worker, &args[r]); }");
  text.replace(text.find("for (auto& t : threads) t.join();"), std::string("for (auto& t : threads) t.join();").size(),
               "for (int r = 0; r < n; ++r) pthread_join(threads[r], nullptr);");
  ScaffoldReport r = Scaffold(Write("pthreads.cu", text), "pthreads");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "pthreads" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("cuco_program::rank_pthread_create(&threads[r], nullptr, worker, &args[r])"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_program::rank_pthread_join(threads[r], nullptr)"), std::string::npos) << seed;
  EXPECT_LT(seed.find("void* worker(void* p)"), seed.find("cuco_program::serve("));  // the loop in worker
  EXPECT_NE(seed.find("#define CUCO_PROGRAM_THREADS 1"), std::string::npos);
}

// A program init cannot make a harness of (its threads' function never communicates) gets the
// skeleton, and the reason names the line and where the communication it never reaches is.
TEST_F(ScaffoldTest, HarnessSkeletonWhereTheThreadsAreNotFound) {
  std::string text = kThreads;
  text.replace(text.find("#include <vector>"), std::string("#include <vector>").size(), "#include <vector>\n#include <pthread.h>");
  text.replace(text.find("std::vector<std::thread> threads;"), std::string("std::vector<std::thread> threads;").size(),
               "pthread_t threads[8];");
  text.replace(text.find("threads.emplace_back(worker, r, n, id);"), std::string("threads.emplace_back(worker, r, n, id);").size(),
               "pthread_create(&threads[r], nullptr, start, nullptr);");
  text.replace(text.find("for (auto& t : threads) t.join();"), std::string("for (auto& t : threads) t.join();").size(),
               "for (int r = 0; r < n; ++r) pthread_join(threads[r], nullptr);");
  text.replace(text.find("int main() {"), std::string("int main() {").size(),
               "void* start(void*) { return nullptr; }\nint main() {");
  ScaffoldReport r = Scaffold(Write("threads.cu", text), "threads");
  EXPECT_FALSE(r.harness_ready);
  EXPECT_NE(r.harness_reason.find("threads.cu:14: start reaches no NCCL call"), std::string::npos) << r.harness_reason;
  EXPECT_NE(r.harness_reason.find("in worker (threads.cu:12), which nothing start calls reaches"), std::string::npos);
  const fs::path h = root_ / "threads" / "harness";
  Result<WorkloadConfig> w = LoadWorkload(h);
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  const std::string seed = Read(h / "seed.cu");
  Result<SplitSource> split = SplitEvolveBlocks(seed, "seed.cu");
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  ASSERT_EQ(split->blocks.size(), 1u);
  for (const char* fn : {"cuco_candidate_setup(", "cuco_candidate_run(", "cuco_candidate_teardown("})
    EXPECT_NE(split->blocks[0].body.find(fn), std::string::npos) << fn;
  EXPECT_NE(split->blocks[0].body.find("TODO(cuco init)"), std::string::npos);
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
  bool todo = false;
  for (const auto& t : r.todos) todo |= t.find("harness/: threads.cu:14") != std::string::npos;
  EXPECT_TRUE(todo) << "the TODO says why harness/ is a skeleton";
}

// One process driving every GPU (ncclCommInitAll) gets a harness in which each rank does its own
// GPU's part (cuco/program/impl/projection.h): the flag, the guards of its calls, its per-GPU array
// bound by the rank's entry.
TEST_F(ScaffoldTest, OneProcessDrivingEveryGpuRunsOneGpuPerRank) {
  const std::string init_all = Write("all.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }
int main() {
  int n = 0;
  cudaGetDeviceCount(&n);
  ncclComm_t comms[8];
  ncclCommInitAll(comms, n, nullptr);
  float* buf[8];
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    cudaMalloc(&buf[i], 1024);
  }
  for (int it = 0; it < 10; ++it) {
    for (int i = 0; i < n; ++i) {
      cudaSetDevice(i);
      scale<<<1, 256>>>(buf[i]);
    }
    ncclGroupStart();
    for (int i = 0; i < n; ++i) ncclAllReduce(buf[i], buf[i], 256, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(init_all, "all");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "all" / "harness" / "seed.cu");
  const std::string ref = Read(root_ / "all" / "harness" / "reference.cu");
  for (const std::string* text : {&seed, &ref}) {
    EXPECT_LT(text->find("#define CUCO_PROGRAM_PROJECTED 1"), text->find("#include <cuco/program/"));
    EXPECT_NE(text->find("#define cudaMalloc(...) CUCO_PROGRAM_GUARD_ALLOC(cudaMalloc, __VA_ARGS__)"), std::string::npos);
    EXPECT_NE(text->find("#define ncclAllReduce(...) CUCO_PROGRAM_GUARD_COMM(ncclAllReduce, __VA_ARGS__)"), std::string::npos);
    EXPECT_NE(text->find("if (!cuco_program::proj::Own()) {} else scale<<<1, 256>>>(buf[i]);"), std::string::npos) << *text;
  }
  EXPECT_NE(seed.find("cuco_bind.inout(\"buf\", buf[cuco_program::rank()]);"), std::string::npos) << seed;
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
  EXPECT_NE(Read(root_ / "all" / "harness" / "README.md").find("all.cu:8: ncclCommInitAll (one process drives every GPU)"),
            std::string::npos);
}

// The same habit with a pipeline's buffers on each GPU, an array of arrays (`float* stage[8][DEPTH]`,
// used `stage[i][b]`, yianan261's logregv4check.cu): the rank's row is no pointer (binding it did not
// compile, stop 81 on one H100), so each of its entries is bound.
TEST_F(ScaffoldTest, APerGpuArrayOfBufferArraysBindsEachOfTheRanksEntries) {
  const std::string init_all = Write("rows.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
#define DEPTH 2
__global__ void scale(float* x) { x[threadIdx.x] *= 2.f; }
int main() {
  int n = 0;
  cudaGetDeviceCount(&n);
  ncclComm_t comms[8];
  ncclCommInitAll(comms, n, nullptr);
  float* stage[8][DEPTH];
  for (int i = 0; i < n; ++i) {
    cudaSetDevice(i);
    for (int b = 0; b < DEPTH; ++b) cudaMalloc(&stage[i][b], 1024);
  }
  for (int it = 0; it < 10; ++it) {
    int b = it % DEPTH;
    for (int i = 0; i < n; ++i) {
      cudaSetDevice(i);
      scale<<<1, 256>>>(stage[i][b]);
    }
    ncclGroupStart();
    for (int i = 0; i < n; ++i) ncclAllReduce(stage[i][b], stage[i][b], 256, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(init_all, "rows");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "rows" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("stage[cuco_program::rank()][0]);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("stage[cuco_program::rank()][1]);"), std::string::npos) << seed;
  EXPECT_EQ(seed.find("stage[cuco_program::rank()]);"), std::string::npos) << seed;
}

// The same habit with its GPU count from the command line (`--gpus N`-style positional, given with
// `cuco init --args`): the rank count is the argument given, and the harness's entry passes its own
// rank count in its place, so a rank count other than the one given still runs the program whole.
TEST_F(ScaffoldTest, AGpuCountGivenAsAnArgumentIsTheHarnesssRankCount) {
  const std::string program = Write("argn.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdlib>
int main(int argc, char** argv) {
  int num_gpus = 1;
  if (argc > 1) num_gpus = atoi(argv[1]);
  ncclComm_t comms[8];
  ncclCommInitAll(comms, num_gpus, nullptr);
  float* buf[8];
  for (int i = 0; i < num_gpus; ++i) {
    cudaSetDevice(i);
    cudaMalloc(&buf[i], 1024);
  }
  for (int it = 0; it < 10; ++it) {
    ncclGroupStart();
    for (int i = 0; i < num_gpus; ++i) ncclAllReduce(buf[i], buf[i], 256, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  return 0;
}
)");
  ScaffoldOptions o;
  o.args = "4";
  ScaffoldReport r = Scaffold(program, "argn", o);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.world_size_source, "argn.cu:6: `num_gpus` from argv[1], given 4");
  const std::string seed = Read(root_ / "argn" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("  args.push_back(cuco_world.data());\n  args.push_back(nullptr);"), std::string::npos) << seed;
  EXPECT_EQ(seed.find("\"4\""), std::string::npos) << "the given count is not passed as it is";
}

// The same count as an option with a default, read by the program's own helper (`--ngpus`, 2):
// the rank count is the default, and the harness's entry passes its own rank count with the option,
// so the program runs on one GPU at W=1 and on four at W=4 (found on AIComm's MoE, which returned 1
// at W=1: "Requested ngpus=2 but only 1 CUDA devices visible"). Given with --args, the value given.
TEST_F(ScaffoldTest, AGpuCountOptionWithADefaultIsTheHarnesssRankCount) {
  const std::string program = Write("optn.cu", R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdlib>
#include <string>
static int get_int_arg(int argc, char** argv, const std::string& key, int def) {
  for (int i = 1; i + 1 < argc; i++)
    if (key == argv[i]) return std::atoi(argv[i + 1]);
  return def;
}
int main(int argc, char** argv) {
  int ngpus = get_int_arg(argc, argv, "--ngpus", 2);
  int count = get_int_arg(argc, argv, "--count", 4096);
  ncclComm_t comms[8];
  ncclCommInitAll(comms, ngpus, nullptr);
  float* buf[8];
  for (int i = 0; i < ngpus; ++i) {
    cudaSetDevice(i);
    cudaMalloc(&buf[i], count * sizeof(float));
  }
  for (int it = 0; it < 10; ++it) {
    ncclGroupStart();
    for (int i = 0; i < ngpus; ++i) ncclAllReduce(buf[i], buf[i], count, ncclFloat, ncclSum, comms[i], 0);
    ncclGroupEnd();
  }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program, "optn", {});
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.world_size, 2);
  EXPECT_EQ(r.world_size_source, "optn.cu:11: default of --ngpus = 2");
  const std::string seed = Read(root_ / "optn" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("static char world_flag[] = \"--ngpus\";\n  args.push_back(world_flag);\n  args.push_back(cuco_world.data());"),
            std::string::npos) << seed;
  EXPECT_NE(seed.find("static char size_flag0[] = \"--count\";"), std::string::npos) << seed;
  ScaffoldOptions o;
  o.args = "--ngpus 4 --count 512";
  o.force = true;
  r = Scaffold(program, "optn", o);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.world_size, 4);
  EXPECT_EQ(r.world_size_source, "optn.cu:11: `--ngpus 4`, given");
  const std::string given = Read(root_ / "optn" / "harness" / "seed.cu");
  EXPECT_NE(given.find("  args.push_back(cuco_world.data());\n"), std::string::npos) << given;
  EXPECT_EQ(given.find("\"4\""), std::string::npos) << "the given count is not passed as it is";
  // The size option given: the harness sets its value where it was given, and appends no second
  // `--count`, which a parser taking the first match would never read.
  EXPECT_NE(given.find("cuco_program::size_or(\"count\", 512)"), std::string::npos) << given;
  EXPECT_EQ(given.find("size_flag0"), std::string::npos) << given;
}

// A minimal all-reduce test of processes started by hand, the NCCL id passed through a file: main
// reads its arguments as `reads` says (main's first statements), sets GPU `device` and makes a
// communicator of `nranks` ranks.
std::string HandStartedProgram(const std::string& reads, const std::string& device, const std::string& nranks) {
  return "#include <nccl.h>\n#include <cuda_runtime.h>\n#include <cstdio>\n#include <cstdlib>\n"
         "int main(int argc, char** argv) {\n" + reads +
         "  ncclUniqueId id;\n"
         "  FILE* f = fopen(\"/tmp/uid.bin\", rank == 0 ? \"wb\" : \"rb\");\n"
         "  if (rank == 0) { ncclGetUniqueId(&id); fwrite(&id, sizeof id, 1, f); } else { fread(&id, sizeof id, 1, f); }\n"
         "  fclose(f);\n"
         "  cudaSetDevice(" + device + ");\n"
         "  ncclComm_t comm;\n"
         "  ncclCommInitRank(&comm, " + nranks + ", id, rank);\n"
         "  float *send, *recv;\n"
         "  cudaMalloc(&send, 1024 * sizeof(float));\n"
         "  cudaMalloc(&recv, 1024 * sizeof(float));\n"
         "  ncclAllReduce(send, recv, 1024, ncclFloat, ncclSum, comm, 0);\n"
         "  cudaDeviceSynchronize();\n"
         "  return 0;\n}\n";
}

// Two processes started by hand, `./prog <rank> <nranks>`, the NCCL id passed through a file (a
// minimal all-reduce test): given with --args, the rank is each rank's own and the rank count the
// harness's, and program mode's TODO says why it cannot tell its processes apart.
TEST_F(ScaffoldTest, ARankAndARankCountReadByPositionAreTheHarnesss) {
  const std::string program = Write("twoproc.cu", HandStartedProgram("  if (argc != 3) return 1;\n  int rank = atoi(argv[1]);\n"
                                                                    "  int nranks = atoi(argv[2]);\n",
                                                                    "rank", "nranks"));
  ScaffoldOptions o;
  o.args = "0 2";
  ScaffoldReport r = Scaffold(program, "twoproc", o);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.world_size_source, "twoproc.cu:8: `nranks` from argv[2], given 2");
  const std::string seed = Read(root_ / "twoproc" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("  args.push_back(cuco_rank.data());\n  args.push_back(cuco_world.data());"), std::string::npos) << seed;
  bool said = false;
  for (const auto& t : r.todos) said |= t.find("reads its rank from argv[1], which program mode gives every process alike") != std::string::npos;
  EXPECT_TRUE(said);
}

// A program started once per rank by hand, `./prog 0` and `./prog 1` (pwhMass/nccl_test's two-process
// test): its rank is the one argument it reads, with no default. Without --args the harness passes
// each rank's own there, and says so; with an argument read besides it, --args is still asked for.
TEST_F(ScaffoldTest, ARankTheOnlyArgumentIsPassedWithoutArgs) {
  const std::string text = HandStartedProgram(
      "  if (argc != 2) { printf(\"Usage: %s <rank>\\n\", argv[0]); return 1; }\n  int rank = atoi(argv[1]);\n", "0", "2");
  ScaffoldReport r = Scaffold(Write("rankarg.cu", text), "rankarg", {});
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "rankarg" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("args.push_back(cuco_rank.data());"), std::string::npos) << seed;
  std::string guesses;
  for (const auto& g : r.harness_guesses) guesses += g + "\n";
  EXPECT_NE(guesses.find("the program's rank, the one argument it reads with no default"), std::string::npos) << guesses;
  const std::string read = "  int rank = atoi(argv[1]);\n";
  std::string with_size = text;
  with_size.replace(with_size.find(read), read.size(), read + "  int n = atoi(argv[2]);\n");
  ScaffoldReport asks = Scaffold(Write("rankarg2.cu", with_size), "rankarg2", {});
  EXPECT_FALSE(asks.harness_ready);
  EXPECT_NE(asks.harness_reason.find("reads argv[2] (`int n = atoi(argv[2]);`) with no default"), std::string::npos)
      << asks.harness_reason;
}

// A mode read from the command line with no default (`int choice = atoi(argv[1]);`, yichez16's
// nccl_test) picks between two loops: the harness's reason names the argument to give first, then
// the loops it would otherwise ask about. A file of GoogleTest tests, which has no main of its own,
// is named as such.
TEST_F(ScaffoldTest, ALoopPickedByAnArgumentNotGivenAsksForTheArgument) {
  const std::string text = R"(#include <nccl.h>
#include <cuda_runtime.h>
#include <cstdlib>
int main(int argc, char** argv) {
  int choice = atoi(argv[1]);
  int nDev = 2, devs[2] = {0, 1};
  ncclComm_t comms[2];
  float* buf[2];
  cudaStream_t s[2];
  ncclCommInitAll(comms, nDev, devs);
  ncclGroupStart();
  if (choice == 0) {
    for (int i = 0; i < nDev; ++i) ncclAllReduce(buf[i], buf[i], 1024, ncclFloat, ncclSum, comms[i], s[i]);
  } else {
    for (int i = 0; i < nDev; ++i) ncclBroadcast(buf[i], buf[i], 1024, ncclFloat, 0, comms[i], s[i]);
  }
  ncclGroupEnd();
  return 0;
}
)";
  ScaffoldReport r = Scaffold(Write("modearg.cu", text), "modearg", {});
  ASSERT_FALSE(r.harness_ready);
  EXPECT_NE(r.harness_reason.find("modearg.cu:5: the program reads argv[1] (`int choice = atoi(argv[1]);`) with no default"),
            std::string::npos) << r.harness_reason;
  EXPECT_NE(r.harness_reason.find("; without them: "), std::string::npos) << r.harness_reason;
  ScaffoldOptions o;
  o.args = "0";
  EXPECT_TRUE(Scaffold(Write("modearg2.cu", text), "modearg2", o).harness_ready);
  ScaffoldReport tests = Scaffold(Write("gtests.cu", R"(#include <nccl.h>
#include <gtest/gtest.h>
TEST(NCCL, AllReduce) {
  ncclComm_t comm;
  float* buf;
  ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, 0);
}
)"), "gtests", {});
  ASSERT_FALSE(tests.harness_ready);
  EXPECT_NE(tests.harness_reason.find("gtests.cu:3: no `main` defined here: the file holds GoogleTest tests (`TEST(NCCL, "
                                      "AllReduce)` first)"),
            std::string::npos) << tests.harness_reason;
}

// An MPI program (a process a GPU) whose loop starts a thread of its own that calls NCCL (1duo's
// mpi-nccl-tests, two communicators each driven by a std::thread): in the reference every rank is a
// thread, so the program's thread is spelled cuco_program::rank_thread and keeps its creator's rank
// (stop 81 on one H100: the emulated NCCL aborted on "a call from a thread that is not one of the
// program's ranks").
TEST_F(ScaffoldTest, AnMpiRanksOwnThreadCallingNcclKeepsItsRank) {
  const std::string program = Write("helper.cu", R"(#include <nccl.h>
#include <mpi.h>
#include <cuda_runtime.h>
#include <thread>
void reduce(float* x, int n, ncclComm_t comm, cudaStream_t s) {
  ncclAllReduce(x, x, n, ncclFloat, ncclSum, comm, s);
  cudaStreamSynchronize(s);
}
int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclUniqueId id2;
  if (rank == 0) ncclGetUniqueId(&id2);
  MPI_Bcast(&id2, sizeof id2, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm, comm2;
  ncclCommInitRank(&comm, size, id, rank);
  ncclCommInitRank(&comm2, size, id2, rank);
  cudaStream_t s, s2;
  cudaStreamCreate(&s);
  cudaStreamCreate(&s2);
  float *x, *y;
  cudaMalloc(&x, 1024 * sizeof(float));
  cudaMalloc(&y, 1024 * sizeof(float));
  for (int i = 0; i < 10; ++i) {
    std::thread t(&reduce, y, 1024, comm2, s2);
    reduce(x, 1024, comm, s);
    t.join();
  }
  MPI_Finalize();
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program, "helper");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  for (const char* side : {"seed.cu", "reference.cu"}) {
    const std::string text = Read(root_ / "helper" / "harness" / side);
    EXPECT_NE(text.find("cuco_program::rank_thread t(&reduce, y, 1024, comm2, s2);"), std::string::npos) << text;
    EXPECT_EQ(text.find("#define CUCO_PROGRAM_PROJECTED"), std::string::npos) << text;
  }
}

// An MPI program (a process a GPU) taking its GPU count as an argument and ending when MPI's rank
// count differs (hpcgroup's gpu-benchmarks): the count given is the rank count, and the harness
// passes its own there, so the check holds at every rank count.
TEST_F(ScaffoldTest, AnMpiProgramsGpuCountCheckedAgainstItsRanksIsTheHarnesssRankCount) {
  const std::string program = Write("mpin.cu", R"(#include <nccl.h>
#include <mpi.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
int main(int argc, char** argv) {
  if (argc != 3) return 1;
  int num_gpus = atoi(argv[1]);
  int count = atoi(argv[2]);
  int rank, num_pes;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &num_pes);
  if (num_pes != num_gpus) { fprintf(stderr, "one process a GPU\\n"); MPI_Finalize(); return 1; }
  ncclUniqueId id;
  if (rank == 0) ncclGetUniqueId(&id);
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t comm;
  cudaSetDevice(rank);
  ncclCommInitRank(&comm, num_pes, id, rank);
  float *in, *out;
  cudaMalloc(&in, count * sizeof(float));
  cudaMalloc(&out, count * num_pes * sizeof(float));
  for (int i = 0; i < 10; ++i) {
    ncclAllGather(in, out, count, ncclFloat, comm, 0);
    cudaDeviceSynchronize();
  }
  MPI_Finalize();
  return 0;
}
)");
  ScaffoldOptions o;
  o.args = "2 4096";
  ScaffoldReport r = Scaffold(program, "mpin", o);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.launcher, "mpirun");
  EXPECT_EQ(r.world_size, 2);
  EXPECT_EQ(r.world_size_source, "mpin.cu:8: `num_gpus` from argv[1], given 2");
  const std::string seed = Read(root_ / "mpin" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("  args.push_back(cuco_world.data());\n"), std::string::npos) << seed;
  EXPECT_EQ(seed.find("\"2\""), std::string::npos) << "the given count is not passed as it is";
}

TEST_F(ScaffoldTest, ProgramWithoutMpiOrConstants) {
  ScaffoldOptions o;
  o.name = "rs_layer";
  ScaffoldReport r = Scaffold(kSource + "/tests/analyze/reducescatter_cublaslt.cu", "rs", o);
  Result<WorkloadConfig> w = LoadWorkload(root_ / "rs");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->name, "rs_layer");
  EXPECT_EQ(w->seed_file, "reducescatter_cublaslt.cu");
  EXPECT_EQ(w->program->launcher, "cuco");  // no MPI_Init
  EXPECT_EQ(w->build_libs, (std::vector<std::string>{"cublasLt", "nccl"}));
  EXPECT_EQ(w->world_size, 2);
  EXPECT_TRUE(r.world_size_source.empty());
  EXPECT_FALSE(r.time_regex_guessed);
  EXPECT_FALSE(r.pass_regex_guessed);
  const std::string toml = Read(root_ / "rs" / "workload.toml");
  EXPECT_NE(toml.find("CUCO_RENDEZVOUS_DIR"), std::string::npos);
  EXPECT_NE(toml.find("TODO(cuco init): no timing line found"), std::string::npos) << toml;
  bool todo_world = false, todo_main = false;
  for (const auto& t : r.todos) {
    todo_world |= t.find("world_size") != std::string::npos;
    todo_main |= t.find("reducescatter_cublaslt.cu defines no main()") != std::string::npos;
  }
  EXPECT_TRUE(todo_world);
  EXPECT_TRUE(todo_main);

  Result<WorkloadConfig> h = LoadWorkload(root_ / "rs" / "harness");
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_TRUE(h->bench_sizes.empty());  // no constants: the TODO says to name them
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"w", "x", "residual"}));
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"out_slice"}));
  const std::string seed = Read(root_ / "rs" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("move the kernel (reducescatter_cublaslt.cu:17)"), std::string::npos) << seed;
  EXPECT_NE(seed.find("void* d = nullptr;"), std::string::npos) << "L.d is scratch";
  EXPECT_TRUE(SplitEvolveBlocks(seed, "seed.cu").ok());
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok());
}

// A helper's own host vector, copied into a device buffer each pass, is neither a buffer of the
// iteration nor main's to bind: host sides of copies are not device buffers, and a helper's locals
// are not main's names.
// The set-up of a one-rank program's main (its communicator `comm`, its stream `s`), for the
// programs the tests below write.
constexpr const char* kOneRankSetup =
    "  ncclUniqueId id;\n  ncclGetUniqueId(&id);\n  ncclComm_t comm;\n  ncclCommInitRank(&comm, 1, id, 0);\n"
    "  cudaStream_t s;\n  cudaStreamCreate(&s);\n";

TEST_F(ScaffoldTest, AHelpersHostVectorIsNoBufferOfTheIteration) {
  const std::string program = Write("ring.cu", R"(#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
static void reset(float* stat, float* out, size_t n, cudaStream_t s) {
  std::vector<float> mx(n, -1e30f);
  cudaMemcpyAsync(stat, mx.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);
  cudaMemsetAsync(out, 0, n * sizeof(float), s);
  cudaStreamSynchronize(s);
}
__global__ void add(float* out, float* stat, const float* x, size_t n) {
  size_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { out[i] += x[i]; stat[i] = fmaxf(stat[i], x[i]); }
}
int main(int argc, char** argv) {
  const size_t n = 4096;
)" + std::string(kOneRankSetup) + R"(  float *x, *stat, *out;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&stat, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  std::vector<float> host(n, 1.f);
  for (int it = 0; it < 10; ++it) {
    reset(stat, out, n, s);
    cudaMemcpyAsync(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice, s);
    add<<<16, 256, 0, s>>>(out, stat, x, n);
    ncclAllReduce(out, out, n, ncclFloat, ncclSum, comm, s);
  }
  cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost);
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.inputs, std::vector<std::string>{});
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"stat", "out"}));
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_EQ(seed.find("cuco_bind.input(\"mx\""), std::string::npos) << seed;
  EXPECT_EQ(seed.find("cuco_bind.input(\"host\""), std::string::npos) << seed;
}

// A timed loop that writes a log file each pass cannot be served: candidates may not write files.
// init says so at the program's own line, and writes the skeleton (never a seed its deny-list refuses).
TEST_F(ScaffoldTest, AnIterationWritingAFileIsASkeletonSayingWhere) {
  const std::string program = Write("logged.cu", R"(#include <fstream>
#include <cuda_runtime.h>
#include <nccl.h>
int main(int argc, char** argv) {
  const size_t n = 4096;
)" + std::string(kOneRankSetup) + R"(  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  for (int it = 0; it < 10; ++it) {
    ncclAllReduce(x, y, n, ncclFloat, ncclSum, comm, s);
    std::ofstream log("run.log", std::ios_base::app);
    log << it << std::endl;
  }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  EXPECT_FALSE(r.harness_ready);
  EXPECT_NE(r.harness_reason.find("logged.cu:17: the iteration cuco init would serve uses 'ofstream'"), std::string::npos)
      << r.harness_reason;
  EXPECT_NE(r.harness_reason.find("--loop file:line"), std::string::npos) << r.harness_reason;
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
}

// A private member of the object whose method the loop calls is bound through the object (the
// layer's weights, `layer.w_`), its class's members made public in the harness's copies.
TEST_F(ScaffoldTest, AClassMemberIsBoundThroughItsObject) {
  ScaffoldReport r = Scaffold(kSource + "/tests/analyze/class_layer.cu");
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"layer_w", "x"}));
  EXPECT_EQ(r.outputs, std::vector<std::string>{"y"});
  for (const char* file : {"seed.cu", "reference.cu"}) {
    const std::string text = Read(root_ / "wl" / "harness" / file);
    EXPECT_NE(text.find("public /* cuco init: was private */:\n  int in_, out_;"), std::string::npos) << file;
  }
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("cuco_bind.input(\"layer_w\", layer.w_);"), std::string::npos) << seed;
}

// main times nothing itself: the loop of the function it calls once to time the layer is the
// iteration, served where it stands, its buffers named by that function's parameters.
TEST_F(ScaffoldTest, TheTimedLoopOfAFunctionMainCallsOnce) {
  const std::string program = Write("bench.cu", R"(#include <cuda_runtime.h>
#include <nccl.h>
__global__ void scale(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
static void step(const float* x, float* y, int n, ncclComm_t comm, cudaStream_t s) {
  scale<<<(n + 255) / 256, 256, 0, s>>>(y, x, n);
  ncclAllReduce(y, y, n, ncclFloat, ncclSum, comm, s);
}
static float benchmark(const float* in, float* out, int n, ncclComm_t comm, cudaStream_t s, int iters) {
  for (int i = 0; i < 3; ++i) step(in, out, n, comm, s);
  for (int i = 0; i < iters; ++i) step(in, out, n, comm, s);
  cudaStreamSynchronize(s);
  return 0.f;
}
int main() {
  const int n = 1 << 16;
)" + std::string(kOneRankSetup) + R"(  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  benchmark(x, y, n, comm, s, 20);
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.inputs, std::vector<std::string>{"in"});
  EXPECT_EQ(r.outputs, std::vector<std::string>{"out"});
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  const size_t bench = seed.find("static float benchmark(");
  const size_t serve = seed.find("cuco_program::serve(");
  EXPECT_LT(bench, serve);
  EXPECT_LT(serve, seed.find("int cuco_program_main(")) << seed;
  EXPECT_NE(Read(root_ / "wl" / "harness" / "README.md").find("the last loop of benchmark (which main calls once)"),
            std::string::npos);
}

// Per-layer weights in a std::vector of device pointers, indexed by the layer loop, in a process with
// one communicator: each entry is a buffer, bound on its own (binding the vector did not compile).
TEST_F(ScaffoldTest, AVectorOfPerLayerPointersIsBoundEntryByEntry) {
  const std::string program = Write("layers.cu", R"(#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
__global__ void mul(float* y, const float* x, const float* w, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * w[i];
}
int main() {
  const int n = 4096, layers = 3;
)" + std::string(kOneRankSetup) + R"(  std::vector<float*> weights(layers);
  for (int l = 0; l < layers; ++l) cudaMalloc(&weights[l], n * sizeof(float));
  float *x, *y;
  cudaMalloc(&x, n * sizeof(float));
  cudaMalloc(&y, n * sizeof(float));
  for (int it = 0; it < 10; ++it)
    for (int l = 0; l < layers; ++l) {
      mul<<<16, 256, 0, s>>>(y, x, weights[l], n);
      ncclAllReduce(y, y, n, ncclFloat, ncclSum, comm, s);
    }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"x", "weights_0", "weights_1", "weights_2"}));
  EXPECT_EQ(r.outputs, std::vector<std::string>{"y"});
  EXPECT_NE(Read(root_ / "wl" / "harness" / "seed.cu").find("cuco_bind.input(\"weights_2\", weights[2]);"),
            std::string::npos);
}

// Prefill ranks send, decode ranks receive and write the output: written only under an `if`, the
// output is bound as input and output, so a rank that skips it compares its input on both sides
// (bound as an output alone, a prefill rank's would be left poisoned: a wrong result).
TEST_F(ScaffoldTest, AnOutputWrittenOnlyUnderAnIfIsInout) {
  const std::string program = Write("kv.cu", R"(#include <cuda_runtime.h>
#include <nccl.h>
__global__ void attend(const float* kv, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 0.5f * kv[i];
}
int main(int argc, char** argv) {
  const int n = 4096, world = 2;
)" + std::string(kOneRankSetup) + R"(  int rank = 0; ncclCommUserRank(comm, &rank); float *kv, *out;
  cudaMalloc(&kv, n * sizeof(float));
  cudaMalloc(&out, n * sizeof(float));
  for (int step = 0; step < 10; ++step) {
    if (rank < world / 2) {
      ncclSend(kv, n, ncclFloat, rank + world / 2, comm, s);
    } else {
      ncclRecv(kv, n, ncclFloat, rank - world / 2, comm, s);
      attend<<<16, 256, 0, s>>>(kv, out, n);
    }
  }
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("cuco_bind.inout(\"out\", out);"), std::string::npos) << seed;
  EXPECT_NE(Read(root_ / "wl" / "harness" / "README.md").find("it is written only under an `if`, which a rank may skip"),
            std::string::npos);
}

// Written elsewhere (session 14's probes): sizes from argv and the environment, host timing and
// abort() in the loop, a lambda's local pointers into main's buffers, a for's own variable, swapped
// double buffers, a template kernel, a buffer the program checks on the host after the loop.
TEST_F(ScaffoldTest, ProgramsWrittenElsewhere) {
  const std::string program = Write("ring.cu", R"(#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>
#include <cuda_runtime.h>
#include <nccl.h>
#define CK(x) do { if ((x) != cudaSuccess) { std::fprintf(stderr, "%s\n", #x); std::abort(); } } while (0)
static void cuda_check(cudaError_t e) { if (e != cudaSuccess) abort(); }
template <int B> __global__ void scale(float* y, const float* x, int n) {
  int i = blockIdx.x * B + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 8192;
  const int chunks = getenv("PARTS") ? atoi(getenv("PARTS")) : 4;
)" + std::string(kOneRankSetup) + R"(  float *x, *y, *cur, *nxt, *sum;
  CK(cudaMalloc(&x, n * sizeof(float)));
  cuda_check(cudaMalloc(&y, n * sizeof(float)));
  cudaMalloc(&cur, n * sizeof(float));
  cudaMalloc(&nxt, n * sizeof(float));
  cudaMalloc(&sum, n * sizeof(float));
  std::vector<float*> parts(chunks);
  for (float* p : parts) cudaMemsetAsync(p, 0, 4, s);
  auto step = [&]() {
    for (int c = 0; c < chunks; ++c) {
      float* yc = y + c * (n / chunks);
      const float* xc = x + c * (n / chunks);
      scale<256><<<16, 256, 0, s>>>(yc, xc, n / chunks);
      ncclAllReduce(yc, yc, n / chunks, ncclFloat, ncclSum, comm, s);
    }
  };
  double total = 0;
  for (int it = 0; it < 10; ++it) {
    auto t0 = std::chrono::steady_clock::now();
    step();
    ncclSend(cur, n, ncclFloat, 0, comm, s);
    ncclRecv(nxt, n, ncclFloat, 0, comm, s);
    std::swap(cur, nxt);
    scale<128><<<16, 128, 0, s>>>(sum, y, n);
    ncclAllReduce(sum, sum, n, ncclFloat, ncclSum, comm, s);
    for (float* p : parts) ncclAllReduce(p, p, 1, ncclFloat, ncclSum, comm, s);
    CK(cudaStreamSynchronize(s));
    total += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::vector<float> h(n), g(n);
  cudaMemcpy(h.data(), sum, n * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(g.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost);
  std::printf("%f %f %f\n", h[0], g[0], total);
  return 0;
}
)");
  ScaffoldReport r = Scaffold(program);
  ASSERT_TRUE(r.harness_ready) << r.harness_reason;
  // The swapped pair: `cur` is sent (an input); `nxt` receives what the next pass sends as `cur`.
  // `y`, read by the last kernel after its writes and copied out after the loop: input and output.
  EXPECT_EQ(r.inputs, (std::vector<std::string>{"x", "y", "cur", "nxt"}));
  EXPECT_EQ(r.outputs, (std::vector<std::string>{"y_out", "nxt_out", "sum"}));
  const std::string seed = Read(root_ / "wl" / "harness" / "seed.cu");
  const std::string readme = Read(root_ / "wl" / "harness" / "README.md");
  EXPECT_EQ(seed.find("cuco_bind.input(\"xc\""), std::string::npos) << seed;  // the lambda's alias names x
  EXPECT_EQ(seed.find("\"p\""), std::string::npos) << seed;  // declared by a for before the loop and in it
  EXPECT_NE(readme.find("the next pass reads it through the swap); swapped with another pointer"), std::string::npos)
      << readme;
  EXPECT_NE(readme.find("copies it to the host after the loop"), std::string::npos) << readme;
  EXPECT_NE(readme.find("left out of the iteration: the harness times it"), std::string::npos) << readme;
  EXPECT_NE(seed.find("size_or(\"n\", 8192)"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_program::env_size(\"PARTS\", \"PARTS\", 4);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_program_abort()"), std::string::npos) << seed;
  EXPECT_EQ(seed.find("std::chrono::steady_clock::now() - t0"), std::string::npos) << seed;
  EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
}

TEST_F(ScaffoldTest, GuessesFromConstantsChecksAndOutput) {
  const std::string program = Write("tp_layer.cu", R"(// Run: ./tp_layer (no mpirun line here)
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <nccl.h>
#define HIDDEN 4096
#define TOKENS (2 * HIDDEN)
constexpr size_t kBytes = 1 << 20, kAlign = 256;
static const int kThreadsPerBlock = 128;
const int kIters = 50;
int main() {
  int rank = std::atoi(std::getenv("RANK")), world_size = std::atoi(std::getenv("WORLD_SIZE"));
  if (world_size != 4) { std::fprintf(stderr, "needs 4 ranks\n"); return 1; }
  ncclUniqueId id;
  ncclComm_t comm;
  ncclCommInitRank(&comm, world_size, id, rank);
  float* buf = nullptr;
  ncclAllReduce(buf, buf, TOKENS, ncclFloat, ncclSum, comm, 0);
  double us = 0;
  std::printf("elapsed %.2f us per iteration\n", us);
  std::cout << "check: " << (us > 0 ? "PASSED" : "FAILED") << std::endl;
  return 0;
}
)");
  // Scanned lexically, so harness/ is the skeleton, whose sizes and counts come from the constants.
  ScaffoldReport r = Scaffold(program, "wl", {}, /*lexical=*/true);
  Result<WorkloadConfig> w = LoadWorkload(root_ / "wl");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_FALSE(r.harness_ready);
  EXPECT_EQ(w->world_size, 4);
  EXPECT_NE(r.world_size_source.find("tp_layer.cu:13"), std::string::npos) << r.world_size_source;
  EXPECT_EQ(w->program->launcher, "cuco");
  EXPECT_EQ(w->build_libs, (std::vector<std::string>{"nccl"}));
  EXPECT_EQ(w->program->time_regex, R"(elapsed\s*([0-9.eE+-]+)\s*us)");
  EXPECT_EQ(w->program->pass_regex, R"(check:\s*PASSED)");
  EXPECT_EQ(w->program->fail_regex, R"(check:\s*FAILED)");
  bool unit_todo = false;
  for (const auto& t : r.todos) unit_todo |= t.find("a time in us; cuco reads milliseconds") != std::string::npos;
  EXPECT_TRUE(unit_todo);
  const std::string toml = Read(root_ / "wl" / "workload.toml");
  // It reads RANK and WORLD_SIZE, which cuco's launcher sets (torchrun's names): it runs as it is.
  EXPECT_NE(toml.find("RANK, WORLD_SIZE, LOCAL_RANK"), std::string::npos) << toml;
  EXPECT_EQ(toml.find("TODO(cuco init): tp_layer.cu does not call MPI_Init"), std::string::npos) << toml;
  for (const auto& t : r.todos) EXPECT_EQ(t.find("reads no rank"), std::string::npos) << t;

  Result<WorkloadConfig> h = LoadWorkload(root_ / "wl" / "harness");
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->bench_sizes,
            (std::map<std::string, int64_t>{{"HIDDEN", 4096}, {"TOKENS", 8192}, {"kBytes", int64_t{1} << 20}}));
  EXPECT_EQ(h->verify_sizes, (std::map<std::string, int64_t>{{"HIDDEN", 1024}, {"TOKENS", 1024}, {"kBytes", 1024}}));
  EXPECT_EQ(h->iters, 50);
  EXPECT_EQ(h->world_size, 4);
  EXPECT_DOUBLE_EQ(h->tol_rel_l2, 1e-4);  // fp32 placeholder (ncclFloat)
}

// One process driving every GPU (ncclCommInitAll; a thread per GPU) runs under the "single"
// launcher: started once with the GPUs visible, not once per rank, and no TODO about it.
TEST_F(ScaffoldTest, OneProcessDrivingEveryGpuRunsOnce) {
  const std::string init_all = Write("all.cu", kInitAll);
  ScaffoldReport r = Scaffold(init_all, "all");
  Result<WorkloadConfig> w = LoadWorkload(root_ / "all");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->program->launcher, "single");
  for (const auto& t : r.todos)
    if (t.rfind("harness/", 0) != 0) {
      EXPECT_EQ(t.find("ncclCommInitAll"), std::string::npos) << t;
    }
  EXPECT_NE(Read(root_ / "all" / "workload.toml").find("all.cu:7: ncclCommInitAll (one process drives every GPU)"),
            std::string::npos);

  const std::string threads = Write("threads.cu", R"(#include <nccl.h>
#include <thread>
#include <vector>
void worker(int rank, int world, ncclUniqueId id) {
  ncclComm_t comm;
  ncclCommInitRank(&comm, world, id, rank);
  float* buf = nullptr;
  ncclAllReduce(buf, buf, 1, ncclFloat, ncclSum, comm, 0);
}
int main() {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  std::vector<std::thread> ts;
  for (int r = 0; r < 2; ++r) ts.emplace_back(worker, r, 2, id);
  for (auto& t : ts) t.join();
  return 0;
}
)");
  Scaffold(threads, "threads");
  Result<WorkloadConfig> t = LoadWorkload(root_ / "threads");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->program->launcher, "single");
}

// torchrun's habit: the rank read from the environment by a helper of another file
// (`env_to_int("RANK", -1)`, its getenv on a variable) runs under cuco's launcher as it is.
TEST_F(ScaffoldTest, ARankReadThroughAnotherFilesHelperIsRead) {
  const std::string main = Write("run.cu", R"(#include <nccl.h>
int dist_rank();
int dist_world();
int main() {
  ncclUniqueId id;
  ncclComm_t comm;
  ncclCommInitRank(&comm, dist_world(), id, dist_rank());
  float* buf = nullptr;
  for (int i = 0; i < 10; ++i) ncclAllReduce(buf, buf, 1024, ncclFloat, ncclSum, comm, 0);
  return 0;
}
)");
  const std::string dist = Write("dist.cu", R"(#include <cstdlib>
static int env_to_int(const char* name, int fallback) {
  const char* v = getenv(name);
  return v ? std::atoi(v) : fallback;
}
int dist_rank() { return env_to_int("RANK", -1); }
int dist_world() { return env_to_int("WORLD_SIZE", -1); }
)");
  AnalyzeOptions o;
  o.allow_full = false;
  Result<Analysis> a = AnalyzeProgram({main, dist}, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ScaffoldOptions so;
  so.other_sources = {dist};
  Result<ScaffoldReport> r = ScaffoldWorkload(*a, main, root_ / "env", so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  Result<WorkloadConfig> w = LoadWorkload(root_ / "env");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->program->launcher, "cuco");
  for (const auto& t : r->todos) EXPECT_EQ(t.find("reads no rank"), std::string::npos) << t;
}

// A program over several files: the other sources and the headers in its folder are copied,
// [build] sources names the sources, and the seed cites each op in its own file.
TEST_F(ScaffoldTest, AProgramOverSeveralFilesIsCopiedWhole) {
  const std::string dir = std::string(CUCO_SOURCE_DIR) + "/tests/programs/tp_mlp_mpi";
  AnalyzeOptions o;
  o.allow_full = false;  // stub headers: the test does not depend on this machine's CUDA
  o.program_flags = {"-I" + std::string(CUCO_SOURCE_DIR) + "/tests/programs/common"};
  Result<Analysis> a = AnalyzeProgram({dir + "/main.cu", dir + "/mlp.cu"}, o);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ScaffoldOptions so;
  so.other_sources = {dir + "/mlp.cu"};
  so.compile_flags = o.program_flags;
  so.link_libraries = {"mpi", "nccl", "cublasLt", "m"};  // as its build line's -l flags would give them
  Result<ScaffoldReport> r = ScaffoldWorkload(*a, dir + "/main.cu", root_ / "tp", so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const char* f : {"main.cu", "mlp.cu", "mlp.h"}) EXPECT_TRUE(fs::exists(root_ / "tp" / f)) << f;
  Result<WorkloadConfig> w = LoadWorkload(root_ / "tp");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->build_sources, std::vector<std::string>{"mlp.cu"});
  // The build line's libraries are linked once each, beside those guessed from the calls.
  EXPECT_EQ(w->build_libs.back(), "m");
  EXPECT_EQ(std::count(w->build_libs.begin(), w->build_libs.end(), "cublasLt"), 1);
  EXPECT_EQ(std::count(w->build_libs.begin(), w->build_libs.end(), "nccl"), 1);
  Result<WorkloadConfig> h = LoadWorkload(root_ / "tp" / "harness");
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->build_libs.back(), "m");
  EXPECT_EQ(std::count(h->build_libs.begin(), h->build_libs.end(), "mpi"), 0);  // answered by cuco/program/mpi.h
  // It prints no verdict: its checksum line (main.cu:92) says it ran to its end.
  EXPECT_EQ(w->program->pass_regex, "checksum:");
  bool said = false;
  for (const auto& t : r->todos) said |= t.find("its checksum line (main.cu:92)") != std::string::npos;
  EXPECT_TRUE(said) << "the TODO says the checksum line stands for a verdict";
  EXPECT_EQ(w->build_flags.back(), o.program_flags[0]);
  // harness/: the program's files one after the other, the function issuing the all-reduce an EVOLVE block.
  const std::string seed = Read(root_ / "tp" / "harness" / "seed.cu");
  EXPECT_NE(seed.find("// ==== mlp.cu (the program's file) ===="), std::string::npos);
  EXPECT_NE(seed.find("// EVOLVE-BLOCK-START\nvoid mlp_forward("), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_bind.input(\"weights_w1\", weights.w1);"), std::string::npos) << seed;
  EXPECT_NE(seed.find("cuco_bind.output(\"y\", y);"), std::string::npos) << seed;
  EXPECT_TRUE(fs::exists(root_ / "tp" / "harness" / "mlp.h"));
}

// A program whose communication is a function of its own header (HALO_NCCL_lib's exchangeHalo in
// halo_lib.hpp): the header is inlined into seed.cu and reference.cu at its #include, the function an
// EVOLVE block in the seed, so that candidates and cuco transform's knobs reach the communication.
// Before, the header was only copied beside seed.cu, and its communication stayed frozen.
TEST_F(ScaffoldTest, ACommunicatingFunctionOfTheProgramsHeaderIsInTheBlocks) {
  fs::create_directories(root_ / "halo");
  const fs::path src = root_ / "halo" / "main.cu";
  std::ofstream(root_ / "halo" / "halo.h")
      << "#pragma once\n#include <nccl.h>\ninline void exchange(float* x, size_t n, ncclComm_t c, cudaStream_t s) {\n"
         "  ncclAllReduce(x, x, n, ncclFloat, ncclSum, c, s);\n}\n";
  std::ofstream(src) << "// #include \"halo.h\" (a comment)\n#include <mpi.h>\n#include <nccl.h>\n#include <cuda_runtime.h>\n"
                        "#include \"halo.h\"\n"
                        "__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 0.5f; }\n"
                        "int main(int argc, char** argv) {\n  MPI_Init(&argc, &argv);\n  int rank, size;\n"
                        "  MPI_Comm_rank(MPI_COMM_WORLD, &rank);\n  MPI_Comm_size(MPI_COMM_WORLD, &size);\n"
                        "  ncclUniqueId id;\n  if (rank == 0) ncclGetUniqueId(&id);\n"
                        "  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);\n  cudaSetDevice(rank);\n"
                        "  ncclComm_t comm;\n  ncclCommInitRank(&comm, size, id, rank);\n  cudaStream_t s;\n"
                        "  cudaStreamCreate(&s);\n  const int n = 1 << 20;\n  float* d_x;\n"
                        "  cudaMalloc(&d_x, n * sizeof(float));\n  for (int it = 0; it < 10; ++it) {\n"
                        "    scale<<<(n + 255) / 256, 256, 0, s>>>(d_x, n);\n    exchange(d_x, n, comm, s);\n  }\n"
                        "  cudaStreamSynchronize(s);\n  MPI_Finalize();\n}\n";
  Result<ScaffoldReport> r = ScaffoldWorkload(Analyze(src.string()), src.string(), root_ / "halo_wl", {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string seed = Read(root_ / "halo_wl" / "harness" / "seed.cu");
  const std::string reference = Read(root_ / "halo_wl" / "harness" / "reference.cu");
  EXPECT_NE(seed.find("// EVOLVE-BLOCK-START\ninline void exchange("), std::string::npos) << seed;
  EXPECT_NE(seed.find("// #include \"halo.h\" (a comment)\n"), std::string::npos) << "a comment stays one";
  EXPECT_EQ(seed.find("\n#include \"halo.h\""), std::string::npos) << seed;
  EXPECT_NE(reference.find("inline void exchange("), std::string::npos);
  EXPECT_EQ(reference.find("\n#include \"halo.h\""), std::string::npos);
  EXPECT_EQ(seed.find("#pragma once"), std::string::npos) << "the inlined header's own guard is dropped";

  // In a folder of its own, including a header beside it (llm.c's `llmc/encoder.cuh` and
  // "cuda_common.h"): that include is spelled from the harness's folder, where the seed compiles.
  fs::create_directories(root_ / "halo" / "lib");
  std::ofstream(root_ / "halo" / "lib" / "defs.h") << "#pragma once\nconstexpr int kPeers = 1;\n";
  std::ofstream(root_ / "halo" / "lib" / "halo.h")
      << "#pragma once\n#include <nccl.h>\n#include \"defs.h\"\n"
         "inline void exchange(float* x, size_t n, ncclComm_t c, cudaStream_t s) {\n"
         "  ncclAllReduce(x, x, n * kPeers, ncclFloat, ncclSum, c, s);\n}\n";
  std::string in_lib = Read(src);
  in_lib.replace(in_lib.find("\n#include \"halo.h\"") + 1, 17, "#include \"lib/halo.h\"");
  fs::remove(root_ / "halo" / "halo.h");
  std::ofstream(src) << in_lib;
  Result<ScaffoldReport> lib = ScaffoldWorkload(Analyze(src.string()), src.string(), root_ / "halo_lib_wl", {});
  ASSERT_TRUE(lib.ok()) << lib.status().ToString();
  const std::string lib_seed = Read(root_ / "halo_lib_wl" / "harness" / "seed.cu");
  EXPECT_NE(lib_seed.find("// EVOLVE-BLOCK-START\ninline void exchange("), std::string::npos) << lib_seed;
  EXPECT_NE(lib_seed.find("#include \"lib/defs.h\""), std::string::npos) << lib_seed;
  EXPECT_TRUE(fs::exists(root_ / "halo_lib_wl" / "harness" / "lib" / "defs.h"));
}

// `cuco run <program>` reuses a workload made from the same files, flags and libraries only: init
// records their hash (.cuco-inputs), and an edit, a flag or a library makes it "changed".
TEST_F(ScaffoldTest, AWorkloadRecordsWhatItWasMadeFrom) {
  const fs::path src = root_ / "prog.cu";
  fs::create_directories(root_);
  fs::copy_file(kSource + "/tests/analyze/allreduce_after_gemm.cu", src);
  ScaffoldOptions so;
  so.compile_flags = {"-DN=4"};
  Result<ScaffoldReport> r = ScaffoldWorkload(Analyze(src.string()), src.string(), root_ / "wl", so);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::string made = ProgramInputsHash({src.string()}, {"-DN=4"}, {});
  EXPECT_EQ(Read(root_ / "wl" / kInputsFile), made + "\n");
  EXPECT_EQ(StateOfProgramWorkload(root_ / "wl", made), ProgramWorkloadState::kCurrent);
  EXPECT_EQ(StateOfProgramWorkload(root_ / "none", made), ProgramWorkloadState::kNone);
  EXPECT_NE(ProgramInputsHash({src.string()}, {"-DN=8"}, {}), made);
  EXPECT_NE(ProgramInputsHash({src.string()}, {"-DN=4"}, {"cublas"}), made);
  // The user's choices count when given, and not otherwise.
  EXPECT_EQ(ProgramInputsHash({src.string()}, {"-DN=4"}, {}, "", ""), made);
  EXPECT_NE(ProgramInputsHash({src.string()}, {"-DN=4"}, {}, "prog.cu:12", ""), made);
  EXPECT_NE(ProgramInputsHash({src.string()}, {"-DN=4"}, {}, "", "4 128"), made);
  std::ofstream(src, std::ios::app) << "// edited\n";
  const std::string edited = ProgramInputsHash({src.string()}, {"-DN=4"}, {});
  std::string was;
  EXPECT_EQ(StateOfProgramWorkload(root_ / "wl", edited, &was), ProgramWorkloadState::kChanged);
  EXPECT_EQ(was, made);
}

TEST_F(ScaffoldTest, RefusesANonEmptyFolderUnlessForced) {
  const std::string program = kSource + "/tests/analyze/allreduce_after_gemm.cu";
  fs::create_directories(root_ / "busy");
  std::ofstream(root_ / "busy" / "notes.txt") << "mine";
  Analysis a = Analyze(program);
  Result<ScaffoldReport> r = ScaffoldWorkload(a, program, root_ / "busy");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find((root_ / "busy").string()), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("not empty"), std::string::npos);
  EXPECT_FALSE(fs::exists(root_ / "busy" / "workload.toml"));

  ScaffoldOptions force;
  force.force = true;
  r = ScaffoldWorkload(a, program, root_ / "busy", force);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Read(root_ / "busy" / "notes.txt"), "mine");  // others' files stay
  Result<WorkloadConfig> w = LoadWorkload(root_ / "busy");
  ASSERT_TRUE(w.ok()) << w.status().ToString();
  EXPECT_EQ(w->program->launcher, "mpirun");
  EXPECT_EQ(w->build_libs, (std::vector<std::string>{"nccl", "mpi"}));
  Result<WorkloadConfig> h = LoadWorkload(root_ / "busy" / "harness");
  ASSERT_TRUE(h.ok()) << h.status().ToString();

  // An empty existing folder is fine without --force; a file in the way is not.
  fs::create_directories(root_ / "empty");
  EXPECT_TRUE(ScaffoldWorkload(a, program, root_ / "empty").ok());
  std::ofstream(root_ / "afile") << "x";
  r = ScaffoldWorkload(a, program, root_ / "afile", force);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a folder"), std::string::npos);
}

TEST_F(ScaffoldTest, ProgramWithoutNcclIsRefused) {
  const std::string program = Write("plain.cu", R"(#include <cuda_runtime.h>
__global__ void twice(float* x) { x[threadIdx.x] *= 2; }
int main() {
  float* x = nullptr;
  cudaMalloc(&x, 1024);
  twice<<<1, 256>>>(x);
  cudaDeviceSynchronize();
  return 0;
}
)");
  Analysis a = Analyze(program);
  Result<ScaffoldReport> r = ScaffoldWorkload(a, program, root_ / "out");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find(program + ": no NCCL call found"), std::string::npos) << r.status().message();
  EXPECT_FALSE(fs::exists(root_ / "out"));

  Analysis with_nccl = Analyze(kSource + "/tests/analyze/allreduce_after_gemm.cu");
  r = ScaffoldWorkload(with_nccl, (root_ / "missing.cu").string(), root_ / "out");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(r.status().message().find("missing.cu: cannot read the program"), std::string::npos) << r.status().message();
}

TEST_F(ScaffoldTest, BadNameIsRefused) {
  ScaffoldOptions o;
  o.name = "my workload";
  const std::string program = kSource + "/tests/analyze/allreduce_after_gemm.cu";
  Result<ScaffoldReport> r = ScaffoldWorkload(Analyze(program), program, root_ / "x", o);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("--name 'my workload'"), std::string::npos);
  EXPECT_EQ(SanitizeWorkloadName("my workload!"), "my_workload");
  EXPECT_EQ(SanitizeWorkloadName("..."), "workload");
  EXPECT_EQ(SanitizeWorkloadName("gemm-rs.v2"), "gemm-rs.v2");
}

// Every corpus program scaffolds into folders that load and a seed the deny-list accepts; a header
// of its own it includes is copied into both.
TEST_F(ScaffoldTest, WholeCorpusScaffolds) {
  for (const auto& e : fs::directory_iterator(kSource + "/tests/analyze")) {
    if (e.path().extension() != ".cu") continue;
    SCOPED_TRACE(e.path().string());
    const std::string out = e.path().stem().string();
    ScaffoldReport r = Scaffold(e.path().string(), out);
    const std::string text = Read(e.path());
    size_t own_headers = 0;
    for (size_t at = text.find("#include \""); at != std::string::npos; at = text.find("#include \"", at + 1)) ++own_headers;
    EXPECT_EQ(r.files.size(), 7u + 2 * own_headers);
    EXPECT_TRUE(LoadWorkload(root_ / out).ok());
    EXPECT_TRUE(LoadWorkload(root_ / out / "harness").ok());
    const std::string seed = Read(root_ / out / "harness" / "seed.cu");
    EXPECT_TRUE(CheckDenyList(seed, "seed.cu").ok()) << CheckDenyList(seed, "seed.cu").message();
  }
}

}  // namespace
}  // namespace cuco
