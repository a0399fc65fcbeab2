#include "search/seed_disagreement.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cuco {
namespace {

namespace fs = std::filesystem;

class SeedDisagreement : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/cuco-seed-note-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    wl_.dir = tmpl;
    wl_.seed_file = "seed.cu";
    wl_.reference_file = "reference.cu";
    std::ofstream(wl_.dir / "seed.cu") << kSeed;
    record_.status = EvalStatus::kWrongResult;
    record_.run_dir = "/runs/eval/candidates/1";
  }
  void TearDown() override { fs::remove_all(wl_.dir); }
  static constexpr const char* kSeed = "#include <cuco/program/candidate.h>\nint main() { return 0; }\n";
  WorkloadConfig wl_;
  EvalRecord record_;
};

// The program as written disagreeing with its frozen copy: what it can be, and how to tell.
TEST_F(SeedDisagreement, TheProgramsOwnSeedGetsTheNote) {
  const std::string note = SeedDisagreementNote(wl_, kSeed, record_.status, record_.run_dir);
  EXPECT_NE(note.find("your program as written (" + (wl_.dir / "seed.cu").string() + ")"), std::string::npos) << note;
  EXPECT_NE(note.find("its own frozen copy (" + (wl_.dir / "reference.cu").string() + ")"), std::string::npos);
  EXPECT_NE(note.find("writing past the end of a buffer"), std::string::npos);
  EXPECT_NE(note.find("compute-sanitizer --tool memcheck"), std::string::npos);
  EXPECT_NE(note.find("report it with /runs/eval/candidates/1"), std::string::npos);
}

// A candidate (any change to the seed), another verdict, or a workload not made of a program: no note.
TEST_F(SeedDisagreement, NothingButTheProgramsOwnSeedsWrongResultGetsIt) {
  EXPECT_EQ(SeedDisagreementNote(wl_, std::string(kSeed) + "// changed\n", record_.status, record_.run_dir), "");
  EvalRecord ok = record_;
  ok.status = EvalStatus::kOk;
  EXPECT_EQ(SeedDisagreementNote(wl_, kSeed, ok.status, ok.run_dir), "");
  EvalRecord crashed = record_;
  crashed.status = EvalStatus::kRuntimeError;
  EXPECT_EQ(SeedDisagreementNote(wl_, kSeed, crashed.status, crashed.run_dir), "");
  const std::string plain = "int main() { return 0; }\n";  // a workload's own seed (no program in it)
  std::ofstream(wl_.dir / "seed.cu") << plain;
  EXPECT_EQ(SeedDisagreementNote(wl_, plain, record_.status, record_.run_dir), "");
}

}  // namespace
}  // namespace cuco
