#include "transform/generation0.h"

#include <gtest/gtest.h>

#include "util/files.h"

namespace cuco {
namespace {
namespace fs = std::filesystem;

// A copy of the CPU test workload in a fresh folder.
fs::path CopyCpuWorkload(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("cuco-gen0-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::copy(fs::path(CUCO_SOURCE_DIR) / "tests/workloads/cpu_matmul", dir, fs::copy_options::recursive);
  return dir;
}

TEST(SetGeneration0, InsertsAfterTheReferenceKeepingComments) {
  const fs::path dir = CopyCpuWorkload("insert");
  fs::copy_file(dir / "seed.cc", dir / "gen0_transformed.cc");
  Status set = SetGeneration0(dir / "workload.toml", "gen0_transformed.cc");
  ASSERT_TRUE(set.ok()) << set.message();
  auto text = ReadFile(dir / "workload.toml");
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("reference = \"reference.cc\"\ngeneration0 = \"gen0_transformed.cc\"\n"), std::string::npos);
  EXPECT_NE(text->find("# A CPU test workload"), std::string::npos);
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  EXPECT_EQ(wl->generation0_file, "gen0_transformed.cc");
  // A second call replaces the entry instead of adding one.
  fs::copy_file(dir / "seed.cc", dir / "other.cc");
  ASSERT_TRUE(SetGeneration0(dir / "workload.toml", "other.cc").ok());
  text = ReadFile(dir / "workload.toml");
  EXPECT_EQ(text->find("gen0_transformed.cc"), std::string::npos);
  EXPECT_NE(text->find("generation0 = \"other.cc\""), std::string::npos);
  fs::remove_all(dir);
}

TEST(SetGeneration0, DeclaresTheKnobsItsFileMarks) {
  const fs::path dir = CopyCpuWorkload("knobs");
  auto seed = ReadFile(dir / "seed.cc");
  ASSERT_TRUE(seed.ok());
  const size_t block = seed->find("EVOLVE-BLOCK-START");
  ASSERT_NE(block, std::string::npos);
  const size_t line_end = seed->find('\n', block) + 1;
  std::string gen0 = *seed;
  gen0.insert(line_end, "constexpr const char* kMode = \"b\";  // cuco:knob mode\n");
  ASSERT_TRUE(WriteFileAtomic(dir / "gen0.cc", gen0).ok());
  const std::string knobs = "[[knobs]]\nname = \"mode\"\ndescription = \"a or b\"\nvalues = [\"a\", \"b\"]\ndefault = \"b\"\n";
  Status set = SetGeneration0(dir / "workload.toml", "gen0.cc", knobs);
  ASSERT_TRUE(set.ok()) << set.message();
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok()) << wl.status().message();
  ASSERT_EQ(wl->knobs.size(), 3u);  // the workload's two and the new one
  EXPECT_EQ(wl->knobs.back().name, "mode");
  // Now a file that does not mark the declared knob is refused, changing nothing.
  const auto before = ReadFile(dir / "workload.toml");
  Status refused = SetGeneration0(dir / "workload.toml", "seed.cc", "");
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(*ReadFile(dir / "workload.toml"), *before);
  fs::remove_all(dir);
}

TEST(SetGeneration0, RefusesAFileThatDoesNotLoadAndChangesNothing) {
  const fs::path dir = CopyCpuWorkload("refuse");
  const auto before = ReadFile(dir / "workload.toml");
  Status s = SetGeneration0(dir / "workload.toml", "missing.cc");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("does not load"), std::string::npos) << s.message();
  EXPECT_EQ(*ReadFile(dir / "workload.toml"), *before);
  EXPECT_FALSE(fs::exists(dir / ".generation0-check-workload.toml"));
  fs::remove_all(dir);
}

TEST(AcceptGeneration0, OnlyAVerifiedAttemptAndNeverOverAHandWrittenOne) {
  const fs::path dir = CopyCpuWorkload("accept");
  fs::copy_file(dir / "seed.cc", dir / "gen0_transformed.cc");
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok());
  Generation0Options options;
  Generation0Report report;
  report.file = dir / "gen0_transformed.cc";
  report.attempts.push_back({"rule", EvalRecord{}, 1});
  report.attempts.back().record.status = EvalStatus::kWrongResult;
  report.attempts.back().record.reason = "rank 1: rel_l2 0.7";
  ASSERT_TRUE(AcceptGeneration0(*wl, options, &report).ok());
  EXPECT_FALSE(report.accepted);
  EXPECT_NE(report.note.find("wrong_result: rank 1: rel_l2 0.7"), std::string::npos) << report.note;

  report.verified = true;
  report.note.clear();
  ASSERT_TRUE(AcceptGeneration0(*wl, options, &report).ok());
  EXPECT_TRUE(report.accepted) << report.note;
  wl = LoadWorkload(dir);
  EXPECT_EQ(wl->generation0_file, "gen0_transformed.cc");

  // Now one is declared: a later verified file does not replace it without set_generation0.
  fs::copy_file(dir / "seed.cc", dir / "gen0_other.cc");
  report.file = dir / "gen0_other.cc";
  report.accepted = false;
  ASSERT_TRUE(AcceptGeneration0(*wl, options, &report).ok());
  EXPECT_FALSE(report.accepted);
  EXPECT_NE(report.note.find("keeps its generation0 = \"gen0_transformed.cc\""), std::string::npos) << report.note;
  options.set_generation0 = true;
  ASSERT_TRUE(AcceptGeneration0(*wl, options, &report).ok());
  EXPECT_TRUE(report.accepted);
  fs::remove_all(dir);
}

TEST(MakeRuleGeneration0, RefusesANonCudaWorkloadNamingIt) {
  const fs::path dir = CopyCpuWorkload("cpu");
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok());
  auto r = MakeRuleGeneration0(*wl, Toolchain{}, Generation0Options{});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("workload.toml: the rule-based transform needs a harness-mode CUDA workload"),
            std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find(":0:"), std::string::npos) << r.status().message();
  fs::remove_all(dir);
}

TEST(FormatGeneration0, NamesTheFileOnlyWhenItWasWritten) {
  Generation0Report report;
  report.file = "w/gen0_transformed.cu";
  report.note = "not accepted: stage 1 failed";
  EXPECT_EQ(FormatGeneration0(report).find("written to"), std::string::npos) << FormatGeneration0(report);
  report.written = true;
  EXPECT_NE(FormatGeneration0(report).find("generation 0 written to w/gen0_transformed.cu"), std::string::npos);
}

}  // namespace
}  // namespace cuco
