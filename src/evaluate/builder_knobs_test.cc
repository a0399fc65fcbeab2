// Builder: program candidates that differ only in knob values share one compile (runtime_knobs.h).
// nvcc here is a stand-in that writes its output file, and fails a source that needs a knob at
// compile time ("needs_constant") once its values were taken out.
#include "evaluate/builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

class BuilderKnobsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cuco_builder_knobs_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    const fs::path fake = dir_ / "bin" / "nvcc";
    fs::create_directories(fake.parent_path());
    ASSERT_TRUE(WriteFileAtomic(fake, "#!/bin/sh\nout=; src=\n"
                                      "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; [ \"$1\" = -c ] && src=$2; shift; done\n"
                                      "if [ -n \"$src\" ] && grep -q needs_constant \"$src\" && grep -q 'knob_value(' \"$src\"; then\n"
                                      "  echo \"$src:3: error: expression must have a constant value\"; exit 1; fi\n"
                                      ": > \"$out\"\n").ok());
    fs::permissions(fake, fs::perms::owner_all);
    auto wl = LoadWorkload(fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul");
    ASSERT_TRUE(wl.ok()) << wl.status().ToString();
    wl_ = *wl;
    wl_.language = "cuda";
    tc_.nvcc = fake.string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  BuildResult Build(const std::string& code) {
    Builder b(dir_ / "cache", wl_, tc_);
    b.set_sandboxed(false);
    auto r = b.Build(code, 60);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : BuildResult{};
  }
  // The commands of `r` that compile a file whose name ends with `name`.
  static int Compiles(const BuildResult& r, const std::string& name) {
    int n = 0;
    for (const auto& cmd : r.commands)
      for (size_t i = 0; i + 1 < cmd.size(); ++i) n += cmd[i] == "-c" && cmd[i + 1].ends_with(name);
    return n;
  }
  static std::string Candidate(const std::string& backend, const std::string& body = "int main() { return 0; }\n") {
    return "#include <cuco/program/candidate.h>\n// EVOLVE-BLOCK-START\n"
           "constexpr const char* kCucoBackend = \"" + backend + "\";  // cuco:knob backend\n"
           "// EVOLVE-BLOCK-END\n" + body;
  }

  fs::path dir_;
  WorkloadConfig wl_;
  Toolchain tc_;
};

TEST_F(BuilderKnobsTest, ASecondKnobSettingCompilesOnlyItsValues) {
  const BuildResult nccl = Build(Candidate("nccl"));
  ASSERT_TRUE(nccl.ok) << nccl.log;
  EXPECT_FALSE(nccl.knob_values_only);
  EXPECT_EQ(Compiles(nccl, "candidate.cu"), 1) << "the knob-free code";
  EXPECT_EQ(Compiles(nccl, "knob_values.cc"), 1);
  auto unit = ReadFile(fs::path(nccl.executable).parent_path() / "knob_values.cc");
  ASSERT_TRUE(unit.ok());
  EXPECT_NE(unit->find("\"nccl\""), std::string::npos) << *unit;

  const BuildResult lsa = Build(Candidate("lsa"));
  ASSERT_TRUE(lsa.ok) << lsa.log;
  EXPECT_TRUE(lsa.knob_values_only);
  EXPECT_FALSE(lsa.cached);
  EXPECT_NE(lsa.key, nccl.key) << "each setting is its own candidate";
  EXPECT_NE(lsa.executable, nccl.executable);
  EXPECT_EQ(Compiles(lsa, "candidate.cu"), 0);
  EXPECT_EQ(Compiles(lsa, "knob_values.cc"), 1);
  EXPECT_EQ(lsa.object, nccl.object) << "the object check reads the shared knob-free object";
  auto lsa_unit = ReadFile(fs::path(lsa.executable).parent_path() / "knob_values.cc");
  ASSERT_TRUE(lsa_unit.ok());
  EXPECT_NE(lsa_unit->find("\"lsa\""), std::string::npos) << *lsa_unit;

  const BuildResult again = Build(Candidate("lsa"));
  EXPECT_TRUE(again.cached) << "the same candidate again: nothing compiled";
  EXPECT_EQ(again.object, lsa.object) << "from the cache too, the object check reads the knob-free object";
  EXPECT_TRUE(fs::exists(again.object));
  const BuildResult other = Build(Candidate("lsa", "int main() { return 1; }\n"));
  EXPECT_EQ(Compiles(other, "candidate.cu"), 1) << "other code compiles";
}

// A candidate that needs a knob's value at compile time does not compile without it: it is compiled
// whole, and the next setting of the same code goes straight to a whole compile.
TEST_F(BuilderKnobsTest, ACodeNeedingItsValuesAtCompileTimeIsCompiledWhole) {
  const std::string body = "// needs_constant\nint main() { return 0; }\n";
  const BuildResult first = Build(Candidate("nccl", body));
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.knob_values_only);
  EXPECT_EQ(Compiles(first, "candidate.cu"), 2) << "knob-free (failed), then whole";
  EXPECT_EQ(first.object, (fs::path(first.executable).parent_path() / "candidate.o").string());
  const BuildResult second = Build(Candidate("lsa", body));
  ASSERT_TRUE(second.ok) << second.log;
  EXPECT_EQ(Compiles(second, "candidate.cu"), 1) << "the failed knob-free compile is remembered";
  EXPECT_EQ(Compiles(second, "knob_values.cc"), 0);
}

// A candidate of any other form is compiled whole, as before.
TEST_F(BuilderKnobsTest, OtherCandidatesCompileWhole) {
  const BuildResult r = Build("// EVOLVE-BLOCK-START\nconstexpr int kChunks = 4;  // cuco:knob chunks\n// EVOLVE-BLOCK-END\n");
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_EQ(Compiles(r, "candidate.cu"), 1);
  EXPECT_EQ(Compiles(r, "knob_values.cc"), 0);
}

}  // namespace
}  // namespace cuco
