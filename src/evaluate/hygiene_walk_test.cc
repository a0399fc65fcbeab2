// Every seed, generation-0 file, variant file and planted candidate in the repository through
// both hygiene checks: the preprocessed deny-list scan and, for those that compile here, the
// object check. Honest files must pass; the planted cheats that the deny-list is documented to
// catch (tests/gpu/candidates/*/README.md) must be rejected. The planted candidates are written
// from the seeds first (tests/gpu/make_candidates.py planted).
//
// The preprocess and compile commands are the Builder's own (PreprocessCommand,
// CandidateCompileCommand), outside the sandbox: the files are checked as a search builds them.
// The object check compiles every CPU file but, of the CUDA ones, only gemm_reducescatter's seed
// unless CUCO_HYGIENE_WALK_ALL=1 (every CUDA seed, generation-0 file, variant and planted
// candidate: 15-60 s of nvcc each, about 12 minutes on two busy cores).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "evaluate/builder.h"
#include "evaluate/object_check.h"
#include "launch/subprocess.h"
#include "toolchain/toolchain.h"
#include "util/files.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

struct WalkFile {
  fs::path path;
  fs::path workload_dir;
  bool compile_object;  // checked with the object check too
};

// `planted`: where tests/gpu/make_candidates.py wrote the planted candidates (<workload>/<name>.cu).
std::vector<WalkFile> FilesToWalk(bool all_objects, const fs::path& planted) {
  const fs::path root = CUCO_SOURCE_DIR;
  std::vector<WalkFile> files;
  std::set<fs::path> seen;
  auto add = [&](const fs::path& p, const fs::path& wl, bool object) {
    if (fs::exists(p) && seen.insert(p).second) files.push_back({p, wl, object});
  };
  std::vector<fs::path> workload_dirs;
  for (const auto& e : fs::directory_iterator(root / "workloads"))
    if (fs::exists(e.path() / "workload.toml")) workload_dirs.push_back(e.path());
  workload_dirs.push_back(root / "tests" / "workloads" / "cpu_matmul");
  std::sort(workload_dirs.begin(), workload_dirs.end());
  for (const auto& dir : workload_dirs) {
    auto wl = LoadWorkload(dir);
    if (!wl.ok() || wl->mode != "harness") continue;
    const bool objects = all_objects || wl->language != "cuda";
    add(wl->SeedPath(), dir, objects || dir.filename() == "gemm_reducescatter");
    if (!wl->generation0_file.empty()) add(dir / wl->generation0_file, dir, objects);
    for (const auto& v : wl->variants)
      if (!v.file.empty()) add(dir / v.file, dir, objects);
  }
  const fs::path cpu = root / "tests" / "workloads" / "cpu_matmul";
  for (const auto& e : fs::recursive_directory_iterator(cpu))
    if (e.path().extension() == ".cc" && e.path().filename() != "reference.cc") add(e.path(), cpu, true);
  for (const auto& d : fs::directory_iterator(planted))
    for (const auto& e : fs::directory_iterator(d.path()))
      if (e.path().extension() == ".cu") add(e.path(), root / "workloads" / d.path().filename(), all_objects);
  return files;
}

// Planted cheats that the deny-list scan catches (the README tables name the token).
const std::set<std::string> kDenied = {"gemm_reducescatter/side_stream.cu", "gemm_reducescatter/ref_peek.cu",
                                       "gemm_reducescatter/timer.cu", "gemm_reducescatter/exit_early.cu",
                                       "gemm_reducescatter/write_metrics.cu", "candidates/exit_early.cc"};

bool Denied(const fs::path& p) {
  return kDenied.count((p.parent_path().filename() / p.filename()).string()) > 0;
}

TEST(HygieneWalk, EverySeedVariantAndCandidatePassesBothChecks) {
  const bool all = std::getenv("CUCO_HYGIENE_WALK_ALL") != nullptr;
  Toolchain tc = DetectToolchain();
  const bool have_gxx = std::system("g++ --version >/dev/null 2>&1") == 0;
  const bool have_readelf = std::system("readelf --version >/dev/null 2>&1") == 0;
  const fs::path tmp = fs::temp_directory_path() / ("cuco-walk-" + std::to_string(::getpid()));
  fs::create_directories(tmp);
  const fs::path planted = tmp / "planted";
  const fs::path generator = fs::path(CUCO_SOURCE_DIR) / "tests" / "gpu" / "make_candidates.py";
  CapturedRun gen = RunCapture({"python3", generator.string(), "planted", planted.string()}, 120);
  ASSERT_TRUE(gen.outcome.ok()) << "tests/gpu/make_candidates.py planted: " << gen.output;
  int scanned = 0, objects = 0;
  std::vector<std::string> skipped;
  for (const WalkFile& f : FilesToWalk(all, planted)) {
    SCOPED_TRACE(f.path.string());
    auto wl = LoadWorkload(f.workload_dir);
    ASSERT_TRUE(wl.ok()) << wl.status().message();
    const bool cuda = wl->language == "cuda";
    if (cuda ? tc.nvcc.empty() : !have_gxx) {
      skipped.push_back(f.path.filename().string() + " (no " + (cuda ? "nvcc" : "g++") + ")");
      continue;
    }
    auto text = ReadFile(f.path);
    ASSERT_TRUE(text.ok());
    auto split = SplitEvolveBlocks(*text, f.path.string());
    if (!split.ok()) continue;  // no blocks: not a candidate
    Builder builder(tmp / "cache", *wl, tc);
    builder.set_sandboxed(false);
    Result<std::vector<std::string>> argv = builder.PreprocessCommand(f.path);
    ASSERT_TRUE(argv.ok()) << argv.status().message();
    Status deny = CheckDenyListPreprocessed(*text, f.path.string(), *argv, 300);
    ++scanned;
    if (Denied(f.path)) {
      EXPECT_FALSE(deny.ok()) << "a planted cheat passed the deny-list";
      continue;
    }
    EXPECT_TRUE(deny.ok()) << deny.message();
    if (!f.compile_object || !have_readelf || f.path.filename() == "compile_error.cc") continue;
    fs::path obj = tmp / (f.path.stem().string() + ".o");
    CapturedRun r = RunCapture(builder.CandidateCompileCommand(f.path, obj), 600);
    if (!r.outcome.ok()) {
      skipped.push_back(f.path.filename().string() + " (does not compile here: " + r.output.substr(0, 200) + ")");
      continue;
    }
    ++objects;
    Status o = CheckCandidateObject(obj.string(), wl->language, f.path.string());
    EXPECT_TRUE(o.ok()) << o.message();
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  std::cout << "scanned " << scanned << " files, object-checked " << objects << "\n";
  for (const auto& s : skipped) std::cout << "skipped: " << s << "\n";
  if (scanned == 0) GTEST_SKIP() << "no compiler to preprocess with";
}

}  // namespace
}  // namespace cuco
