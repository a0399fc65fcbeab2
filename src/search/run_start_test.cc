// `cuco run` before its search, and the search after it: the toolchain detected once, the workload's
// workload.toml parsed once (util/read_trace.h counts both), the world size settled in one place.
#include "search/run_start.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "util/files.h"
#include "util/read_trace.h"
#include "util/sha256.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

constexpr const char kCpuWorkload[] = CUCO_SOURCE_DIR "/tests/workloads/cpu_matmul";

TEST(RunStart, ARunDetectsTheToolchainAndParsesItsWorkloadOnce) {
  const fs::path run = fs::temp_directory_path() / ("cuco_run_start_" + std::to_string(::getpid()));
  fs::remove_all(run);
  ResetReadCounts();
  SessionOptions o;
  o.command = "run";
  o.workload = kCpuWorkload;
  o.run_dir = run.string();
  o.cache_dir = CUCO_BINARY_DIR "/test-cache";  // shared with the other tests: the runtime is compiled once
  o.budget.max_candidates = 2;
  o.live_output = false;
  Result<RunStart> start = StartRun({}, &o);
  ASSERT_TRUE(start.ok()) << start.status().message();
  EXPECT_EQ(start->end, RunStartEnd::kSearch);
  EXPECT_FALSE(start->short_of_gpus);
  ASSERT_TRUE(o.toolchain.has_value());
  ASSERT_TRUE(o.workload_config.has_value());
  auto session = Session::Open(o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto summary = (*session)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->result.candidates, 2) << summary->text;
  EXPECT_EQ(ReadCount("toolchain"), 1) << "the session detected the toolchain StartRun had";
  const fs::path toml = fs::path(kCpuWorkload) / "workload.toml";
  const std::string text = *ReadFile(toml);
  EXPECT_EQ(ReadCount("workload.toml", toml.lexically_normal().string() + " " + Sha256Hex(text).substr(0, 12)), 1)
      << "the session parsed the workload.toml StartRun had";
  fs::remove_all(run);
}

TEST(RunStart, AWorldSizeTheWorkloadDoesNotListIsRefusedNamingItsFile) {
  SessionOptions o;
  o.command = "run";
  o.workload = kCpuWorkload;
  o.world_size = 3;
  o.toolchain = Toolchain{};
  Result<RunStart> start = StartRun({}, &o);
  ASSERT_FALSE(start.ok());
  EXPECT_EQ(start.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(start.status().message().find("--world-size 3: not among the world_sizes of"), std::string::npos)
      << start.status().message();
  EXPECT_NE(start.status().message().find("cpu_matmul/workload.toml"), std::string::npos) << start.status().message();
}

}  // namespace
}  // namespace cuco
