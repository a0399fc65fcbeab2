// EvaluateAndStore (`cuco eval`'s work): every candidate evaluated and stored, pending first and
// its record after, the results in the candidates' order whatever the order the workers took them.
#include "search/eval_candidates.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>

#include "util/files.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

fs::path EvalWorkloadDir() { return fs::path(CUCO_SOURCE_DIR) / "tests" / "workloads" / "cpu_matmul"; }

TEST(EvaluateAndStore, StoresEveryCandidateWithItsRecord) {
  const fs::path run = fs::temp_directory_path() / ("cuco_eval_candidates_" + std::to_string(::getpid()));
  fs::remove_all(run);
  fs::create_directories(run);
  auto wl = LoadWorkload(EvalWorkloadDir());
  ASSERT_TRUE(wl.ok()) << wl.status().ToString();
  Toolchain tc;
  tc.cxx = "g++";
  CascadeOptions o;
  o.cache_dir = CUCO_BINARY_DIR "/test-cache";  // shared with the other tests: the runtime is compiled once
  o.compile_only = true;
  Cascade cascade(*wl, tc, o);
  auto store = CandidateStore::Open((run / "cuco.db").string());
  ASSERT_TRUE(store.ok()) << store.status().message();
  std::vector<EvalCandidate> todo;
  for (const fs::path& p : {EvalWorkloadDir() / "seed.cc", EvalWorkloadDir() / "candidates" / "compile_error.cc",
                            EvalWorkloadDir() / "candidates" / "frozen_edit.cc"}) {
    auto code = ReadFile(p);
    ASSERT_TRUE(code.ok()) << p;
    todo.push_back({p.string(), *code});
  }
  const std::vector<EvaluatedCandidate> done = EvaluateAndStore(cascade, **store, run, todo, "manual", 2);
  ASSERT_EQ(done.size(), todo.size());
  EXPECT_EQ(done[0].record.status, EvalStatus::kSkipped) << done[0].record.Summary();  // compiled only
  EXPECT_EQ(done[1].record.status, EvalStatus::kCompileError) << done[1].record.Summary();
  EXPECT_EQ(done[2].record.status, EvalStatus::kRejected) << done[2].record.Summary();
  std::set<int64_t> ids;
  for (size_t i = 0; i < done.size(); ++i) {
    ASSERT_GT(done[i].store_id, 0);
    ids.insert(done[i].store_id);
    auto stored = (*store)->Get(done[i].store_id);
    ASSERT_TRUE(stored.ok()) << stored.status().message();
    EXPECT_EQ(stored->run_id, run.filename().string());
    EXPECT_EQ(stored->code, todo[i].code);
    EXPECT_EQ(stored->mutation_kind, "manual");
    EXPECT_EQ(stored->proposer, "manual");
    EXPECT_EQ(stored->status, EvalStatusName(done[i].record.status));
    EXPECT_EQ(stored->code_hash, done[i].record.code_hash);
    EXPECT_EQ(stored->feedback, done[i].record.reason.empty() ? todo[i].label : todo[i].label + ": " + done[i].record.reason);
    EXPECT_GT(stored->finished_ms, 0);
  }
  EXPECT_EQ(ids.size(), done.size());
  fs::remove_all(run);
}

}  // namespace
}  // namespace cuco
