#include "evaluate/builder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

fs::path CpuWorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cache_ = fs::temp_directory_path() / ("cuco_builder_" + std::to_string(::getpid()));
    fs::remove_all(cache_);
    auto wl = LoadWorkload(CpuWorkloadDir());
    ASSERT_TRUE(wl.ok()) << wl.status().ToString();
    wl_ = *wl;
    tc_.cxx = "g++";
  }
  void TearDown() override { fs::remove_all(cache_); }
  // A stand-in nvcc that runs `check` (shell, over "$@") and then writes its -o file: a toolchain with it.
  Toolchain FakeNvcc(const std::string& check = "") {
    const fs::path fake = cache_ / "bin" / "nvcc";
    fs::create_directories(fake.parent_path());
    EXPECT_TRUE(WriteFileAtomic(fake, "#!/bin/sh\nout=\n" + check +
                                          "while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=$2; shift; done\n: > \"$out\"\n")
                    .ok());
    fs::permissions(fake, fs::perms::owner_all);
    Toolchain tc;
    tc.nvcc = fake.string();
    return tc;
  }
  fs::path cache_;
  WorkloadConfig wl_;
  Toolchain tc_;
};

TEST_F(BuilderTest, BuildsOnceThenHitsTheCache) {
  Builder b(cache_, wl_, tc_);
  auto seed = ReadFile(wl_.SeedPath());
  ASSERT_TRUE(seed.ok());
  auto first = b.Build(*seed, 120);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->ok) << first->log;
  EXPECT_FALSE(first->cached);
  EXPECT_TRUE(fs::exists(first->executable));
  auto second = b.Build(*seed, 120);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->ok);
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->executable, first->executable);
  EXPECT_EQ(second->key, first->key);
  // A different candidate is a different key.
  auto other = b.Build(*seed + "\n// changed\n", 120);
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->key, first->key);
  EXPECT_FALSE(other->cached);
}

// The runtime's objects are compiled once for every workload of a toolchain (cuco's flags, not the
// workload's), each workload then compiling only its reference and its candidates.
TEST_F(BuilderTest, RuntimeObjectsAreSharedByWorkloads) {
  auto other = LoadWorkload(fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_exchange");
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  auto seed = ReadFile(wl_.SeedPath());
  auto other_seed = ReadFile(other->SeedPath());
  ASSERT_TRUE(seed.ok() && other_seed.ok());
  Builder a(cache_, wl_, tc_);
  auto first = a.Build(*seed, 120);
  ASSERT_TRUE(first.ok() && first->ok) << (first.ok() ? first->log : first.status().ToString());
  auto runtime_dirs = [&] {
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(cache_))
      if (e.is_directory() && e.path().filename().string().starts_with("runtime-")) dirs.push_back(e.path());
    return dirs;
  };
  ASSERT_EQ(runtime_dirs().size(), 1u);
  const fs::path object = runtime_dirs()[0] / "supervisor" / "supervisor.o";
  ASSERT_TRUE(fs::exists(object));
  const auto stamp = fs::last_write_time(object);
  Builder b(cache_, *other, tc_);
  auto second = b.Build(*other_seed, 120);
  ASSERT_TRUE(second.ok() && second->ok) << (second.ok() ? second->log : second.status().ToString());
  EXPECT_EQ(runtime_dirs().size(), 1u) << "a second workload compiled the runtime again";
  EXPECT_EQ(fs::last_write_time(object), stamp);
  EXPECT_NE(second->supervisor, first->supervisor);  // each workload links its own reference
  for (const auto& cmd : second->commands)
    for (const auto& word : cmd) EXPECT_EQ(word.find("/runtime/src/supervisor/"), std::string::npos) << word;
}

// A file written beside the seed that neither the reference nor a header includes (a generation 0,
// a candidate) changes nothing compiled before it; a header of the workload, or a file the
// reference includes by name, does.
TEST_F(BuilderTest, FrozenKeyFollowsWhatCanBeIncludedOnly) {
  const fs::path dir = cache_ / "wl";
  fs::create_directories(cache_);
  fs::copy(CpuWorkloadDir(), dir, fs::copy_options::recursive);
  auto wl = LoadWorkload(dir);
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  auto seed = ReadFile(wl->SeedPath());
  ASSERT_TRUE(seed.ok());
  auto key_of = [&] {
    Builder b(cache_ / "cache", *wl, tc_);
    auto r = b.Build(*seed, 120);
    EXPECT_TRUE(r.ok() && r->ok) << (r.ok() ? r->log : r.status().ToString());
    return r.ok() ? r->key : std::string();
  };
  const std::string before = key_of();
  ASSERT_TRUE(WriteFileAtomic(dir / "gen0_transformed.cc", *seed + "\n// generation 0\n").ok());
  EXPECT_EQ(key_of(), before) << "a generation 0 beside the seed changed the frozen key";
  ASSERT_TRUE(WriteFileAtomic(dir / "shared.h", "#pragma once\n").ok());
  const std::string with_header = key_of();
  EXPECT_NE(with_header, before) << "a new header of the workload must change the key";
  auto ref = ReadFile(wl->ReferencePath());
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "helper.inc.cc", "// helper\n").ok());
  EXPECT_EQ(key_of(), with_header) << "a source nothing includes";
  ASSERT_TRUE(WriteFileAtomic(wl->ReferencePath(), "#include \"helper.inc.cc\"\n" + *ref).ok());
  const std::string including = key_of();
  EXPECT_NE(including, with_header);
  ASSERT_TRUE(WriteFileAtomic(dir / "helper.inc.cc", "// helper, changed\n").ok());
  EXPECT_NE(key_of(), including) << "a file the reference includes by name is part of the key";
}

// A compile check builds the candidate's device code without optimisation (nvcc -Xptxas -O0),
// under a key of its own; its host flags, the runtime's and the reference's are those of a full
// build. nvcc here is a stand-in that records its arguments and writes the output file.
TEST_F(BuilderTest, CompileCheckTurnsOffDeviceOptimisationOnlyForTheCandidate) {
  const Toolchain tc = FakeNvcc();
  WorkloadConfig wl = wl_;
  wl.language = "cuda";
  wl.build_flags = {"-O3"};
  auto build = [&](bool unoptimized) {
    Builder b(cache_ / "cache", wl, tc);
    b.set_sandboxed(false);
    b.set_unoptimized(unoptimized);
    auto r = b.Build("// a candidate\n", 60);
    EXPECT_TRUE(r.ok() && r->ok) << (r.ok() ? r->log : r.status().ToString());
    return r.ok() ? *r : BuildResult{};
  };
  const BuildResult full = build(false), check = build(true);
  EXPECT_NE(check.key, full.key);
  EXPECT_FALSE(check.cached);
  auto candidate_compile = [](const BuildResult& r) {
    for (const auto& cmd : r.commands)
      for (const auto& word : cmd)
        if (word.ends_with("candidate.cu")) return cmd;
    return std::vector<std::string>{};
  };
  const auto with = candidate_compile(check), without = candidate_compile(full);
  ASSERT_FALSE(with.empty());
  ASSERT_FALSE(without.empty());
  auto has = [](const std::vector<std::string>& cmd, const std::string& w) {
    return std::find(cmd.begin(), cmd.end(), w) != cmd.end();
  };
  EXPECT_TRUE(has(with, "-Xptxas") && has(with, "-O0"));
  EXPECT_TRUE(has(with, "-O3")) << "the host object keeps the workload's flags (the object check reads it)";
  EXPECT_FALSE(has(without, "-Xptxas"));
  // NVTX annotations compile to calls (NVTX_NO_IMPL) that the runtime's no-op unit answers, on
  // both sides; the reference's object is named for the object check (the program's own names).
  EXPECT_TRUE(has(without, "-DNVTX_NO_IMPL"));
  int nvtx_objects = 0;
  for (const auto& e : fs::recursive_directory_iterator(cache_ / "cache"))
    nvtx_objects += e.path().filename() == "nvtx_off.o" && e.path().parent_path().filename() == "common";
  EXPECT_EQ(nvtx_objects, 1) << "compiled once (runtime-*/common/), linked into the supervisor and the candidate";
  EXPECT_TRUE(full.reference_object.ends_with("supervisor/reference.o")) << full.reference_object;
  for (const auto& cmd : check.commands)  // the frozen side was built by the first build: none here
    EXPECT_TRUE(cmd == with || !has(cmd, "-c")) << "only the candidate is compiled again";
}

// A CUDA workload's [build] flags reach nvcc in its spelling: CMake's -std=gnu++17 (which nvcc refuses:
// "Value 'gnu++17' is not defined for option 'std'") as -std=c++17; a standard older than cuco's
// headers take (a program built -std=c++11, or a C program's -std=c99) as C++17; OpenMP as nvcc hands
// it to the host compiler (a program's omp_get_wtime links); other flags as they are.
TEST_F(BuilderTest, LanguageStandardsReachNvccInItsSpelling) {
  const Toolchain tc = FakeNvcc("for a in \"$@\"; do case $a in -std=gnu*|-std=c++1z|-std=c++1[14]|-std=c9*|-fopenmp) exit 1;; esac; done\n");
  int n = 0;
  for (const auto& [given, want] : std::vector<std::pair<std::string, std::string>>{
           {"-std=gnu++17", "-std=c++17"}, {"-std=c++1z", "-std=c++17"}, {"-std=c++20", "-std=c++20"},
           {"-std=c++11", "-std=c++17"}, {"-std=gnu++14", "-std=c++17"}, {"-std=c99", "-std=c++17"},
           {"-fopenmp", "-Xcompiler=-fopenmp"}}) {
    WorkloadConfig wl = wl_;
    wl.language = "cuda";
    wl.build_flags = {given, "-DKEEP=1"};
    Builder b(cache_ / ("cache" + std::to_string(n++)), wl, tc);  // each its own: the first two build alike
    b.set_sandboxed(false);
    auto r = b.Build("// a candidate\n", 60);
    ASSERT_TRUE(r.ok() && r->ok) << given << ": " << (r.ok() ? r->log : r.status().ToString());
    bool saw = false;
    for (const auto& cmd : r->commands)
      if (std::find(cmd.begin(), cmd.end(), "-DKEEP=1") != cmd.end())
        saw = saw || std::find(cmd.begin(), cmd.end(), want) != cmd.end();
    EXPECT_TRUE(saw) << given << " reached nvcc as " << want;
    if (given != "-fopenmp") continue;
    int links = 0;  // OpenMP's runtime: every link names it too
    for (const auto& cmd : r->commands)
      if (std::find(cmd.begin(), cmd.end(), "-c") == cmd.end()) {
        ++links;
        EXPECT_NE(std::find(cmd.begin(), cmd.end(), want), cmd.end()) << "a link without " << want;
      }
    EXPECT_GT(links, 0);
  }
}

// A relative cache folder (--cache-dir relcache, CUCO_CACHE_DIR=relcache) is the one under the
// folder cuco started in, wherever the compiles run: the seed builds.
TEST_F(BuilderTest, ARelativeCacheDirIsMadeAbsoluteOnce) {
  const fs::path cwd = fs::current_path();
  fs::create_directories(cache_);
  fs::current_path(cache_);
  Builder b("relcache", wl_, tc_);
  fs::current_path(cwd);
  auto seed = ReadFile(wl_.SeedPath());
  ASSERT_TRUE(seed.ok());
  auto r = b.Build(*seed, 120);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->ok) << r->log;
  EXPECT_EQ(fs::path(r->executable).string().rfind((cache_ / "relcache").string() + "/", 0), 0u) << r->executable;
  EXPECT_EQ(fs::path(r->source).parent_path(), fs::path(r->executable).parent_path());
}

TEST_F(BuilderTest, CompileErrorsKeepDiagnosticsAndAreCached) {
  Builder b(cache_, wl_, tc_);
  auto bad = ReadFile(CpuWorkloadDir() / "candidates" / "compile_error.cc");
  ASSERT_TRUE(bad.ok());
  auto r = b.Build(*bad, 120);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("error"), std::string::npos) << r->log;
  EXPECT_TRUE(fs::exists(r->log_path));
  auto again = b.Build(*bad, 120);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->ok);
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(again->log, r->log);
}

TEST_F(BuilderTest, MissingCompilerIsUnavailable) {
  wl_.language = "cuda";
  Toolchain none;
  Builder b(cache_, wl_, none);
  auto r = b.Build("int x;", 10);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable);
}

// A workload that links cuDNN or NVSHMEM ([build] libs) on a machine without it: every build fails
// with a message naming what is missing and where to get it, not a compiler error.
TEST_F(BuilderTest, MissingCudnnOrNvshmemFailsEveryBuildWithTheReason) {
  wl_.build_libs = {"cudnn"};
  auto seed = ReadFile(wl_.SeedPath());
  ASSERT_TRUE(seed.ok());
  {
    Builder b(cache_, wl_, tc_);
    auto r = b.Build(*seed, 60);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->log.find("links \"cudnn\""), std::string::npos) << r->log;
    EXPECT_NE(r->log.find("cuDNN 9 (cudnn.h and libcudnn.so.9)"), std::string::npos) << r->log;
    EXPECT_NE(r->log.find("cuco doctor"), std::string::npos) << r->log;
  }
  tc_.cudnn.found = true;  // cuDNN itself, but no frontend headers
  {
    Builder b(cache_, wl_, tc_);
    auto r = b.Build(*seed, 60);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->ok);
    EXPECT_NE(r->log.find("the cuDNN frontend headers"), std::string::npos) << r->log;
  }
  wl_.build_libs = {"nvshmem"};  // likewise NVSHMEM
  Builder b(cache_, wl_, tc_);
  auto r = b.Build(*seed, 60);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->ok);
  EXPECT_NE(r->log.find("lacks NVSHMEM"), std::string::npos) << r->log;
}

}  // namespace
}  // namespace cuco
