#include "scaffold/program_defaults.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace cuco::scaffold_internal {
namespace {

TEST(ProgramDefaults, DefaultsOfArgumentsAndEnvironment) {
  const ProgramDefaults d = DefaultsOf(
      "int n = argc > 1 ? atoi(argv[1]) : 4096;\nconst char* e = getenv(\"MODE\");\nint mode = e ? atoi(e) : 3;\n"
      "bool csv = false;\nint rank = atoi(getenv(\"RANK\"));\nint later = 1;\nlater = compute();\n",
      {});
  EXPECT_EQ(d.values.at("n"), 4096);
  EXPECT_EQ(d.values.at("mode"), 3);
  EXPECT_EQ(d.values.at("csv"), 0);
  EXPECT_EQ(d.values.count("later"), 0u);  // assigned again: no one value
  EXPECT_EQ(d.rank_vars.count("rank"), 1u);
  const std::string cond = "mode == 3 && !csv && n >= 1024";
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), d), Truth::kTrue);
  const std::string unknown = "later > 0";
  EXPECT_EQ(BranchTruth(unknown, 0, unknown.size(), d), Truth::kUnknown);
  const std::string per_rank = "rank % 2 == 0 || csv";
  EXPECT_EQ(BranchTruth(per_rank, 0, per_rank.size(), d), Truth::kPerRank);
}

// Started with arguments (`cuco init --args "1 big 7"`): `atoi(argv[k])` reads the k-th when it is
// a whole number, and `argc` counts them.
TEST(ProgramDefaults, DefaultsOfTheGivenArguments) {
  const std::string code = "int nDev = atoi(argv[1]);\nint mode = std::stoi(argv[2]);\nint reps = strtol(argv[3], 0, 10);\n";
  const ProgramDefaults d = DefaultsOf(code, {}, {"1", "big", "7"});
  EXPECT_EQ(d.values.at("nDev"), 1);
  EXPECT_EQ(d.values.count("mode"), 0u);  // not a number
  EXPECT_EQ(d.values.at("reps"), 7);
  EXPECT_EQ(ValueUnder("nDev * 4 + argc", d), 8);
  const ProgramDefaults none = DefaultsOf(code, {});
  EXPECT_EQ(none.values.count("nDev"), 0u);
  EXPECT_EQ(ValueUnder("argc", none), 1);
}

// A sum begun at 0 and added to on the line that declares it (hn_moe_nccl's one-line
// `int send_tot=0,recv_tot=0; ... for(...){ send_tot+=sendc[p]; }`): no one value, never 0.
TEST(ProgramDefaults, AVariableAddedToOnItsDeclarationsLineHasNoOneValue) {
  const ProgramDefaults d = DefaultsOf(
      "int main() {\n  int send_tot=0,recv_tot=0; for(int p=0;p<size;p++){ send_tot+=sendc[p]; }\n  int k = 3;\n}\n", {});
  EXPECT_EQ(d.values.count("send_tot"), 0u);
  EXPECT_EQ(d.values.at("recv_tot"), 0);
  EXPECT_EQ(d.values.at("k"), 3);
}

// Several declarators in one declaration (`const int L = 4, d = L * 256, b;`): each with an
// initialiser has its value, in order; a call's commas split nothing.
TEST(ProgramDefaults, EachDeclaratorOfADeclarationHasItsValue) {
  const ProgramDefaults d = DefaultsOf("const int L = 4, d = L * 256, b;\nint m = max(2, 3), k = 7;\n", {});
  EXPECT_EQ(ValueUnder("L", d), 4);
  EXPECT_EQ(ValueUnder("d", d), 1024);
  EXPECT_EQ(ValueUnder("k", d), 7);
  EXPECT_FALSE(ValueUnder("b", d).has_value());
}

// A variable a call writes through its address (MPI_Comm_size's out-parameter) has no one value:
// `int world_rank = -1, world_size = 0;` then `MPI_Comm_size(..., &world_size)` is no world of 0
// ranks (an all-gather's buffers, `world_size` floats each, were taken for empty allocations).
TEST(ProgramDefaults, AVariableWrittenThroughItsAddressHasNoOneValue) {
  const ProgramDefaults d = DefaultsOf(
      "int world_rank = -1, world_size = 0;\nMPI_Comm_size(MPI_COMM_WORLD, &world_size);\n"
      "const int size = world_size;\nint mask = 4, bits = 6;\nint low = g(bits & mask);\nint n = 8;\nf(x, & n);\n",
      {});
  EXPECT_FALSE(ValueUnder("world_size", d).has_value());
  EXPECT_FALSE(ValueUnder("size", d).has_value());
  EXPECT_FALSE(ValueUnder("n", d).has_value());
  EXPECT_EQ(ValueUnder("mask", d), 4);  // `bits & mask` takes no address
  EXPECT_EQ(ValueUnder("bits", d), 6);
}

// A mode chosen by name (teju85/nccl-bench's `std::string op("allReduce")`, set by `-op`): a string
// initialised from a literal, assigned again only while reading the command line, has that value
// when the program is started without arguments, and decides `==`, `!=` and strcmp.
TEST(ProgramDefaults, AStringModeDecidesTheBranch) {
  const std::string code =
      "int main(int argc, char** argv) {\n  std::string op(\"allReduce\");\n  const char* fmt = \"csv\";\n"
      "  std::string later = \"a\";\n  for (int i = 1; i < argc; ++i)\n    if (!strcmp(\"-op\", argv[i])) op = argv[++i];\n"
      "  later = name();\n  printf(\"op=%s\", op.c_str());\n}\n";
  const ProgramDefaults d = DefaultsOf(code, {});
  for (const auto& [cond, truth] : std::vector<std::pair<std::string, Truth>>{
           {"op == \"allReduce\"", Truth::kTrue},
           {"op == \"allGather\" || op == \"reduceScatter\"", Truth::kFalse},
           {"op != \"allReduce\"", Truth::kFalse},
           {"!strcmp(fmt, \"csv\")", Truth::kTrue},
           {"strcmp(op, \"b\") > 0", Truth::kFalse},
           {"later == \"a\"", Truth::kUnknown},  // assigned again
           {"op", Truth::kUnknown},                // a string is no truth value
           {"op == 3", Truth::kUnknown}})
    EXPECT_EQ(BranchTruth(cond, 0, cond.size(), d), truth) << cond;
  // Given arguments, what the command line sets is not known.
  EXPECT_EQ(DefaultsOf(code, {}, {"-op", "reduce"}).strings.count("op"), 0u);
}

// A string member's default (`struct Config { std::string run = "prefill"; }`), set from the command
// line through the object (`c.run = argv[++i]`), read as `cfg.run`: the default without arguments or
// with arguments that do not set it; not known where `--run` is given, or the member is set elsewhere.
TEST(ProgramDefaults, AStringMembersDefaultReadThroughItsObject) {
  const std::string code =
      "struct Config {\n  std::string run = \"prefill\";\n};\n"
      "Config parse(int argc, char** argv) {\n  Config c;\n  for (int i = 1; i < argc; ++i)\n"
      "    if (!strcmp(argv[i], \"--run\")) c.run = argv[++i];\n  return c;\n}\n";
  const std::string cond = "cfg.run == \"decode\"";
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(code, {})), Truth::kFalse);
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(code, {}, {"--seq", "4"})), Truth::kFalse);
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(code, {}, {"--seq", "4", "--run", "decode"})), Truth::kUnknown);
  const std::string set = code + "void decode_mode(Config& c) { c.run = \"decode\"; }\n";
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(set, {})), Truth::kUnknown);
  // An integer member set from a global of its name (nccl-tests' `args.nGpus = nGpus;`) leaves the global.
  const ProgramDefaults globals = DefaultsOf("int nGpus = 1;\nint main() {\n  args.nGpus = nGpus;\n}\n", {});
  ASSERT_EQ(globals.values.count("nGpus"), 1u);
  EXPECT_EQ(globals.values.at("nGpus"), 1);
}

// A counter stepped with `++` (teplo's `if (iter % 100 == 0)` every hundredth step) has no one
// value, and the rank a communicator is made with is per rank whatever it was initialised with
// (NCCL-Sandbox's `struct Config { int rank = -1; }` then `ncclCommInitRank(&comm, 2, uid, cfg.rank)`).
TEST(ProgramDefaults, ACounterAndTheCommunicatorsRankHaveNoOneValue) {
  const ProgramDefaults d = DefaultsOf(
      "struct Config { int rank = -1; };\nint main() {\n  int iter = 0, done = 0;\n  Config cfg;\n"
      "  ncclCommInitRank(&comm, 2, uid, cfg.rank);\n  while (true) { ++iter; done--; }\n}\n", {});
  EXPECT_EQ(ValueUnder("iter % 100 == 0", d), std::nullopt);
  EXPECT_EQ(ValueUnder("done", d), std::nullopt);
  const std::string cond = "cfg.rank == 0";
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), d), Truth::kPerRank);
}

// An options parser in another file (TensorParallelPTX's parse_args in cli.cu) sets its struct's
// members before its loop over argv: those are the defaults conditions on them read, where the
// program is started without arguments and nothing else sets them.
TEST(ProgramDefaults, AnOptionsParsersMembersInAnotherFile) {
  const std::string main_code =
      "int main(int argc, char** argv) {\n  Args args = parse_args(argc, argv);\n"
      "  ProfileStats s = (args.tp_mode == TpMode::Summa) ? run_profile(args) : run_profile_1d(args);\n}\n";
  const std::string cli =
      "enum class TpMode { Summa, OneDCol, OneDRow };\n"
      "Args parse_args(int argc, char** argv) {\n  Args args{};\n  args.M = 4096;\n  args.tp_mode = TpMode::Summa;\n"
      "  args.walltime_file = \"profile_walltime.txt\";\n"
      "  for (int i = 1; i < argc; ++i) {\n    std::string arg = argv[i];\n"
      "    if (arg == \"--tp-mode\" && i + 1 < argc) {\n      std::string m = argv[++i];\n"
      "      if (m == \"1d-row\") args.tp_mode = TpMode::OneDRow;\n    }\n  }\n  return args;\n}\n";
  const std::string cond = "args.tp_mode == TpMode::Summa";
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(main_code, {}, {}, cli)), Truth::kTrue);
  EXPECT_EQ(ValueUnder("args.M", DefaultsOf(main_code, {}, {}, cli)), 4096);
  EXPECT_EQ(DefaultsOf(main_code, {}, {}, cli).strings.at("walltime_file"), "profile_walltime.txt");
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(main_code, {}, {})), Truth::kUnknown);  // not given the file
  EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(main_code, {}, {"--tp-mode", "1d-row"}, cli)), Truth::kUnknown);
  // Set again elsewhere, stepped, or its address handed on: no one value.
  for (const char* again : {"void one_d(Args& a) { a.tp_mode = TpMode::OneDRow; }\n", "void f(Args* a) { ++a->tp_mode; }\n",
                            "void g(Args a) { read_mode(&a.tp_mode); }\n"})
    EXPECT_EQ(BranchTruth(cond, 0, cond.size(), DefaultsOf(main_code, {}, {}, cli + again)), Truth::kUnknown) << again;
}

}  // namespace
}  // namespace cuco::scaffold_internal
