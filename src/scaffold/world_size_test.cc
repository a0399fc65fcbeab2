// GuessWorldSize: the world size a program checks for, and numbers too long to be one.
#include "scaffold/world_size.h"

#include <gtest/gtest.h>

#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

WorldGuess Guess(const std::string& raw) {
  const std::string code = StripComments(raw);
  return GuessWorldSize(raw, code, "p.cu", FindConstants(code), WorldSizeVariables(code));
}

TEST(WorldSizeTest, ACheckOfTheSizeVariableWins) {
  const WorldGuess g = Guess("int main() {\n  int world;\n  MPI_Comm_size(MPI_COMM_WORLD, &world);\n"
                             "  if (world != 4) return 1;\n}\n");
  EXPECT_EQ(g.size, 4);
  EXPECT_EQ(g.source, "p.cu:4: `world != 4`");
}

// A check of the world's rank (`worldRank == 2`, a group of ranks 0 and 2) is no world size.
TEST(WorldSizeTest, ACheckOfARankOfTheWorldIsNoWorldSize) {
  const WorldGuess g = Guess("int main() {\n  int worldRank, worldSize;\n  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);\n"
                             "  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);\n  int c = (worldRank == 0 || worldRank == 2) ? 0 : 1;\n}\n");
  EXPECT_EQ(g.source, "");
}

// A program naming no rank count that refuses fewer than 3 (ReCCL-experiments' two groups, ranks 0
// and 1 and ranks 0 and 2) runs at 4, said with the refusal; one refusing nothing keeps the default.
TEST(WorldSizeTest, TheDefaultTheProgramRefusesGivesWayToTheFewerOfFourAndEight) {
  const std::string code = "int main() {\n  int worldSize;\n  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);\n"
                           "  if (worldSize < 3) {\n    return 1;\n  }\n}\n";
  const WorldGuess g = FewestNotRefused(code, "p.cu", WorldSizeVariables(code), WorldGuess{});
  EXPECT_EQ(g.size, 4);
  EXPECT_EQ(g.source, "p.cu:4: `worldSize < 3`, which refuses 2 ranks: the fewer of 4 and 8 it runs at");
  const std::string accepting = "int main() {\n  int w;\n  MPI_Comm_size(MPI_COMM_WORLD, &w);\n}\n";
  EXPECT_EQ(FewestNotRefused(accepting, "p.cu", WorldSizeVariables(accepting), WorldGuess{}).size, 2);
}

// The GPU count a process gives NCCL for each of its GPUs' communicators, with the communicator a
// container's element (`&comms.at(i)`, guo-ran/CudaTest: taken for no count, and run at 1 rank).
TEST(WorldSizeTest, TheRankCountGivenToNcclBesideAContainersElement) {
  const WorldGuess g = Guess("int main() {\n  int n_gpu = 2;\n  ncclGroupStart();\n"
                             "  for (int i = 0; i < n_gpu; ++i) ncclCommInitRank(&comms.at(i), n_gpu, id, i);\n}\n");
  EXPECT_EQ(g.size, 2);
  EXPECT_TRUE(g.fixed);
  EXPECT_NE(g.source.find("p.cu:4: `ncclCommInitRank(&comms.at(i), n_gpu,"), std::string::npos) << g.source;
}

TEST(WorldSizeTest, ANumberTooLongForAnIntIsNoWorldSize) {
  // Was an uncaught std::out_of_range from std::stoi: cuco init aborted.
  const WorldGuess g = Guess("int main() {\n  int world;\n  MPI_Comm_size(MPI_COMM_WORLD, &world);\n"
                             "  if (world == 99999999999) return 1;\n  // mpirun -np 123456789012 ./p\n}\n");
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.source, "");
}

// NCCL 1's tests check `argc - 3 != nDev` (the GPU list's length) and document `mpirun -np 4` in a
// comment: neither is a world size (cuco init took 3 from the first).
TEST(WorldSizeTest, NeitherACommentNorAnArithmeticOperandIsAWorldSize) {
  const WorldGuess g = Guess("// run: mpirun -np 4 ./p\nint main(int argc, char** argv) {\n  int nDev = 1;\n"
                             "  ncclCommCount(c, &nDev);\n  if (argc - 3 != nDev) return 1;\n  if (nDev != 2 * k) return 1;\n}\n");
  EXPECT_EQ(g.size, 2);
  EXPECT_EQ(g.source, "");
  // A launch line the program prints is its own.
  const WorldGuess p = Guess("int main() {\n  printf(\"usage: mpirun -np 4 ./p\\n\");\n}\n");
  EXPECT_EQ(p.size, 4);
  EXPECT_EQ(p.source, "p.cu:2: `mpirun -np 4`");
}

// jinho-choi123/nccl-tutorial's st_md: `int nDev = GPU_COUNT;` in main, `#define GPU_COUNT 2` in a header.
TEST(WorldSizeTest, AConstantInTheProgramsHeaderWhenMainNamesNone) {
  EXPECT_EQ(Guess("#include \"utils.hpp\"\nint main() { int nDev = GPU_COUNT; }\n").source, "");
  const std::string main_code = "int main() { int nDev = GPU_COUNT; }\n";
  const WorldGuess g = WorldSizeInOtherFiles(
      main_code, {{"allReduce.cpp", "void allReduce() {}\n"},
       {"include/utils.hpp", StripComments("#pragma once\n// the GPUs\n#define GPU_COUNT 2\n#define BUFFER_SIZE 32\n")}},
      {});
  EXPECT_EQ(g.size, 2);
  EXPECT_TRUE(g.fixed);
  EXPECT_EQ(g.source, "include/utils.hpp:3: #define GPU_COUNT = 2");
  EXPECT_EQ(WorldSizeInOtherFiles(main_code, {{"a.h", "#define BUFFER_SIZE 32\n"}}, {}).source, "");
  // Its mt_md: the header defines GPU_COUNT 4 and nothing reads it (MPI gives the ranks).
  EXPECT_EQ(WorldSizeInOtherFiles("int main() {}\n", {{"utilsMPI.hpp", "#define GPU_COUNT 4\n"}}, {}).source, "");
}

// A GPU count read from the command line, given with `cuco init --args`: its position and value.
// Not one: an argument that is no whole number, a position not given, a variable not named like
// a rank count.
// A GPU count an MPI program checks against MPI_Comm_size's count is that count (hpcgroup's
// gpu-benchmarks: `if (num_pes != num_gpus)` ends the program). Not one: no equality with a rank
// count the program asks for, or the variable compared with itself.
TEST(WorldSizeTest, AGpuCountComparedWithTheRankCount) {
  EXPECT_TRUE(ComparedWithTheRankCount("if (num_pes != num_gpus) {\n", "num_gpus", {"num_pes"}));
  EXPECT_TRUE(ComparedWithTheRankCount("assert(nranks==ngpus);\n", "ngpus", {"nranks"}));
  EXPECT_FALSE(ComparedWithTheRankCount("if (num_gpus < 2) {\n", "num_gpus", {"num_pes"}));
  EXPECT_FALSE(ComparedWithTheRankCount("if (num_pes != num_gpus_per_node) {\n", "num_gpus", {"num_pes"}));
  EXPECT_FALSE(ComparedWithTheRankCount("if (num_gpus != 2) {\n", "num_gpus", {"num_gpus"}));
}

// A rank count read from the arguments and handed to ncclCommInitRank (a program bootstrapping
// without MPI: `./prog <rank> <nranks>`) is the rank count; a count handed to a communicator of its
// own position is not another variable's.
// A process mesh checked against the rank count (`if (tp_rows * tp_cols != world_size)`, both
// options declared with their defaults): the product, fixed. Undeclared factors say nothing.
TEST(WorldSizeTest, AMeshOfTwoDefaultsCheckedAgainstTheRankCount) {
  const std::string code =
      "int main(int argc, char** argv) {\n  int tp_rows = 2, tp_cols = 2;\n"
      "  for (int i = 1; i < argc; ++i) if (!strcmp(argv[i], \"--tp-rows\")) tp_rows = atoi(argv[++i]);\n"
      "  MPI_Comm_size(MPI_COMM_WORLD, &world_size);\n"
      "  if (tp_rows * tp_cols != world_size) return 1;\n}\n";
  const WorldGuess g = GuessWorldSize(code, code, "mesh.cu", {}, {"world_size"});
  EXPECT_EQ(g.size, 4);
  EXPECT_TRUE(g.fixed);
  EXPECT_EQ(g.source, "mesh.cu:5: `tp_rows * tp_cols != world_size` (tp_rows = 2, tp_cols = 2, as declared)");
  std::string unknown = code;
  unknown.replace(unknown.find("int tp_rows = 2, tp_cols = 2;"), 29, "int tp_rows = rows(), tp_cols = 2;");
  EXPECT_EQ(GuessWorldSize(unknown, unknown, "mesh.cu", {}, {"world_size"}).source, "");
}

TEST(WorldSizeTest, ARankCountGivenToNcclCommInitRank) {
  const std::string code = "int nranks = atoi(argv[2]);\nncclCommInitRank(&comm, nranks, id, rank);\n";
  EXPECT_TRUE(GivenToNcclAsTheRankCount(code, "nranks"));
  EXPECT_TRUE(GivenToNcclAsTheRankCount("CHECK(ncclCommInitRank(&comms.at(i), n, id, r));", "n"));
  EXPECT_FALSE(GivenToNcclAsTheRankCount(code, "rank"));
  EXPECT_FALSE(GivenToNcclAsTheRankCount(code, ""));
}

// janilbols-w/dl_distribution_examples starts `nThreads` threads, one a GPU, its count read from argv[1]
// and handed to each thread in a struct whose member is the communicator's rank count: whatever its
// name, it is the rank count, which the harness passes there.
TEST(WorldSizeTest, ACountStoredInAMemberGivenToNcclIsTheWorld) {
  const std::string code = R"(void run(Info gInfo) {
  ncclCommInitRank(&comm, gInfo.nDev, *(gInfo.ncclId), gInfo.rank);
}
int main(int argc, char* argv[]) {
  int nThreads = 2;
  if (argc > 1) nThreads = (int)strtol(argv[1], NULL, 10);
  for (int t = 0; t < nThreads; ++t) { Info gInfo; gInfo.nDev = nThreads; ths[t] = std::thread(run, gInfo); }
}
)";
  EXPECT_TRUE(GivenToNcclAsTheRankCount(code, "nThreads"));
  EXPECT_FALSE(GivenToNcclAsTheRankCount(code, "t"));
  const ArgumentWorld w = WorldFromArguments(code, "t.cu", {"2", "0"}, {});
  EXPECT_EQ(w.position, 1);
  EXPECT_EQ(w.variable, "nThreads");
}

TEST(WorldSizeTest, AGpuCountFromTheArgumentsGiven) {
  const std::string code = "int num_gpus = 1;\nint batch = atoi(argv[3]);\nif (fused) num_gpus = (argc > 2) ? atoi(argv[2]) : 3;\n";
  const ArgumentWorld w = WorldFromArguments(code, "p.cu", {"--fused", "4", "512"}, {});
  EXPECT_EQ(w.position, 2);
  EXPECT_EQ(w.guess.size, 4);
  EXPECT_EQ(w.guess.source, "p.cu:3: `num_gpus` from argv[2], given 4");
  EXPECT_EQ(WorldFromArguments(code, "p.cu", {"--fused", "four"}, {}).position, 0);
  EXPECT_EQ(WorldFromArguments(code, "p.cu", {"--fused"}, {}).position, 0);
  EXPECT_EQ(WorldFromArguments("int batch = atoi(argv[1]);\n", "p.cu", {"4"}, {}).position, 0);
  EXPECT_EQ(WorldFromArguments("int n = std::stoi(argv[1]);\n", "p.cu", {"4"}, {"n"}).position, 1);  // MPI_Comm_size's
  // Every parser the constants' analysis knows (IsIntegerParser), unsigned ones included.
  EXPECT_EQ(WorldFromArguments("size_t ngpus = strtoul(argv[1], NULL, 10);\n", "p.cu", {"2"}, {}).position, 1);
  EXPECT_TRUE(IsIntegerParser("strtoull"));
  EXPECT_FALSE(IsIntegerParser("atof"));
}

// A ping-pong between rank 0 and the last rank (HicrestLaboratory/Blink-GPU's pp_Nccl.cu: `int rank2 =
// size-1;`, rank 0 sending to it): at one rank the last rank is rank 0, which would send to itself with
// no receive posted (stop 81 on one H100: the emulation said so), so it runs at two at least. A peer
// computed otherwise from the size (`size - 1 - rank`) is no last rank.
TEST(WorldSizeTest, TheLastRankNamedAsAPeerNeedsTwoRanks) {
  const std::string code = StripComments(
      "int main() {\n  int size;\n  MPI_Comm_size(MPI_COMM_WORLD, &size);\n  int rank2 = size-1;\n"
      "  if (rank == 0) send(rank2);\n  else if (rank == rank2) recv(0);\n}\n");
  const auto constants = FindConstants(code);
  EXPECT_EQ(LeastWorldForNamedRanks(code, "pp.cu", constants, {{"rank2", "ncclSend", 5}, {"0", "ncclRecv", 6}}, {"size"}).least, 2);
  EXPECT_EQ(LeastWorldForNamedRanks(code, "pp.cu", constants, {{"size - 1", "ncclSend", 5}}, {"size"}).least, 2);
  EXPECT_EQ(LeastWorldForNamedRanks(code, "pp.cu", constants, {{"size - 1 - rank", "ncclSend", 5}}, {"size"}).least, 1);
  EXPECT_EQ(LeastWorldForNamedRanks(code, "pp.cu", constants, {{"rank2", "ncclSend", 5}}, {}).least, 1);  // no world size known
}

// A program that names no rank count but sends to rank 4 (Ryb7532/myNCCL's mptomp.cu: `int root = 4;`,
// then `ncclSend(..., root, comm, s)`) needs 5 ranks; a peer computed from the rank, a variable set
// more than once, and ranks 0 and 1 name nothing beyond the default size, though rank 1 is not at one rank.
TEST(WorldSizeTest, TheRanksACallNamesNeedThatManyRanks) {
  const std::string code = StripComments(
      "#define LAST 2\nint main() {\n  int root = 4;\n  int peer = 1;\n  peer = rank ^ 1;\n"
      "  if (myRank == root) {}\n  for (int r = 0; r < root; r++) {}\n}\n");
  const auto constants = FindConstants(code);
  const WorldGuess w = LeastWorldForNamedRanks(code, "p.cu", constants,
                                               {{"(rank + 1) % nranks", "ncclSend", 3}, {"root", "ncclSend", 7},
                                                {"peer", "ncclRecv", 8}, {"LAST", "ncclBroadcast", 9}, {"1", "ncclSend", 10}});
  EXPECT_EQ(w.size, 5);
  EXPECT_EQ(w.least, 5);
  EXPECT_EQ(w.source, "p.cu:7: ncclSend names rank 4 (`root`): at least 5 ranks");
  const WorldGuess none = LeastWorldForNamedRanks(code, "p.cu", constants, {{"peer", "ncclSend", 3}, {"1", "ncclRecv", 4}});
  EXPECT_EQ(none.size, 2);
  EXPECT_TRUE(none.source.empty());
  EXPECT_EQ(none.least, 2);  // rank 1 named: a ping to it runs at no fewer than two
  const WorldGuess only_zero = LeastWorldForNamedRanks(code, "p.cu", constants, {{"0", "ncclBroadcast", 3}});
  EXPECT_EQ(only_zero.least, 1);
  // A loop's variable (`for (int p = 1; p < nranks; ++p) ncclSend(..., p, ...)`) is no constant: runs at one rank.
  const std::string loop = StripComments("int main() {\n  for (int p = 1; p < nranks; ++p) send(p);\n}\n");
  EXPECT_EQ(LeastWorldForNamedRanks(loop, "p.cu", FindConstants(loop), {{"p", "ncclSend", 2}}).least, 1);
  // A peer set in each branch by rank (willie82486/TEST_NCCL_with_MPI, stop 69): rank 0 sends to
  // `PEER1`, 14, which receives from `PEER0`: at least 15 ranks, however many branches set it.
  const std::string branches = StripComments(
      "#define PEER0 0\n#define PEER1 14\nint main() {\n  if (r == PEER0) {\n    int peer = PEER1;\n    send(peer);\n"
      "  } else if (r == PEER1) {\n    int peer = PEER0;\n    recv(peer);\n  }\n}\n");
  const WorldGuess both = LeastWorldForNamedRanks(branches, "p.cu", FindConstants(branches),
                                                  {{"peer", "ncclSend", 6}, {"peer", "ncclRecv", 9}});
  EXPECT_EQ(both.least, 15);
  EXPECT_EQ(both.source, "p.cu:6: ncclSend names rank 14 (`peer`): at least 15 ranks");
}

// The rank count NCCL is given: a number, or a variable set once to one (FAS RC's single-node
// examples, `int nGPUs = 4; ... ncclCommInitAll(comms, nGPUs, DeviceList);`). Not one: a count
// MPI writes (`&nranks`), a variable set twice, a count from the arguments.
TEST(WorldSizeTest, TheRankCountNcclIsGiven) {
  const std::string code = "int main() {\n  int size = 4;\n  int nGPUs = 4;\n  ncclComm_t* comms = f(nGPUs);\n"
                           "  ncclCommInitAll(comms, nGPUs, DeviceList);\n}\n";
  const WorldGuess w = GuessWorldSize(code, code, "p.cu", {}, WorldSizeVariables(code));  // nGPUs among them
  EXPECT_EQ(w.size, 4);
  EXPECT_TRUE(w.fixed);
  EXPECT_EQ(w.source, "p.cu:5: `ncclCommInitAll(comms, nGPUs,...)` ranks for NCCL");
  EXPECT_EQ(GuessWorldSize("ncclCommInitRank(&c, 3, id, r);\n", "ncclCommInitRank(&c, 3, id, r);\n", "p.cu", {}, {}).size, 3);
  // A constant the program prints as `EP=%d` (charlespers/InferenceHackathon's ep_moe_sharded.cu,
  // stop 69): the literal sets nothing, and the count stays 8.
  const std::string printed = "constexpr int EP = 8;\nint main() {\n  printf(\"EP=%d; found %d\\n\", EP, n);\n"
                              "  ncclCommInitAll(comms.data(), EP, devs.data());\n}\n";
  EXPECT_EQ(GuessWorldSize(printed, printed, "p.cu", {}, {}).size, 8);
  for (const std::string other : {"int nranks = 1;\nMPI_Comm_size(MPI_COMM_WORLD, &nranks);\nncclCommInitRank(&c, nranks, id, r);\n",
                                  "int n = 2;\nif (big) n = 4;\nncclCommInitAll(comms, n, devs);\n",
                                  "int n = atoi(argv[1]);\nncclCommInitAll(comms, n, devs);\n"})
    EXPECT_EQ(GuessWorldSize(other, other, "p.cu", {}, WorldSizeVariables(other)).source, "") << other;
}

// A GPU count set again only while the program reads its command line (yianan261's logistic regression,
// stop 92: `int num_gpus = 1;`, `--fused <n>` setting it, ncclCommInitAll given it): started without
// arguments it makes a communicator of 1, the count cuco runs it at; before, "2 assumed".
TEST(WorldSizeTest, ACountSetOnlyWhileReadingArgumentsIsItsDefault) {
  const std::string code = StripComments(
      "int main(int argc, char** argv) {\n  int num_gpus = 1;\n  if (argc > 1) {\n"
      "    if (!strcmp(argv[1], \"--fused\")) { num_gpus = (argc > 2) ? atoi(argv[2]) : 3; }\n  }\n"
      "  ncclComm_t comms[8];\n  ncclCommInitAll(comms, num_gpus, devs);\n}\n");
  const WorldGuess w = GuessWorldSize(code, code, "p.cu", {}, WorldSizeVariables(code));
  EXPECT_EQ(w.size, 1);
  EXPECT_TRUE(w.fixed);
  EXPECT_EQ(w.source, "p.cu:7: `ncclCommInitAll(comms, num_gpus,...)` ranks for NCCL (num_gpus = 1 when it is started "
                      "without arguments)");
  // Given `--fused 2`, the count read from the arguments is the world (ReadRankArguments).
  EXPECT_EQ(WorldFromArguments(code, "p.cu", {"--fused", "2"}, WorldSizeVariables(code)).guess.size, 2);
}

// A grid of ranks read from the arguments and checked against MPI's count (luckychen/HALO_NCCL_lib:
// `gridWidth * gridHeight != numRanks`, each `atoi(argv[k])`): as given, the only count it runs at.
TEST(WorldSizeTest, AGridOfRanksGivenAsArguments) {
  const std::string code =
      "int main(int argc, char* argv[]) {\n  int gridWidth = atoi(argv[3]);\n  int gridHeight = atoi(argv[4]);\n"
      "  MPI_Comm_size(MPI_COMM_WORLD, &numRanks);\n  if (gridWidth * gridHeight != numRanks) return 1;\n}\n";
  const WorldGuess w = WorldFromArgumentMesh(code, "main.cu", {"1024", "1024", "2", "2", "2"}, {"numRanks"});
  EXPECT_EQ(w.size, 4);
  EXPECT_TRUE(w.fixed);
  EXPECT_EQ(w.source, "main.cu:5: `gridWidth * gridHeight != numRanks` (gridWidth = 2, gridHeight = 2, as given)");
  EXPECT_EQ(WorldFromArgumentMesh(code, "main.cu", {"1024", "1024", "2"}, {"numRanks"}).source, "");  // one not given
  std::string cells = code;  // a product compared with something else is no rank count
  cells.replace(cells.find("!= numRanks"), 11, "!= cells");
  EXPECT_EQ(WorldFromArgumentMesh(cells, "main.cu", {"1024", "1024", "2", "2"}, {"numRanks"}).source, "");
}

// A thread per GPU handed the rank count in a struct (jeng1220/cuda_examples' nccl_multithread:
// `data.num_threads = num_dev;` after `constexpr int num_dev = 8;`, each thread's
// `int nRanks = thread_ptr->num_threads;` given to ncclCommInitRank): 8, read through the member.
TEST(WorldSizeTest, ARankCountHandedToEachThreadInAStructMember) {
  const std::string code =
      "struct ThreadData { int num_threads; int thread_id; };\nvoid foo(void* ptr) {\n"
      "  auto* thread_ptr = reinterpret_cast<ThreadData*>(ptr);\n  int nRanks = thread_ptr->num_threads;\n"
      "  ncclCommInitRank(&comm, nRanks, id, thread_ptr->thread_id);\n}\nint main() {\n  constexpr int num_dev = 8;\n"
      "  std::vector<ThreadData> thread_data(num_dev);\n  for (int i = 0; i < num_dev; ++i) {\n"
      "    auto& data = thread_data[i];\n    data.num_threads = num_dev;\n    data.thread_id = i;\n  }\n}\n";
  const WorldGuess w = GuessWorldSize(code, code, "main.cpp", {}, {});
  EXPECT_EQ(w.size, 8);
  EXPECT_EQ(w.source, "main.cpp:5: `ncclCommInitRank(&comm, nRanks,...)` ranks for NCCL");
  // A member set twice is no one count.
  std::string twice = code;
  twice.replace(twice.find("data.thread_id = i;"), 19, "data.num_threads = 2;");
  EXPECT_EQ(GuessWorldSize(twice, twice, "main.cpp", {}, {}).source, "");
}

// A GPU count held in a file-scope global that an option sets and ncclCommInitAll is given
// (kopernik278/nccl-network-benchmark: `static int NG = 4;`, `if (a == "-g") NG = std::stoi(nx());`):
// the option is the program's rank count, never a size, and the harness passes its own with it.
TEST(WorldSizeTest, AnOptionSettingTheCountNcclCommInitAllIsGivenIsTheWorld) {
  const std::string code = StripComments(
      "static int NG = 4;\nint main(int argc, char** argv) {\n  for (int i = 1; i < argc; ++i) {\n"
      "    std::string a = argv[i];\n    auto nx = [&]() { return std::string(argv[++i]); };\n"
      "    if (a == \"-g\") NG = std::stoi(nx());\n  }\n  ncclCommInitAll(c.comm.data(), NG, DEV.data());\n}\n");
  const std::set<std::string> world_vars = WorldSizeVariables(code);
  EXPECT_EQ(world_vars.count("NG"), 1u);
  const std::vector<FoundConstant> constants = FindConstants(code);
  const ArgumentWorld w = WorldFromOption(constants, "p.cu", {}, world_vars);
  EXPECT_EQ(w.flag, "-g");
  EXPECT_EQ(w.guess.size, 4);
  for (const FoundConstant& c : constants)
    if (c.name == "-g") {
      EXPECT_EQ(ClassifyConstant(c, world_vars), ConstRole::kWorld);
    }
}

// A process's own communicator of one rank beside the world's (an MoE's expert-parallel world and
// `ncclCommInitRank(&dp_comm, 1, dp_id, 0)`, a data-parallel group of one) says nothing of the
// world's size; alone, one rank is the program's world.
TEST(WorldSizeTest, ACommunicatorOfOneRankBesideAnotherIsNotTheWorld) {
  const std::string two = "int main() {\n  MPI_Comm_size(MPI_COMM_WORLD, &world_size);\n  int ep = world_size;\n"
                          "  ncclCommInitRank(&ep_comm, ep, id, rank);\n  ncclCommInitRank(&dp_comm, 1, dp_id, 0);\n}\n";
  EXPECT_EQ(GuessWorldSize(two, two, "p.cu", {}, WorldSizeVariables(two)).source, "");
  const std::string with_four = "ncclCommInitRank(&self, 1, own, 0);\nncclCommInitRank(&c, 4, id, r);\n";
  EXPECT_EQ(GuessWorldSize(with_four, with_four, "p.cu", {}, {}).size, 4);
  const std::string alone = "ncclCommInitRank(&c, 1, id, 0);\n";
  EXPECT_EQ(GuessWorldSize(alone, alone, "p.cu", {}, {}).size, 1);
}

// cudaGetDeviceCount's variables (Mustafa-cuda-dev's `system_gpus`, refused below 2 GPUs): a rank
// count of a program one process runs on every GPU, so its refusals are read.
TEST(WorldSizeTest, TheDeviceCountOfAProgramDrivingEveryGpu) {
  const std::string code = StripComments(
      "int main() {\n  int system_gpus = 0;\n  CUDA_CHECK(cudaGetDeviceCount(&system_gpus));\n"
      "  if (system_gpus < 2) {\n    return EXIT_FAILURE;\n  }\n}\n");
  EXPECT_EQ(DeviceCountVariables(code), (std::set<std::string>{"system_gpus"}));
  const auto refused = RefusedWorldSizes(code, "p.cu", DeviceCountVariables(code), {1, 2, 4});
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused.at(1), "p.cu:4: `system_gpus < 2`");
  EXPECT_TRUE(RefusedWorldSizes(code, "p.cu", {}, {1, 2, 4}).empty()) << "not a rank count unless the launcher says";
}

// An assertion on the rank count (Healthcliff-Ding/nccl-test's `assert(world_size == 2)`) refuses
// every count where it does not hold; one naming something else decides nothing.
TEST(WorldSizeTest, AnAssertionOnTheRankCountRefusesTheOthers) {
  const std::string code = StripComments(
      "int main() {\n  int world_size;\n  MPI_Comm_size(MPI_COMM_WORLD, &world_size);\n"
      "  assert(world_size == 2);\n  assert(n > 0);\n}\n");
  const auto refused = RefusedWorldSizes(code, "p.cu", WorldSizeVariables(code), {1, 2, 4, 8});
  ASSERT_EQ(refused.size(), 3u);
  EXPECT_EQ(refused.at(1), "p.cu:4: `assert(world_size == 2)`");
  EXPECT_FALSE(refused.count(2));
}

TEST(WorldSizeTest, RankCountsTheProgramRefuses) {
  const std::string code = StripComments(
      "int main() {\n  int world_size;\n  MPI_Comm_size(MPI_COMM_WORLD, &world_size);\n"
      "  if (world_size % 2 != 0) {\n    fprintf(stderr, \"even\");\n    MPI_Abort(MPI_COMM_WORLD, 1);\n  }\n"
      "  if (world_size > 4 || world_size < 1) return 1;\n"
      "  if (world_size != n) return 1;\n"        // names something else: not read
      "  if (world_size == 2) printf(\"two\");\n"  // ends nothing
      "}\n");
  const auto refused = RefusedWorldSizes(code, "p.cu", WorldSizeVariables(code), {1, 2, 4, 8});
  ASSERT_EQ(refused.size(), 2u);
  EXPECT_EQ(refused.at(1), "p.cu:4: `world_size % 2 != 0`");
  EXPECT_EQ(refused.at(8), "p.cu:8: `world_size > 4 || world_size < 1`");
  // A part of an `||` over the rank count alone decides, whatever the other parts say (hpcgroup's
  // gpu-benchmarks: `num_gpus < 2 || min_msg_size <= 0 || ...` ends the program at one GPU); the
  // other parts alone decide nothing.
  const std::string mixed = StripComments(
      "int main(int argc, char** argv) {\n  int num_gpus = atoi(argv[1]);\n  int n = atoi(argv[2]);\n"
      "  if (num_gpus < 2 || n <= 0) { return 1; }\n  if (n > 4 || num_gpus == 3) return 1;\n}\n");
  const auto by_part = RefusedWorldSizes(mixed, "p.cu", {}, {1, 2, 3, 4});
  ASSERT_EQ(by_part.size(), 2u) << (by_part.empty() ? "" : by_part.begin()->second);
  EXPECT_EQ(by_part.at(1), "p.cu:4: `num_gpus < 2 || n <= 0`");
  EXPECT_EQ(by_part.at(3), "p.cu:5: `n > 4 || num_gpus == 3`");
}

}  // namespace
}  // namespace cuco::scaffold_internal
