// cuco run <program>'s first step: made once, reused while nothing changed, made again after an
// edit with the old folder kept, and a skeleton reused is refused with what to do.
#include "scaffold/program_workload.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "scaffold/scaffold.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

struct Said {
  std::vector<std::string> lines;
  bool Has(const std::string& part) const {
    for (const auto& l : lines)
      if (l.find(part) != std::string::npos) return true;
    return false;
  }
};

Result<ProgramWorkload> MakeOrReuse(const ProgramWorkloadRequest& r, Said* said) {
  said->lines.clear();
  return ProgramWorkloadFor(r, Toolchain{}, [&](const std::string& l) { said->lines.push_back(l); });
}

TEST(ProgramWorkload, MadeThenReusedThenMadeAgainAfterAnEdit) {
  const fs::path root = fs::temp_directory_path() / ("cuco-program-workload-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  const fs::path prog = root / "prog.cu";
  fs::copy_file(std::string(CUCO_SOURCE_DIR) + "/tests/analyze/allreduce_after_gemm.cu", prog);
  ProgramWorkloadRequest r;
  r.files = {prog.string()};
  r.dir = (root / "wl").string();
  Said said;

  Result<ProgramWorkload> made = MakeOrReuse(r, &said);
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(made->dir, (root / "wl" / "harness").string());
  EXPECT_TRUE(made->workload.has_value());
  EXPECT_TRUE(said.Has("1/3 init: wrote " + r.dir));

  Result<ProgramWorkload> reused = MakeOrReuse(r, &said);
  ASSERT_TRUE(reused.ok()) << reused.status().ToString();
  EXPECT_FALSE(reused->workload.has_value());  // not loaded again: the search loads it
  EXPECT_TRUE(said.Has("1/3 init: reusing " + r.dir));

  std::ofstream(prog, std::ios::app) << "// edited\n";
  Result<ProgramWorkload> again = MakeOrReuse(r, &said);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->workload.has_value());
  EXPECT_TRUE(said.Has("changed since")) << said.lines.front();
  int kept = 0;
  for (const auto& e : fs::directory_iterator(root)) kept += e.path().filename().string().starts_with("wl-");
  EXPECT_EQ(kept, 1);  // the old folder, beside the new one

  // A skeleton (its TODO marks not filled in) is refused, saying what to do.
  std::ofstream(root / "wl" / "harness" / "seed.cu", std::ios::app) << "// TODO(cuco init): fill in\n";
  Result<ProgramWorkload> skeleton = MakeOrReuse(r, &said);
  ASSERT_FALSE(skeleton.ok());
  EXPECT_EQ(skeleton.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(skeleton.status().message().find("cuco eval " + r.dir), std::string::npos) << skeleton.status().message();
  fs::remove_all(root);
}

}  // namespace
}  // namespace cuco
