// A search started from a test, as a newcomer would: one Session on the CPU workload, real
// evaluations (compile, verify, bench), and what it found.
#include "search/session.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "search/gain_check.h"
#include "store/candidate_store.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

TEST(Session, ANewcomerSearchesTheCpuWorkloadInTenLines) {
  const fs::path run = fs::temp_directory_path() / ("cuco_session_" + std::to_string(::getpid()));
  fs::remove_all(run);
  SessionOptions o;
  o.workload = CUCO_SOURCE_DIR "/tests/workloads/cpu_matmul";
  o.run_dir = run.string();
  o.cache_dir = CUCO_BINARY_DIR "/test-cache";  // shared with the other tests: the runtime is compiled once
  o.budget.max_candidates = 3;
  o.live_output = false;
  auto session = Session::Open(o);
  ASSERT_TRUE(session.ok()) << session.status().message();
  auto summary = (*session)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_EQ(summary->end, SessionEnd::kDone) << summary->text;
  EXPECT_EQ(summary->result.candidates, 3) << summary->text;
  EXPECT_EQ(summary->result.by_status, (std::map<std::string, int64_t>{{"ok", 3}})) << summary->text;  // all judged, all pass
  EXPECT_GT(summary->result.best_id, 0);
  EXPECT_GT(summary->result.best_ms, 0);
  EXPECT_TRUE(fs::exists(summary->best_path)) << summary->best_path;
  EXPECT_EQ(summary->json["candidates"], 3);
  // A best other than the seed is re-timed against it before the summary claims a gain (gain_check.h).
  if (summary->result.best_id != summary->result.reference_id) {
    ASSERT_TRUE(summary->json.contains("gain_check")) << summary->json.dump(2);
    EXPECT_EQ(summary->json["gain_check"]["rounds"].size(), 3u) << summary->json.dump(2);
    EXPECT_NE(summary->text.find("re-timed against the seed in 3 alternating round(s)"), std::string::npos)
        << summary->text;
    EXPECT_TRUE(fs::exists(run / "gain-check" / "round3-best" / "candidate.cc"));
    auto store = CandidateStore::OpenReadOnly((run / "cuco.db").string());
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto stored = (*store)->GetMeta(kMetaGainCheck);  // what `cuco report` shows
    ASSERT_TRUE(stored.ok() && *stored) << "no gain check in the store";
    EXPECT_EQ(nlohmann::json::parse(**stored)["best_id"], summary->result.best_id);
  } else {
    EXPECT_FALSE(summary->json.contains("gain_check")) << summary->json.dump(2);
  }
  fs::remove_all(run);
}

TEST(Session, RefusesFlagsThatDoNotGoTogetherBeforeReadingAnything) {
  SessionOptions o;
  o.workload = CUCO_SOURCE_DIR "/tests/workloads/cpu_matmul";
  o.accept_changes = true;
  auto session = Session::Open(o);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(session.status().message(), "--accept-changes goes with --resume (a new run binds what it finds)");
  o.accept_changes = false;
  o.resume = "/nonexistent/run";
  session = Session::Open(o);
  ASSERT_FALSE(session.ok());
  EXPECT_NE(session.status().message().find("/nonexistent/run: not a run directory"), std::string::npos)
      << session.status().message();
}

}  // namespace
}  // namespace cuco
