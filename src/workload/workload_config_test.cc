#include "workload/workload_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "util/files.h"

namespace cuco {
namespace {

const char* kGood = R"(name = "w"
mode = "harness"
language = "cuda"
seed = "seed.cu"
reference = "reference.cu"
world_size = 2
world_sizes = [2, 4]
[build]
flags = ["-O3"]
libs = ["nccl"]
[sizes.verify]
M = 64
[sizes.bench]
M = 8192
[tolerance]
rel_l2 = 0.01
max_abs = 0.05
[timing]
iters = 25
[[knobs]]
name = "chunks"
values = [1, 2, 4]
default = 2
[[knobs]]
name = "backend"
values = ["lsa", "ce"]
default = "lsa"
)";

Result<WorkloadConfig> Parse(const std::string& text) { return ParseWorkload(text, "/x/workload.toml"); }

TEST(WorkloadConfig, ParsesAllSections) {
  auto c = Parse(kGood);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->name, "w");
  EXPECT_EQ(c->world_size, 2);
  EXPECT_EQ(c->world_sizes, (std::vector<int>{2, 4}));
  EXPECT_EQ(c->verify_sizes.at("M"), 64);
  EXPECT_EQ(c->bench_sizes.at("M"), 8192);
  EXPECT_DOUBLE_EQ(c->tol_rel_l2, 0.01);
  EXPECT_EQ(c->iters, 25);
  EXPECT_EQ(c->warmup, 5);  // default kept
  ASSERT_EQ(c->knobs.size(), 2u);
  EXPECT_EQ(c->knobs[0].values, (std::vector<std::string>{"1", "2", "4"}));
  EXPECT_EQ(c->FindKnob("backend")->default_value, "lsa");
  EXPECT_EQ(c->dir, "/x");
}

// A program's include folders written relative to the workload (cuco init: `-I_up/common`) are
// found from the workload folder, wherever cuco runs; absolute ones and other flags stay.
TEST(WorkloadConfig, IncludeFlagsRelativeToTheWorkload) {
  std::string text = kGood;
  text.replace(text.find("flags = [\"-O3\"]"), 15,
               R"(flags = ["-O3", "-Iinclude", "-I", "_up/common", "-isystem=sys", "-I/abs/inc", "-DX=1", "-include", "pre.h"])");
  auto c = Parse(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->build_flags, (std::vector<std::string>{"-O3", "-I/x/include", "-I", "/x/_up/common", "-isystem=/x/sys",
                                                      "-I/abs/inc", "-DX=1", "-include", "pre.h"}))
      << "/x holds no pre.h: the compiler looks for it along the include search";
}

// A pre-included header is the workload's file where it has one (a program's config.h copied in),
// else a name the compiler searches for (`-include=cstdio`, janilbols-w/dl_distribution_examples).
TEST(WorkloadConfig, APreIncludedHeaderIsTheWorkloadsFileOrASearchedName) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("cuco-pre-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "config.h") << "#define X 1\n";
  EXPECT_EQ(AbsoluteIncludeFlags({"-include=config.h", "-include=cstdio", "-include", "stdio.h"}, dir),
            (std::vector<std::string>{"-include=" + (dir / "config.h").string(), "-include=cstdio", "-include", "stdio.h"}));
  std::filesystem::remove_all(dir);
}

TEST(WorkloadConfig, AWorldSizeFlagMustBeListed) {
  auto c = Parse(kGood);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(CheckWorldSizeListed(*c, 0).ok());  // not given
  EXPECT_TRUE(CheckWorldSizeListed(*c, 4).ok());
  Status s = CheckWorldSizeListed(*c, 3);
  EXPECT_EQ(s.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "--world-size 3: not among the world_sizes of /x/workload.toml");
  EXPECT_EQ(LargestWorldSizeWithin(*c, 3), 2);  // world_sizes = [2, 4]
  EXPECT_EQ(LargestWorldSizeWithin(*c, 8), 4);
  EXPECT_EQ(LargestWorldSizeWithin(*c, 1), 0);
}

// Each error must name the file and the line of the offending key.
struct BadCase {
  std::string find, replace, expect;
};

class WorkloadConfigErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(WorkloadConfigErrors, NamesFileAndLine) {
  std::string text = kGood;
  const BadCase& bc = GetParam();
  size_t pos = text.find(bc.find);
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, bc.find.size(), bc.replace);
  auto c = Parse(text);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find(bc.expect), std::string::npos) << c.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WorkloadConfigErrors,
    ::testing::Values(
        BadCase{"world_size = 2\n", "world_size = \"two\"\n", "/x/workload.toml:6: 'world_size' must be an integer"},
        BadCase{"iters = 25", "iters = 5", "/x/workload.toml:19: 'timing.iters' must be >= 20"},
        BadCase{"iters = 25", "itres = 25", "/x/workload.toml:19: unknown key 'timing.itres'"},
        BadCase{"default = 2", "default = 3", "/x/workload.toml:23: default '3' of knob 'chunks' is not among its values"},
        BadCase{"rel_l2 = 0.01", "rel_l2 = 2.0", "/x/workload.toml:16: 'tolerance.rel_l2' must be in [0, 1]"},
        BadCase{"mode = \"harness\"", "mode = \"fast\"", "/x/workload.toml:2: 'mode' must be"},
        BadCase{"world_sizes = [2, 4]", "world_sizes = [4]", "/x/workload.toml:7: 'world_sizes' must include world_size 2"},
        BadCase{"M = 64", "M = \"big\"", "/x/workload.toml:12: size 'sizes.verify.M' must be an integer"},
        BadCase{"seed = \"seed.cu\"\n", "", "/x/workload.toml:1: missing required key 'seed'"},
        BadCase{"name = \"chunks\"", "name = \"backend\"", "/x/workload.toml:24: knob 'backend' is declared twice"},
        BadCase{"[timing]", "[timing", "/x/workload.toml:18:"},
        BadCase{"world_sizes = [2, 4]", "world_sizes = [2, 4]\nreads = [\"data/train.csv\"]",
                "/x/workload.toml:8: 'reads' holds absolute paths (the files the program reads), not 'data/train.csv'"},
        BadCase{"world_sizes = [2, 4]", "world_sizes = [2, 4]\nrun_folders = [\"Output\", \"../up\"]",
                "/x/workload.toml:8: 'run_folders' holds folders relative to where the program runs, without '.' or "
                "'..' parts, not '../up'"}));

// The files a program's arguments name (SadreevAmir/hpc_final_project's training set,
// `train_vit /data/train.csv 200 8`): listed, absolute, for the candidates' sandboxes to show.
TEST(WorkloadConfig, TheFilesTheProgramReads) {
  std::string text = kGood;
  text.replace(text.find("world_sizes = [2, 4]"), 20, "world_sizes = [2, 4]\nreads = [\"/data/train.csv\"]");
  auto c = Parse(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->reads, (std::vector<std::string>{"/data/train.csv"}));
  EXPECT_TRUE(Parse(kGood)->reads.empty());
  text.replace(text.find("reads = "), 0, "run_folders = [\"Output\", \"results/run1\"]\n");
  c = Parse(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->run_folders, (std::vector<std::string>{"Output", "results/run1"}));
}

TEST(WorkloadConfig, ProgramModeNeedsRegexes) {
  const char* text = R"(name = "p"
mode = "program"
seed = "program.cu"
world_size = 2
[program]
launcher = "mpirun"
time_regex = 'Time: ([0-9.]+) ms'
pass_regex = 'PASS'
)";
  auto c = Parse(text);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_TRUE(c->program.has_value());
  EXPECT_EQ(c->program->launcher, "mpirun");

  std::string no_group = text;
  no_group.replace(no_group.find("([0-9.]+)"), 9, "[0-9.]+");
  auto bad = Parse(no_group);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.toml:7: 'program.time_regex' needs one capture group"),
            std::string::npos)
      << bad.status().message();

  std::string broken = text;
  broken.replace(broken.find("'PASS'"), 6, "'(PASS'");
  bad = Parse(broken);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.toml:8: 'program.pass_regex' is not a valid regular expression"),
            std::string::npos)
      << bad.status().message();
}

TEST(WorkloadConfig, LoadReportsMissingSeedFile) {
  auto dir = std::filesystem::temp_directory_path() / ("cuco_wl_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "workload.toml") << kGood;
  }
  auto c = LoadWorkload(dir);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("seed file 'seed.cu' not found"), std::string::npos);
  std::ofstream(dir / "seed.cu") << "";
  std::ofstream(dir / "reference.cu") << "";
  c = LoadWorkload(dir);
  ASSERT_FALSE(c.ok());  // the declared knobs are not marked in the seed (generation 0)
  EXPECT_NE(c.status().message().find("knob 'chunks'"), std::string::npos) << c.status().ToString();
  std::ofstream(dir / "seed.cu") << "// EVOLVE-BLOCK-START\nconstexpr int kChunks = 2;  // cuco:knob chunks\n"
                                    "constexpr const char* kBackend = \"ce\";  // cuco:knob backend\n// EVOLVE-BLOCK-END\n";
  c = LoadWorkload(dir);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  std::filesystem::remove_all(dir);
}

TEST(WorkloadConfig, VariantsAndGenerationZero) {
  auto c = Parse(std::string(kGood) + R"([[variants]]
name = "deep"
description = "four chunks over copy engines"
knobs = { chunks = 4, backend = "ce" }
[[variants]]
name = "alone"
file = "parts.cu"
part = "compute"
)" + "generation0_is_top_level = 1\n");
  // A top-level key after a table belongs to that table: the parser reports it as unknown.
  ASSERT_FALSE(c.ok());
  auto ok = Parse(std::string("generation0 = \"gen0.cu\"\n") + kGood + R"([[variants]]
name = "deep"
knobs = { chunks = 4, backend = "ce" }
[[variants]]
name = "alone"
file = "parts.cu"
part = "compute"
)");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->generation0_file, "gen0.cu");
  ASSERT_EQ(ok->variants.size(), 2u);
  EXPECT_EQ(ok->variants[0].file, "gen0.cu");
  EXPECT_EQ(ok->variants[0].knobs.at("chunks"), "4");
  EXPECT_EQ(ok->variants[0].knobs.at("backend"), "ce");
  EXPECT_EQ(ok->variants[1].part, "compute");
  EXPECT_EQ(ok->variants[1].file, "parts.cu");
}

TEST(WorkloadConfig, VariantErrorsNameTheLine) {
  auto bad_value = Parse(std::string(kGood) + "[[variants]]\nname = \"v\"\nknobs = { chunks = 3 }\n");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("workload.toml:30"), std::string::npos) << bad_value.status().ToString();
  EXPECT_NE(bad_value.status().message().find("chunks"), std::string::npos);
  auto unknown_knob = Parse(std::string(kGood) + "[[variants]]\nname = \"v\"\nknobs = { depth = 3 }\n");
  ASSERT_FALSE(unknown_knob.ok());
  EXPECT_NE(unknown_knob.status().message().find("depth"), std::string::npos);
  auto bad_part = Parse(std::string(kGood) + "[[variants]]\nname = \"v\"\npart = \"both\"\n");
  ASSERT_FALSE(bad_part.ok());
  EXPECT_NE(bad_part.status().message().find("part"), std::string::npos);
  auto twice = Parse(std::string(kGood) + "[[variants]]\nname = \"v\"\n[[variants]]\nname = \"v\"\n");
  ASSERT_FALSE(twice.ok());
}

// [[excluded]]: knob settings that cannot run together (cuco transform's backend "ce" with graph
// "on"). Every knob and value must be declared; one knob alone is refused; errors name the line.
TEST(WorkloadConfig, ExcludedKnobSettings) {
  auto ok = Parse(std::string(kGood) + "[[excluded]]\nknobs = { chunks = 4, backend = \"ce\" }\nwhy = \"no\"\n");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->excluded.size(), 1u);
  EXPECT_EQ(ok->excluded[0].why, "no");
  EXPECT_EQ(ok->excluded[0].line, 28);  // its [[excluded]] line
  EXPECT_NE(ok->ExclusionOf({{"chunks", "4"}, {"backend", "ce"}}), nullptr);
  EXPECT_EQ(ok->ExclusionOf({{"chunks", "2"}, {"backend", "ce"}}), nullptr);
  EXPECT_EQ(ok->ExclusionOf({{"backend", "ce"}}), nullptr);  // a candidate without the other knob marked
  auto undeclared = Parse(std::string(kGood) + "[[excluded]]\nknobs = { depth = 3, backend = \"ce\" }\nwhy = \"x\"\n");
  ASSERT_FALSE(undeclared.ok());
  EXPECT_NE(undeclared.status().message().find("workload.toml:29: [[excluded]] sets knob 'depth'"), std::string::npos)
      << undeclared.status().ToString();
  auto bad_value = Parse(std::string(kGood) + "[[excluded]]\nknobs = { chunks = 3, backend = \"ce\" }\nwhy = \"x\"\n");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.status().message().find("'3' is not a value of knob 'chunks'"), std::string::npos);
  auto one = Parse(std::string(kGood) + "[[excluded]]\nknobs = { chunks = 4 }\nwhy = \"x\"\n");
  ASSERT_FALSE(one.ok());
  EXPECT_NE(one.status().message().find("at least two knobs"), std::string::npos) << one.status().ToString();
  EXPECT_FALSE(Parse(std::string(kGood) + "[[excluded]]\nknobs = { chunks = 4, backend = \"ce\" }\n").ok());  // no why
}

TEST(WorkloadConfig, WorkExpressions) {
  auto c = Parse(std::string(kGood) + "[work]\ncompute_flops = \"2 * M * M * M / W\"\ncomm_bytes = \"(W - 1) * M / W * 2\"\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->work.compute_line, 29);
  EXPECT_EQ(EvalWork(c->work.compute_flops, c->bench_sizes, 4), int64_t{2} * 8192 * 8192 * 8192 / 4);
  EXPECT_EQ(EvalWork(c->work.comm_bytes, c->bench_sizes, 2), 8192);
  EXPECT_FALSE(EvalWork(c->work.comm_bytes, {}, 2));      // M unknown
  EXPECT_FALSE(EvalWork("", c->bench_sizes, 2));           // not stated
  EXPECT_FALSE(Parse(kGood)->work.compute_flops.size());   // [work] is optional
  // An unknown name, checked at load time, names the key's line.
  auto bad = Parse(std::string(kGood) + "[work]\ncompute_flops = \"2 * M * Q\"\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("workload.toml:29: 'work.compute_flops' = '2 * M * Q' is not an integer expression"),
            std::string::npos) << bad.status().ToString();
  // Negative at some world size, and a key that is not one of the two.
  auto negative = Parse(std::string(kGood) + "[work]\ncomm_bytes = \"M * (2 - W)\"\n");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.status().message().find("is negative at the verify sizes, W = 4"), std::string::npos)
      << negative.status().ToString();
  EXPECT_FALSE(Parse(std::string(kGood) + "[work]\nflops = \"M\"\n").ok());
}

TEST(WorkloadConfig, KnobSearchFlag) {
  auto c = Parse(std::string(kGood) + "[[knobs]]\nname = \"part\"\nvalues = [\"none\", \"compute\"]\ndefault = \"none\"\nsearch = false\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->FindKnob("part")->search);
  EXPECT_TRUE(c->FindKnob("chunks")->search);
  auto bad = Parse(std::string(kGood) + "[[knobs]]\nname = \"p\"\nvalues = [1]\ndefault = 1\nsearch = \"no\"\n");
  ASSERT_FALSE(bad.ok());
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(WorkloadConfig, OverrideBenchSizes) {
  auto wl = LoadWorkload(std::string(CUCO_SOURCE_DIR) + "/tests/workloads/cpu_matmul");
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  ASSERT_TRUE(OverrideBenchSizes(&*wl, {"M=64", "K=32"}).ok());
  EXPECT_EQ(wl->bench_sizes.at("M"), 64);
  EXPECT_EQ(wl->bench_sizes.at("K"), 32);
  EXPECT_EQ(wl->verify_sizes.at("M"), 48);  // unchanged
  Status bad = OverrideBenchSizes(&*wl, {"Q=1"});
  EXPECT_NE(bad.message().find("--size Q=1: expected NAME=VALUE with NAME one of the bench sizes"), std::string::npos);
  EXPECT_NE(bad.message().find("(K, M, N, sample_rows)"), std::string::npos) << bad.message();
  EXPECT_FALSE(OverrideBenchSizes(&*wl, {"M=12x"}).ok());
  EXPECT_FALSE(OverrideBenchSizes(&*wl, {"M"}).ok());
}

TEST(LoadWorkload, TheFolderComesBackWithoutDotDotOrSymlinks) {
  const std::filesystem::path src = std::string(CUCO_SOURCE_DIR) + "/tests/workloads/cpu_matmul";
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "cuco-dotdot-test";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "sub");
  std::filesystem::create_directory_symlink(src, root / "link");
  for (const auto& given : {root / "sub" / ".." / "link", root / "link" / "workload.toml"}) {
    auto wl = LoadWorkload(given);
    ASSERT_TRUE(wl.ok()) << given << ": " << wl.status().ToString();
    EXPECT_EQ(wl->dir, std::filesystem::canonical(src)) << given;
    EXPECT_EQ(wl->dir.string().find(".."), std::string::npos) << wl->dir;
  }
  std::filesystem::remove_all(root);
}

}  // namespace
}  // namespace cuco

namespace cuco {
namespace {

TEST(LoadWorkload, AMissingFolderNamesCloseOnesBesideIt) {
  const std::filesystem::path root = std::filesystem::temp_directory_path() / "cuco-didyoumean-test";
  std::filesystem::remove_all(root);
  std::filesystem::create_directories(root / "gemm_allgather");
  std::filesystem::create_directories(root / "moe_alltoall");
  auto r = LoadWorkload(root / "gemm_allgathr");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kNotFound);
  EXPECT_NE(r.status().message().find("gemm_allgathr: no such folder; did you mean '" + (root / "gemm_allgather").string() + "'?"),
            std::string::npos) << r.status().message();
  r = LoadWorkload(root / "zzz");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), (root / "zzz").string() + ": no such folder");
  r = LoadWorkload(root / "moe_alltoall");  // a folder without workload.toml
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no workload.toml here"), std::string::npos);
  std::filesystem::remove_all(root);
}

// `cuco eval gemm_reducescatter` from the repository's root: the workload lives in workloads/.
TEST(LoadWorkload, AMissingFolderNamesTheWorkloadOfThatNameBelow) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("cuco-below-test-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root / "workloads" / "gemm_rs");
  WriteFileAtomic(root / "workloads" / "gemm_rs" / "workload.toml", "");
  fs::create_directories(root / "tests" / "workloads" / "cpu_mm");
  WriteFileAtomic(root / "tests" / "workloads" / "cpu_mm" / "workload.toml", "");
  fs::create_directories(root / "other" / "gemm_rs");  // no workload.toml: not named
  auto r = LoadWorkload(root / "gemm_rs");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            (root / "gemm_rs").string() + ": no such folder; did you mean '" + (root / "workloads" / "gemm_rs").string() + "'?");
  r = LoadWorkload(root / "cpu_mm");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("did you mean '" + (root / "tests" / "workloads" / "cpu_mm").string() + "'?"),
            std::string::npos) << r.status().message();
  fs::remove_all(root);
}

}  // namespace
}  // namespace cuco
