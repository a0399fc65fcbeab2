#include "transform/program_transform.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "transform/generation0.h"
#include "util/files.h"
#include "workload/evolve_blocks.h"
#include "workload/knob_marks.h"
#include "workload/program_seed.h"
#include "util/testutil.h"

namespace cuco {
using testutil::Count;
namespace {

// A seed as cuco init writes it from a program: frozen set-up NCCL, the program's functions in blocks.
std::string ProgramSeed(const std::string& blocks) {
  return std::string(kProgramSeedInclude) +
         "\n#include <nccl.h>\n"
         "static void setup(float* w, ncclComm_t comm, cudaStream_t s) {\n"
         "  ncclBroadcast(w, w, 16, ncclFloat, 0, comm, s);  // frozen: the program's set-up\n"
         "}\n" +
         blocks + "int cuco_program_main(int, char**) { return 0; }\n";
}

const char* kBlocks =
    "// EVOLVE-BLOCK-START\n"
    "static void layer(float* y, ncclComm_t comm, cudaStream_t s, bool ring) {\n"
    "  NCCLCHECK(ncclAllReduce(y, y, ring ? 8 : 16, ncclFloat, ncclSum, comm, s));\n"
    "  ncclGroupStart();\n"
    "  ncclSend(y, 4, ncclFloat, 1, comm, s);\n"
    "  ncclRecv(y + 4, 4, ncclFloat, 1, comm, s);\n"
    "  ncclGroupEnd( );\n"
    "}\n"
    "// EVOLVE-BLOCK-END\n";

Result<RuleTransformResult> Transform(const std::string& seed) { return RuleTransform(seed, "seed.cu"); }

TEST(ProgramTransform, GivesEveryNcclCallInTheBlocksTheBackendKnob) {
  const std::string seed = ProgramSeed(kBlocks);
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->collectives, 3);
  EXPECT_EQ(Count(r->code, "NCCLCHECK(cuco_program::comm::AllReduce(kCucoBackend, y, y, ring ? 8 : 16,"), 1);
  EXPECT_EQ(Count(r->code, "cuco_program::comm::GroupStart(kCucoBackend);"), 1);
  EXPECT_EQ(Count(r->code, "cuco_program::comm::GroupEnd(kCucoBackend );"), 1);
  EXPECT_EQ(Count(r->code, "cuco_program::comm::Send(kCucoBackend, y, 4,"), 1);
  EXPECT_EQ(Count(r->code, "cuco_program::comm::Recv(kCucoBackend, y + 4, 4,"), 1);
  // The set-up outside the blocks keeps its host call; frozen code is byte for byte the seed's.
  EXPECT_EQ(Count(r->code, "  ncclBroadcast(w, w, 16"), 1);
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  // The knobs, marked at the program's own behaviour, and declared for workload.toml.
  auto marks = FindKnobMarks(r->code, "gen0.cu");
  ASSERT_TRUE(marks.ok()) << marks.status().message();
  const auto values = KnobValues(*marks);
  EXPECT_EQ(values.at("backend"), "nccl");
  EXPECT_EQ(values.at("graph"), "off");
  EXPECT_EQ(Count(r->code, "static const bool cuco_graph_knob = cuco_program::set_graph(kCucoGraph);"), 1);
  EXPECT_NE(r->knobs_toml.find("name = \"backend\""), std::string::npos);
  EXPECT_NE(r->knobs_toml.find("values = [\"off\", \"on\"]"), std::string::npos);
  EXPECT_NE(r->knobs_toml.find("values = [\"nccl\", \"lsa\", \"ce\"]"), std::string::npos)
      << "an all-reduce: its reduction by copy engines is offered\n" << r->knobs_toml;
  // The knobs come before the first call that reads them.
  EXPECT_LT(r->code.find("kCucoBackend = "), r->code.find("comm::AllReduce"));
  const std::string summary = FormatRuleTransform(*r, "seed.cu");
  EXPECT_NE(summary.find("seed.cu:8: ncclAllReduce -> cuco_program::comm::AllReduce(kCucoBackend, ...)"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("given the backend knob"), std::string::npos) << summary;
}

TEST(ProgramTransform, KnobsAtTheTopOfTheOneBlockHoldingEveryCall) {
  // main's timed loop issues the calls itself: the knobs are statements at the top of its block.
  // (The block at file scope comes after the call, so it cannot hold the knobs.)
  const std::string seed = ProgramSeed(
      "static void twice(float* y);\n"
      "int run(float* y, ncclComm_t comm, cudaStream_t s) {\n"
      "// EVOLVE-BLOCK-START\n"
      "  twice(y);\n  ncclAllReduce(y, y, 4, ncclFloat, ncclSum, comm, s);\n"
      "// EVOLVE-BLOCK-END\n  return 0;\n}\n"
      "// EVOLVE-BLOCK-START\nstatic void twice(float* y) {}\n// EVOLVE-BLOCK-END\n");
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const size_t knobs = r->code.find("constexpr const char* kCucoBackend");
  EXPECT_GT(knobs, r->code.find("int run("));
  EXPECT_LT(knobs, r->code.find("twice(y);"));
}

TEST(ProgramTransform, CallsNoOneDeclarationReachesAreRefused) {
  const std::string seed = ProgramSeed(
      "int run(float* y, ncclComm_t comm, cudaStream_t s) {\n"
      "// EVOLVE-BLOCK-START\n  ncclAllReduce(y, y, 4, ncclFloat, ncclSum, comm, s);\n// EVOLVE-BLOCK-END\n"
      "// EVOLVE-BLOCK-START\n  ncclAllReduce(y, y, 4, ncclFloat, ncclSum, comm, s);\n// EVOLVE-BLOCK-END\n"
      "  return 0;\n}\n");
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("seed.cu:8: ncclAllReduce is not where one declaration of the knobs can reach it"),
            std::string::npos)
      << r.status().message();
}

TEST(ProgramTransform, NothingToTransformIsSaid) {
  Result<RuleTransformResult> r =
      Transform(ProgramSeed("// EVOLVE-BLOCK-START\nstatic int twice(int x) { return 2 * x; }\n// EVOLVE-BLOCK-END\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no NCCL collective or send/recv inside the EVOLVE blocks"), std::string::npos)
      << r.status().message();
}

// A program communicating through CUDA-aware MPI alone: the knobs act on NCCL calls, and what is not
// done yet is said, naming its MPI call.
TEST(ProgramTransform, AProgramCommunicatingThroughMpiPointToPointIsToldWhy) {
  Result<RuleTransformResult> r = Transform(ProgramSeed(
      "// EVOLVE-BLOCK-START\nstatic void halo(float* a, int up, int down) {\n"
      "  MPI_Sendrecv(a, 4, MPI_FLOAT, up, 0, a + 4, 4, MPI_FLOAT, down, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);\n}\n"
      "// EVOLVE-BLOCK-END\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the program communicates through MPI (MPI_Sendrecv at line 8)"), std::string::npos)
      << r.status().message();
  EXPECT_NE(r.status().message().find("point-to-point calls already move by NCCL in the candidate"), std::string::npos);
}

// A CUDA-aware MPI program's collectives on device memory take the backend knob, "mpi" (its own
// calls) by default; one whose buffer is host memory as written (`&local`) stays as it is.
TEST(ProgramTransform, AProgramsMpiCollectivesOnDeviceMemoryTakeTheBackendKnob) {
  const std::string seed = ProgramSeed(
      "// EVOLVE-BLOCK-START\nstatic void step(float* d_grad, float* d_w, int n, float* out) {\n"
      "  MPI_Allreduce(MPI_IN_PLACE, d_grad, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n"
      "  MPI_Bcast((void*)d_w, n, MPI_FLOAT, 0, MPI_COMM_WORLD);\n"
      "  float local = 1.0f, total = 0.0f;\n"
      "  MPI_Allreduce(&local, &total, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n"
      "  *out = total;\n}\n"
      "// EVOLVE-BLOCK-END\n");
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "constexpr const char* kCucoBackend = \"mpi\";"), 1) << r->code;
  EXPECT_EQ(Count(r->code, "cuco_program::mpi_comm::Allreduce(kCucoBackend, MPI_IN_PLACE, d_grad,"), 1) << r->code;
  EXPECT_EQ(Count(r->code, "cuco_program::mpi_comm::Bcast(kCucoBackend, (void*)d_w,"), 1);
  EXPECT_EQ(Count(r->code, "  MPI_Allreduce(&local, &total,"), 1);  // host memory: the program's own
  EXPECT_EQ(r->collectives, 2);
  EXPECT_NE(r->knobs_toml.find("values = [\"mpi\", \"lsa\", \"ce\"]\ndefault = \"mpi\""), std::string::npos)
      << r->knobs_toml;
  EXPECT_NE(r->knobs_toml.find("every MPI collective the backend knob moves"), std::string::npos);
  EXPECT_NE(FormatRuleTransform(*r, "seed.cu").find("2 MPI collective(s) of your program given the backend knob (mpi | lsa | "
                                                   "ce)"),
            std::string::npos);
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
}

// Only host memory in the blocks' MPI collectives: nothing the knob moves, and the refusal says so.
TEST(ProgramTransform, AProgramWhoseMpiCollectivesMoveHostMemoryIsToldWhy) {
  Result<RuleTransformResult> r = Transform(ProgramSeed(
      "// EVOLVE-BLOCK-START\nstatic float sum(std::vector<float>& v) {\n"
      "  MPI_Allreduce(MPI_IN_PLACE, v.data(), 4, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);\n  return v[0];\n}\n"
      "// EVOLVE-BLOCK-END\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("its collectives in the blocks move host memory (MPI_Allreduce at line 8 "
                                      "(`v.data()`))"),
            std::string::npos)
      << r.status().message();
}

// The communication in a file the harness keeps as it is (a header the program includes):
// generation 0 routes it through the backend knob from the knobs' lines, naming the file and line.
TEST(ProgramTransform, CommunicationInAnIncludedHeaderTakesTheBackendKnob) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cuco_pt_frozen_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "_up/util");
  ASSERT_TRUE(WriteFileAtomic(dir / "_up/util/comm.h", "#pragma once\n// ncclSend(x) in a comment\n"
                                                          "inline void ex(float* b, ncclComm_t c, cudaStream_t s) {\n"
                                                          "  ncclSend(b, 4, ncclFloat, 1, c, s);\n"
                                                          "  ncclAllReduce(b, b, 4, ncclFloat, ncclSum, c, s);\n}\n").ok());
  const std::string seed = ProgramSeed("#include \"_up/util/comm.h\"\n// EVOLVE-BLOCK-START\nstatic int twice(int x) { return 2 * x; }\n// EVOLVE-BLOCK-END\n");
  ASSERT_TRUE(WriteFileAtomic(dir / "seed.cu", seed).ok());
  Result<RuleTransformResult> r = RuleTransform(seed, (dir / "seed.cu").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "static const bool cuco_included_calls = cuco_program::comm::RouteIncluded(kCucoBackend);"), 1)
      << r->code;
  EXPECT_LT(r->code.find("kCucoBackend = \"nccl\""), r->code.find("RouteIncluded(kCucoBackend)"));
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  EXPECT_NE(r->knobs_toml.find("\"ce\"]"), std::string::npos);  // the header's all-reduce is a reduction
  const std::string said = FormatRuleTransform(*r, (dir / "seed.cu").string());
  EXPECT_NE(said.find("the NCCL calls of the files the program includes (ncclSend at _up/util/comm.h:4, ncclAllReduce at "
                      "_up/util/comm.h:5) and of its set-up take the backend knob too"),
            std::string::npos)
      << said;
  // A header beside the seed that it does not include is not the program's.
  const std::string unincluded = ProgramSeed("// EVOLVE-BLOCK-START\nstatic int twice(int x) { return 2 * x; }\n// EVOLVE-BLOCK-END\n");
  ASSERT_TRUE(WriteFileAtomic(dir / "seed.cu", unincluded).ok());
  EXPECT_FALSE(RuleTransform(unincluded, (dir / "seed.cu").string()).ok());
  std::filesystem::remove_all(dir);
}

TEST(ProgramTransform, RefusesASeedThatMarksTheSameKnob) {
  Result<RuleTransformResult> r = Transform(ProgramSeed(
      "// EVOLVE-BLOCK-START\nconstexpr int kGraph = 1;  // cuco:knob graph\n"
      "static void f(float* y, ncclComm_t c, cudaStream_t s) { ncclAllReduce(y, y, 1, ncclFloat, ncclSum, c, s); }\n"
      "// EVOLVE-BLOCK-END\n"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("seed.cu:7: the seed already marks a knob `graph`"), std::string::npos)
      << r.status().message();
}

// A row-parallel layer as users write it: a GEMM helper, then the all-reduce of its output.
const char* kGemmThenAllReduce =
    "// EVOLVE-BLOCK-START\n"
    "static void gemm(cublasHandle_t h, int m, int n, const float* A, float* C) {\n"
    "  const float one = 1.f, zero = 0.f;\n"
    "  CUBLASCHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, m, n, &one, A, n, A, n, &zero, C, n));\n"
    "}\n"
    "static void layer(cublasHandle_t h, float* z, ncclComm_t comm, cudaStream_t s) {\n"
    "  for (int l = 0; l < 2; ++l) {\n"
    "    gemm(h, 8, 8, z, z);\n"
    "    NCCLCHECK(ncclAllReduce(z, z, 64, ncclFloat, ncclSum, comm, s));\n"
    "  }\n"
    "}\n"
    "// EVOLVE-BLOCK-END\n";

TEST(ProgramTransform, AGemmBeforeTheCollectiveReadingItGivesTheChunksKnob) {
  const std::string seed = ProgramSeed(kGemmThenAllReduce);
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  // The producer line gets the Producer, at its indentation; the GEMM its stand-in.
  EXPECT_EQ(Count(r->code, "\n    cuco_program::overlap::Producer cuco_producer_14(kCucoChunks, z);\n    gemm(h, 8, 8, z, z);"),
            1)
      << r->code;
  EXPECT_EQ(Count(r->code, "CUBLASCHECK(cuco_program::overlap::Sgemm(h, CUBLAS_OP_N,"), 1);
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  auto marks = FindKnobMarks(r->code, "gen0.cu");
  ASSERT_TRUE(marks.ok()) << marks.status().message();
  EXPECT_EQ(KnobValues(*marks).at("chunks"), "1");
  EXPECT_LT(r->code.find("kCucoChunks = "), r->code.find("Producer cuco_producer_14"));
  EXPECT_NE(r->knobs_toml.find("name = \"chunks\""), std::string::npos);
  EXPECT_NE(r->knobs_toml.find("values = [\"1\", \"2\", \"4\", \"8\"]"), std::string::npos);
  const std::string summary = FormatRuleTransform(*r, "seed.cu");
  EXPECT_NE(summary.find("seed.cu:13: the chunks knob's producer of `z`, which ncclAllReduce (line 14) reads"),
            std::string::npos)
      << summary;
}

// One thread driving every GPU: the GEMMs' loop, then the grouped loop of all-reduces reading them.
TEST(ProgramTransform, TheLoopOfGemmsBeforeTheGroupedLoopOfAllReducesGivesTheChunksKnob) {
  const std::string seed = ProgramSeed(
      "// EVOLVE-BLOCK-START\n"
      "static void step(cublasHandle_t* h, float** y, ncclComm_t* comm, cudaStream_t* s, int n) {\n"
      "  const float one = 1.f, zero = 0.f;\n"
      "  for (int r = 0; r < n; ++r) {\n"
      "    cudaSetDevice(r);\n"
      "    cublasSgemm(h[r], CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, y[r], 8, y[r], 8, &zero, y[r], 8);\n"
      "  }\n"
      "  NCCLCHECK(ncclGroupStart());\n"
      "  for (int r = 0; r < n; ++r) NCCLCHECK(ncclAllReduce(y[r], y[r], 64, ncclFloat, ncclSum, comm[r], s[r]));\n"
      "  NCCLCHECK(ncclGroupEnd());\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n");
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const std::string& w : r->warnings) EXPECT_EQ(w.find("gets no chunks knob"), std::string::npos) << w;
  EXPECT_EQ(Count(r->code, "\n  cuco_program::overlap::Producer cuco_producer_14(kCucoChunks, nullptr);\n  for (int r = 0;"), 1)
      << r->code;
  EXPECT_EQ(Count(r->code, "\n    cuco_producer_14.Arm(y[r]);\n    cuco_program::overlap::Sgemm(h[r],"), 1) << r->code;
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  EXPECT_NE(r->knobs_toml.find("name = \"chunks\""), std::string::npos);
  EXPECT_NE(FormatRuleTransform(*r, "seed.cu").find("reads in the loop after its loop"), std::string::npos);
}

// A sequence-parallel layer: the all-gather, then the GEMM reading what it gathered.
TEST(ProgramTransform, AGemmAfterTheAllGatherOfItsInputGivesTheGatherKnob) {
  const std::string seed = ProgramSeed(
      "// EVOLVE-BLOCK-START\n"
      "static void layer(cublasHandle_t h, float* x, float* full, float* w, float* y, ncclComm_t comm, cudaStream_t s) {\n"
      "  const float one = 1.f, zero = 0.f;\n"
      "  NCCLCHECK(ncclAllGather(x, full, 64, ncclFloat, comm, s));\n"
      "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 16, 8, &one, w, 8, full, 8, &zero, y, 8);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n");
  Result<RuleTransformResult> r = Transform(seed);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "\n  cuco_program::overlap::Consumer cuco_consumer_9(kCucoGather, full);\n  NCCLCHECK("), 1)
      << r->code;
  EXPECT_EQ(Count(r->code, "cuco_program::overlap::Sgemm(h, CUBLAS_OP_N,"), 1);
  EXPECT_LT(r->code.find("kCucoGather = \"off\""), r->code.find("Consumer cuco_consumer_9"));
  EXPECT_EQ(r->code.find("kCucoChunks"), std::string::npos);  // no collective reads a GEMM's output
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  EXPECT_NE(r->knobs_toml.find("name = \"gather\""), std::string::npos);
  EXPECT_EQ(r->knobs_toml.find("name = \"chunks\""), std::string::npos);
  // The copy engines move all-gathers too (ce_collectives.h: the gather knob's steps), never in a graph.
  EXPECT_NE(r->knobs_toml.find("values = [\"nccl\", \"lsa\", \"ce\"]"), std::string::npos) << r->knobs_toml;
  EXPECT_NE(r->knobs_toml.find("knobs = { backend = \"ce\", graph = \"on\" }"), std::string::npos);
  const std::string said = FormatRuleTransform(*r, "seed.cu");
  EXPECT_NE(said.find("the gather knob's consumer of `full`, which the call at line 10 reads"), std::string::npos) << said;
  EXPECT_NE(said.find("backend (\"nccl\" | \"lsa\" | \"ce\"), graph (\"off\" | \"on\"), gather (\"off\" | \"on\") and comm_ctas (\"all\" | \"64\" | \"32\" | "
                      "\"16\"), at the program's own behaviour (nccl, off, off, all)"),
            std::string::npos) << said;
}

TEST(ProgramTransform, NoChunksKnobWithoutAGemmItCanSplit) {
  std::string blocks = kGemmThenAllReduce;
  blocks.replace(blocks.find("cublasSgemm"), 11, "my_own_gemm");
  Result<RuleTransformResult> r = Transform(ProgramSeed(blocks));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->code.find("kCucoChunks"), std::string::npos);
  EXPECT_EQ(r->knobs_toml.find("chunks"), std::string::npos);
  bool said = false;
  for (const std::string& w : r->warnings) said |= w.find("no chunks or gather knob: the EVOLVE blocks call none of") != std::string::npos;
  EXPECT_TRUE(said);
}

// Without a reducing call (sends and receives only), the copy engines' reductions are not offered.
TEST(ProgramTransform, NoCopyEngineBackendWithoutAReduction) {
  const std::string blocks =
      "// EVOLVE-BLOCK-START\n"
      "static void hand_over(float* y, ncclComm_t comm, cudaStream_t s) {\n"
      "  ncclGroupStart();\n"
      "  ncclSend(y, 4, ncclFloat, 1, comm, s);\n"
      "  ncclRecv(y + 4, 4, ncclFloat, 1, comm, s);\n"
      "  ncclGroupEnd();\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = Transform(ProgramSeed(blocks));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_NE(r->knobs_toml.find("values = [\"nccl\", \"lsa\"]"), std::string::npos) << r->knobs_toml;
  EXPECT_EQ(r->knobs_toml.find("\"ce\""), std::string::npos) << r->knobs_toml;
  EXPECT_EQ(FormatRuleTransform(*r, "seed.cu").find("| \"ce\""), std::string::npos);
}

// The part knob and its variants: what `cuco bench` times for the program's overlap bound. With the
// GEMM stand-ins there is a communication-alone part too. The workload.toml they make loads.
TEST(ProgramTransform, ThePartKnobGivesTheBoundsVariants) {
  Result<RuleTransformResult> r = Transform(ProgramSeed(kGemmThenAllReduce));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "constexpr const char* kCucoPart = \"none\";      // cuco:knob part\n"
                           "[[maybe_unused]] static const bool cuco_part_knob = cuco_program::set_part(kCucoPart);"),
            1);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cuco-part-knob-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::copy(std::filesystem::path(CUCO_SOURCE_DIR) / "tests/workloads/cpu_matmul", dir,
                        std::filesystem::copy_options::recursive);
  auto toml = ReadFile(dir / "workload.toml");
  ASSERT_TRUE(toml.ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "workload.toml", toml->substr(0, toml->find("[[knobs]]"))).ok());  // its own knobs out
  ASSERT_TRUE(WriteFileAtomic(dir / "gen0_transformed.cc", r->code).ok());
  WorkloadConfig wl;
  Status set = SetGeneration0(dir / "workload.toml", "gen0_transformed.cc", r->knobs_toml, &wl);
  ASSERT_TRUE(set.ok()) << set.message() << "\n" << r->knobs_toml;
  // The copy-engine backend (offered: the program all-reduces) never runs inside the graph knob's capture;
  // comm_ctas changes only backend lsa's code, so nccl and ce at a limit are left out.
  ASSERT_EQ(wl.excluded.size(), 7u) << r->knobs_toml;
  EXPECT_EQ(wl.excluded.back().knobs, (std::map<std::string, std::string>{{"backend", "ce"}, {"graph", "on"}}));
  EXPECT_NE(wl.ExclusionOf({{"backend", "ce"}, {"graph", "on"}, {"chunks", "2"}}), nullptr);
  EXPECT_EQ(wl.ExclusionOf({{"backend", "lsa"}, {"graph", "on"}}), nullptr);
  EXPECT_NE(wl.ExclusionOf({{"backend", "nccl"}, {"comm_ctas", "32"}}), nullptr);
  EXPECT_NE(wl.ExclusionOf({{"backend", "ce"}, {"comm_ctas", "16"}}), nullptr);
  EXPECT_EQ(wl.ExclusionOf({{"backend", "lsa"}, {"comm_ctas", "16"}, {"chunks", "4"}}), nullptr);
  EXPECT_EQ(wl.FindKnob("comm_ctas")->values, (std::vector<std::string>{"all", "64", "32", "16"}));
  const Knob* part = wl.FindKnob("part");
  ASSERT_NE(part, nullptr);
  EXPECT_FALSE(part->search) << "the builtin proposer never sets it";
  EXPECT_EQ(part->values, (std::vector<std::string>{"none", "compute", "comm"}));
  std::map<std::string, std::string> parts;
  for (const Variant& v : wl.variants) {
    parts[v.name] = v.part;
    // Each part as written and in a graph: the bound takes the fastest of each.
    EXPECT_EQ(v.knobs.at("part"), v.part) << v.name;
    const bool graph = v.name.ends_with("_graph");
    EXPECT_EQ(v.knobs.contains("graph") ? v.knobs.at("graph") : "", graph ? "on" : "") << v.name;
  }
  EXPECT_EQ(parts, (std::map<std::string, std::string>{{"compute_alone", "compute"},
                                                       {"comm_alone", "comm"},
                                                       {"compute_alone_graph", "compute"},
                                                       {"comm_alone_graph", "comm"}}));
  std::filesystem::remove_all(dir);
  // Without a GEMM cuco stands in for, only the compute part.
  std::string blocks = kGemmThenAllReduce;
  blocks.replace(blocks.find("cublasSgemm"), 11, "my_own_gemm");
  Result<RuleTransformResult> plain = Transform(ProgramSeed(blocks));
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_NE(plain->knobs_toml.find("name = \"compute_alone\""), std::string::npos);
  EXPECT_EQ(plain->knobs_toml.find("comm_alone"), std::string::npos);
}

// A GEMM that no knob splits (here fed by a broadcast, as in SUMMA's panel loop) still calls its
// stand-in, so that the communication can be timed without it: the bound's comm_alone part.
TEST(ProgramTransform, AGemmNoKnobSplitsStillGivesTheCommAlonePart) {
  const std::string blocks =
      "// EVOLVE-BLOCK-START\n"
      "static void panel(cublasHandle_t h, const float* a, float* b, float* c, ncclComm_t comm, cudaStream_t s) {\n"
      "  const float one = 1.0f;\n"
      "  ncclBroadcast(b, b, 64, ncclFloat, 0, comm, s);\n"
      "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, b, 8, &one, c, 8);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = Transform(ProgramSeed(blocks));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "cuco_program::overlap::Sgemm(h, CUBLAS_OP_N,"), 1) << r->code;
  EXPECT_EQ(r->code.find("kCucoChunks"), std::string::npos);
  EXPECT_EQ(r->knobs_toml.find("name = \"chunks\""), std::string::npos) << r->knobs_toml;
  EXPECT_NE(r->knobs_toml.find("name = \"comm_alone\""), std::string::npos) << r->knobs_toml;
  EXPECT_NE(FormatRuleTransform(*r, "seed.cu").find("compute_alone and comm_alone"), std::string::npos);
}

// The collective behind a function of the program: a class's method all-reducing its parameter, in a
// header the harness keeps as it is (qingyunqu/Learn-Programming's NCCLOverlap, held out in stop 72),
// called right after the GEMM writing what it reads. The GEMM gets the Producer; the header's call
// takes the chunks once routed through the knob.
TEST(ProgramTransform, AGemmBeforeAWrapperOfTheCollectiveGivesTheChunksKnob) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cuco_pt_wrap_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomic(dir / "comm.h", "#pragma once\n"
                                             "class Comm {\n public:\n"
                                             "  void allReduce(void* data, size_t count, ncclDataType_t t, ncclRedOp_t op) {\n"
                                             "    NCCLCHECK(ncclAllReduce(data, data, count, t, op, m_comm, m_stream));\n"
                                             "  }\n  ncclComm_t m_comm;\n  cudaStream_t m_stream;\n};\n").ok());
  const std::string seed = ProgramSeed(
      "#include \"comm.h\"\n"
      "// EVOLVE-BLOCK-START\n"
      "static void layer(cublasHandle_t h, Comm* comm, float* z) {\n"
      "  const float one = 1.f, zero = 0.f;\n"
      "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, z, 8, z, 8, &zero, z, 8);\n"
      "  comm->allReduce(z, 64, ncclFloat, ncclSum);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n");
  ASSERT_TRUE(WriteFileAtomic(dir / "seed.cu", seed).ok());
  Result<RuleTransformResult> r = RuleTransform(seed, (dir / "seed.cu").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "  cuco_program::overlap::Producer cuco_producer_11(kCucoChunks, z);\n"
                           "  cuco_program::overlap::Sgemm(h,"), 1) << r->code;
  EXPECT_EQ(Count(r->code, "RouteIncluded(kCucoBackend)"), 1);
  EXPECT_NE(r->knobs_toml.find("name = \"chunks\""), std::string::npos);
  EXPECT_TRUE(CheckFrozenCode(seed, "seed.cu", r->code, "gen0").ok());
  const std::string said = FormatRuleTransform(*r, (dir / "seed.cu").string());
  EXPECT_NE(said.find("the chunks knob's producer of `z`, which allReduce (line 11; ncclAllReduce at comm.h:5) reads"),
            std::string::npos) << said;
  // The same call with the GEMM's output not its argument: no knob, and the reason names the wrapper.
  std::string other = seed;
  other.replace(other.find("comm->allReduce(z,"), 18, "comm->allReduce(w,");
  other.replace(other.find("float* z)"), 9, "float* z, float* w)");
  ASSERT_TRUE(WriteFileAtomic(dir / "seed.cu", other).ok());
  Result<RuleTransformResult> o = RuleTransform(other, (dir / "seed.cu").string());
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_EQ(o->code.find("kCucoChunks"), std::string::npos);
  bool said_why = false;
  for (const std::string& w : o->warnings)
    said_why |= w.find("seed.cu:11: allReduce (ncclAllReduce at comm.h:5) gets no chunks knob: the statement before it "
                       "(line 10) does not name `w`") != std::string::npos;
  EXPECT_TRUE(said_why) << FormatRuleTransform(*o, "seed.cu");
  std::filesystem::remove_all(dir);
}

// A lambda of the blocks wrapping the all-reduce: its call after the GEMM takes the chunks; the
// lambda's own all-reduce (the blocks', rewritten) needs no routing and says no warning.
TEST(ProgramTransform, ALambdaWrappingTheCollectiveInTheBlocks) {
  const std::string blocks =
      "// EVOLVE-BLOCK-START\n"
      "static void layer(cublasHandle_t h, float* z, ncclComm_t comm, cudaStream_t s) {\n"
      "  const float one = 1.f, zero = 0.f;\n"
      "  auto all_reduce = [&](float* y) { NCCLCHECK(ncclAllReduce(y, y, 64, ncclFloat, ncclSum, comm, s)); };\n"
      "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, z, 8, z, 8, &zero, z, 8);\n"
      "  all_reduce(z);\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  Result<RuleTransformResult> r = Transform(ProgramSeed(blocks));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "cuco_program::overlap::Producer cuco_producer_11(kCucoChunks, z);"), 1) << r->code;
  EXPECT_EQ(r->code.find("RouteIncluded"), std::string::npos);
  for (const std::string& w : r->warnings) EXPECT_EQ(w.find("gets no chunks knob"), std::string::npos) << w;
}

// The GEMM in a helper of the program's own header (`hgemm` in gemm.h, marcusalenius/15-418-project's
// layout, held out in stop 73), called by the blocks before the all-reduce of what it wrote: the
// chunks knob, its cuBLAS call being cuco's stand-in there (candidate_shims.h).
TEST(ProgramTransform, AGemmHelperOfAHeaderGivesTheChunksKnob) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cuco_pt_helper_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteFileAtomic(dir / "gemm.h", "#pragma once\n"
                                             "inline void gemm(cublasHandle_t h, const float* a, float* c) {\n"
                                             "  const float one = 1.f, zero = 0.f;\n"
                                             "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, a, 8, a, 8, &zero, c, 8);\n"
                                             "}\n").ok());
  const std::string blocks =
      "#include \"gemm.h\"\n"
      "// EVOLVE-BLOCK-START\n"
      "static void layer(cublasHandle_t h, float* z, ncclComm_t comm, cudaStream_t s) {\n"
      "  gemm(h, z, z);\n"
      "  NCCLCHECK(ncclAllReduce(z, z, 64, ncclFloat, ncclSum, comm, s));\n"
      "}\n"
      "// EVOLVE-BLOCK-END\n";
  const std::string seed = ProgramSeed(blocks);
  ASSERT_TRUE(WriteFileAtomic(dir / "seed.cu", seed).ok());
  Result<RuleTransformResult> r = RuleTransform(seed, (dir / "seed.cu").string());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(Count(r->code, "  cuco_program::overlap::Producer cuco_producer_10(kCucoChunks, z);\n  gemm(h, z, z);"), 1) << r->code;
  EXPECT_NE(r->knobs_toml.find("name = \"chunks\""), std::string::npos);
  EXPECT_NE(r->knobs_toml.find("name = \"comm_alone\""), std::string::npos);
  const std::string said = FormatRuleTransform(*r, "seed.cu");
  EXPECT_NE(said.find("the GEMMs of gemm, which the blocks call, are cuco's stand-ins where they are"), std::string::npos)
      << said;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuco
