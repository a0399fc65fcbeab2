// FindConstants, SizeName, ClassifyConstant: the integer constants of a program and their roles.
#include "scaffold/constants.h"

#include <gtest/gtest.h>

#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

// A string comparison's length beside an option's spelling (`strncmp(argv[i], "--help", 6)`, a
// parser of `--size=N` by prefix) is no option's default: passing `--help 6` would end the program.
TEST(ConstantsTest, AComparisonsLengthIsNoOptionDefault) {
  const std::string code = StripComments(
      "int main(int argc, char** argv) {\n"
      "  for (int i = 1; i < argc; i++) {\n"
      "    if (strncmp(argv[i], \"--help\", 6) == 0) return 0;\n"
      "    else if (std::string(argv[i]).rfind(\"--size=\", 0) == 0) size_mb = atoi(argv[i] + 7);\n"
      "  }\n"
      "  int iters = get_int_arg(argc, argv, \"--iters\", 20);\n"
      "}\n");
  const auto found = FindConstants(code);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "--iters");
  EXPECT_EQ(found[0].value, 20);
}

// An option loop comparing each argument with an option's name and parsing the next one: the
// variable's value before it is the option's default (marcusalenius/15-418-project's `--tp`, held
// out in stop 73), each option once.
TEST(ConstantsTest, AnOptionLoopsDefaults) {
  const std::string code = StripComments(
      "int main(int argc, char** argv) {\n"                                                        // 1
      "  int num_gpus = 1, tokens = 1024;\n"                                                       // 2
      "  int tp = 2;\n"                                                                            // 3
      "  for (int i = 1; i + 1 < argc; i += 2) {\n"                                               // 4
      "    if (std::strcmp(argv[i], \"--num-gpus\") == 0) num_gpus = std::atoi(argv[i + 1]);\n"   // 5
      "    else if (!strcmp(argv[i], \"--tokens\")) { tokens = atoi(argv[++i]); }\n"              // 6
      "    else if (strcmp(argv[i], \"--num-gpus\") == 0) num_gpus = atoi(argv[++i]);\n"          // 7
      "    else if (strcmp(argv[i], \"--name\") == 0) name = argv[++i];\n"                        // 8
      "  }\n"
      "  std::string arg = argv[1];\n"
      "  if (arg == \"--tp\") {\n    tp = std::stoi(require_arg(argc, argv, 2, arg));\n  }\n"   // 10-12
      "}\n");
  const auto found = FindConstants(code);
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "--num-gpus");
  EXPECT_EQ(found[0].value, 1);
  EXPECT_EQ(found[0].line, 5);
  EXPECT_TRUE(found[0].option);
  EXPECT_EQ(found[1].name, "--tokens");
  EXPECT_EQ(found[1].value, 1024);
  EXPECT_EQ(found[2].name, "--tp");
  EXPECT_EQ(found[2].value, 2);
  EXPECT_EQ(found[2].line, 11);
  EXPECT_TRUE(IsWorldName(found[0].name, {}));  // `--num-gpus`: a GPU count
}

TEST(ConstantsTest, DefinesConstsAndOptionDefaultsInSourceOrder) {
  const std::string code = StripComments(
      "#define N 4096  // bench size\n"                                 // 1
      "constexpr int M = 2 * N, K{512};\n"                              // 2
      "static const size_t kTile = 128;\n"                              // 3
      "int main(int argc, char** argv) {\n"                             // 4
      "  int64_t iters = get_arg(argc, argv, \"--iters\", 50);\n"       // 5
      "  const double alpha = 1.5;\n"                                   // 6
      "}\n");
  const auto found = FindConstants(code);
  ASSERT_EQ(found.size(), 5u);
  EXPECT_EQ(found[0].name, "N");
  EXPECT_EQ(found[0].value, 4096);
  EXPECT_EQ(found[0].line, 1);
  EXPECT_EQ(found[0].how, "#define");
  EXPECT_EQ(found[1].name, "M");
  EXPECT_EQ(found[1].value, 8192);  // from N, found earlier
  EXPECT_EQ(found[1].line, 2);
  EXPECT_EQ(found[1].how, "const");
  EXPECT_EQ(found[2].name, "K");
  EXPECT_EQ(found[2].value, 512);
  EXPECT_EQ(found[3].name, "kTile");
  EXPECT_EQ(found[3].line, 3);
  EXPECT_EQ(found[4].name, "--iters");
  EXPECT_EQ(found[4].value, 50);
  EXPECT_EQ(found[4].line, 5);
  EXPECT_EQ(found[4].how, "default of --iters");
  EXPECT_TRUE(found[4].option);
}

TEST(ConstantsTest, PositionalAndEnvironmentDefaults) {
  const std::string code = StripComments(
      "static int env_int(const char* n, int d) { const char* v = getenv(n); return v ? atoi(v) : d; }\n"  // 1
      "int main(int argc, char** argv) {\n"                                                              // 2
      "  Config cfg;\n"                                                                                  // 3
      "  cfg.tokens = argc > 1 ? std::atoi(argv[1]) : 8192;\n"                                           // 4
      "  int hidden = 4096, ffn = 4 * 4096;\n"                                                           // 5
      "  if (argc > 2) hidden = atoi(argv[2]);\n"                                                        // 6
      "  const int seq = getenv(\"SEQ\") ? atoi(getenv(\"SEQ\")) : 2048;\n"                          // 7
      "  const int heads = env_int(\"HEADS\", 32);\n"                                                   // 8
      "  const char* b = std::getenv(\"BATCH\");\n"                                                     // 9
      "  int batch = b != nullptr ? std::stoi(b) : 16;\n"                                                // 10
      "}\n");
  const auto found = FindConstants(code);
  std::vector<std::string> got;
  for (const auto& c : found)
    got.push_back(c.name + "=" + std::to_string(c.value) + "@" + std::to_string(c.line) + " argv" +
                  std::to_string(c.argv_index) + " env:" + c.env + " " + (Passed(c) ? "passed" : "fixed"));
  EXPECT_EQ(got, (std::vector<std::string>{"tokens=8192@4 argv1 env: passed", "hidden=4096@6 argv2 env: passed",
                                           "SEQ=2048@7 argv0 env:SEQ passed", "HEADS=32@8 argv0 env:HEADS passed",
                                           "BATCH=16@9 argv0 env:BATCH passed"}));
  EXPECT_EQ(found[0].how, "default of argv[1] (tokens)");
  EXPECT_EQ(found[2].how, "default of $SEQ");
  // A port read from the environment is no size.
  EXPECT_EQ(ClassifyConstant({"MASTER_PORT", 29500, 1, "", false, 0, "MASTER_PORT"}, {}), ConstRole::kIgnored);
}

// A number parsed into a temporary, then copied into the size (formidablefrank/nccl-test's
// allreduce.c: `long parsedSize = strtol(argv[1], &endptr, 10); ... size = (int) parsedSize;`): the
// size's default is the argument's.
TEST(ConstantsTest, AnArgumentParsedIntoATemporaryIsTheVariableItIsCopiedInto) {
  const std::string code = StripComments(
      "int main(int argc, char* argv[]) {\n"                          // 1
      "  int size = 32*1024*1024;\n"                                  // 2
      "  if (argc > 1) {\n"                                           // 3
      "    char *endptr = NULL;\n"                                    // 4
      "    long parsedSize = strtol(argv[1], &endptr, 10);\n"         // 5
      "    if (parsedSize <= 0) exit(1);\n"                           // 6
      "    size = (int) parsedSize;\n"                                // 7
      "  }\n"                                                         // 8
      "  long unused = strtol(argv[2], NULL, 10);\n"                  // 9
      "}\n");
  const auto found = FindConstants(code);
  std::vector<std::string> got;
  for (const auto& c : found)
    if (c.argv_index > 0) got.push_back(c.name + "=" + std::to_string(c.value) + "@" + std::to_string(c.line) + " argv" +
                                        std::to_string(c.argv_index));
  EXPECT_EQ(got, (std::vector<std::string>{"size=33554432@7 argv1"}));
}

// A number the program scales after reading it (`size = atoi(argv[1]) * 1024`, Ryb7532/myNCCL's
// mptomp.cu) is passed in the argument's units: the variable's default over the scale; one it
// transforms otherwise, or whose default is no whole number of those units, is not passed at all.
TEST(ConstantsTest, AnArgumentScaledBeforeItsAssignmentIsPassedInItsOwnUnits) {
  const std::string code = StripComments(
      "int main(int argc, char* argv[]) {\n"                                        // 1
      "  int size = 32*1024*1024;\n"                                                // 2
      "  if (argc>=2) {\n"                                                          // 3
      "     size = atoi(argv[1])*1024;\n"                                           // 4
      "  }\n"                                                                       // 5
      "  long n = argc > 2 ? strtol(argv[2], NULL, 10) << 20 : 1 << 24;\n"         // 6
      "  int iters = argc > 3 ? static_cast<int>(strtol(argv[3], nullptr, 10)) : 50;\n"  // 7
      "  int odd = 1000;\n"                                                         // 8
      "  if (argc > 4) odd = atoi(argv[4]) * 3;\n"                                  // 9
      "  int shifted = 7;\n"                                                        // 10
      "  if (argc > 5) shifted = atoi(argv[5]) + 1;\n"                              // 11
      "}\n");
  std::vector<std::string> got;
  for (const auto& c : FindConstants(code))
    if (c.argv_index > 0) got.push_back(c.name + "=" + std::to_string(c.value) + " argv" + std::to_string(c.argv_index));
  EXPECT_EQ(got, (std::vector<std::string>{"size=32768 argv1", "n=16 argv2", "iters=50 argv3"}));
}

TEST(ConstantsTest, ParametersFunctionsAndCommentsAreNotConstants) {
  const std::string code = StripComments(
      "void f(const int n, const int m);\n"
      "const int g() { return 3; }\n"
      "// const int Hidden = 7;\n"
      "/* #define ALSO_HIDDEN 9 */\n"
      "const int Unknown = Q * 2;\n");
  EXPECT_TRUE(FindConstants(code).empty());
}

TEST(ConstantsTest, SizeNames) {
  EXPECT_EQ(SizeName({"--m", 1, 1, "", true, 0, ""}), "M");
  EXPECT_EQ(SizeName({"--batch-size", 1, 1, "", true, 0, ""}), "batch_size");
  EXPECT_EQ(SizeName({"N", 1, 1, "", false, 0, ""}), "N");
  EXPECT_EQ(SizeName({"--2d", 1, 1, "", true, 0, ""}), "s_2d");
}

TEST(ConstantsTest, Roles) {
  const std::set<std::string> world_vars = {"P"};
  auto role = [&](const std::string& name, int64_t value) {
    return ClassifyConstant({name, value, 1, "", false, 0, ""}, world_vars);
  };
  EXPECT_EQ(role("M", 8192), ConstRole::kSize);
  EXPECT_EQ(role("P", 4), ConstRole::kWorld);
  EXPECT_EQ(role("kNumRanks", 4), ConstRole::kWorld);
  EXPECT_EQ(role("WARMUP", 5), ConstRole::kWarmup);
  EXPECT_EQ(role("kIters", 100), ConstRole::kIters);
  EXPECT_EQ(role("steps", 20), ConstRole::kIters);  // a training loop's step count
  EXPECT_EQ(role("BLOCK_SIZE", 256), ConstRole::kTuning);
  EXPECT_EQ(role("seed", 1234), ConstRole::kIgnored);
  EXPECT_EQ(role("NCCL_THING", 64), ConstRole::kIgnored);
  EXPECT_EQ(role("ONE", 1), ConstRole::kIgnored);
}

TEST(ConstantsTest, WorldNames) {
  EXPECT_TRUE(IsWorldName("world_size", {}));
  EXPECT_TRUE(IsWorldName("numGpus", {}));
  EXPECT_TRUE(IsWorldName("p", {"p"}));
  EXPECT_FALSE(IsWorldName("rank", {}));
  // A rank of the world is no count of its ranks (ReCCL-experiments' `worldRank == 2` was taken for 2 ranks).
  EXPECT_FALSE(IsWorldName("worldRank", {}));
  EXPECT_FALSE(IsWorldName("world_rank", {}));
  EXPECT_TRUE(IsWorldName("world_ranks", {}));
  EXPECT_TRUE(IsWorldName("nranks", {}));
  // A bound on the count is not it (jihwan01/nccl_Imp's `kMinNranks = 2`, a check of the GPUs given,
  // whose default list holds 4).
  EXPECT_FALSE(IsWorldName("kMinNranks", {}));
  EXPECT_FALSE(IsWorldName("MAX_GPUS", {}));
  EXPECT_FALSE(IsWorldName("max_world_size", {}));
  EXPECT_TRUE(IsWorldName("kMinNranks", {"kMinNranks"}));  // what MPI_Comm_size writes is the count
  EXPECT_TRUE(IsWorldName("numGpusMinimal", {}));
  // Options, and a tensor-parallel degree (the rank count of a program parallel in nothing else).
  EXPECT_TRUE(IsWorldName("--num-gpus", {}));
  EXPECT_TRUE(IsWorldName("--tp", {}));
  EXPECT_TRUE(IsWorldName("tp_size", {}));
  EXPECT_FALSE(IsWorldName("tpb", {}));
  EXPECT_FALSE(IsWorldName("output", {}));
}

}  // namespace
}  // namespace cuco::scaffold_internal
