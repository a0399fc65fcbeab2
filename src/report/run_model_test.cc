#include "report/run_model.h"

#include <gtest/gtest.h>

#include "report/export_rows.h"
#include "report/report_test_run.h"

namespace cuco {
namespace {

using report_test::TestRun;

RunData Load(const TestRun& t) {
  auto run = LoadRun(t.dir());
  EXPECT_TRUE(run.ok()) << run.status().message();
  return *run;
}

TEST(RunData, MissingStoreIsAnErrorNamingTheDir) {
  auto run = LoadRun("/nonexistent/run");
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("/nonexistent/run: not a run directory"), std::string::npos);
}

TEST(RunData, SeedBestAndResolve) {
  TestRun t;
  RunData run = Load(t);
  ASSERT_EQ(run.candidates.size(), 8u);
  EXPECT_EQ(run.Seed()->id, 1);
  EXPECT_EQ(run.Best()->id, 4);
  EXPECT_EQ(*ResolveCandidateId(run, "best"), 4);
  EXPECT_EQ(*ResolveCandidateId(run, "seed"), 1);
  EXPECT_EQ(*ResolveCandidateId(run, "6"), 6);
  EXPECT_EQ(ResolveCandidateId(run, "99").status().code(), Status::Code::kNotFound);
  EXPECT_EQ(ResolveCandidateId(run, "x1").status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(ResolveCandidateId(run, "-3").status().code(), Status::Code::kInvalidArgument);
}

TEST(RunModel, LineageHasCrossoverParentsAndMigrations) {
  TestRun t;
  Lineage l = BuildLineage(Load(t));
  ASSERT_EQ(l.nodes.size(), 8u);
  EXPECT_EQ(l.nodes[5].id, 6);
  EXPECT_EQ(l.nodes[5].parent, 4);
  EXPECT_EQ(l.nodes[5].extra_parents, std::vector<int64_t>{2});
  EXPECT_EQ(l.nodes[5].island, 1);
  ASSERT_EQ(l.migrations.size(), 1u);
  EXPECT_EQ(l.migrations[0].id, 4);
  EXPECT_EQ(l.migrations[0].from, 0);
  EXPECT_EQ(l.migrations[0].to, 1);
  EXPECT_EQ(l.migrations[0].generation, 2);
}

TEST(RunModel, BestSoFarOverallAndPerIsland) {
  TestRun t;
  auto s = BestSoFar(Load(t));
  ASSERT_EQ(s.size(), 3u);  // all, island 0, island 1
  EXPECT_EQ(s[0].island, -1);
  ASSERT_EQ(s[0].points.size(), 3u);  // 10 (#1), 8 (#2), 6 (#4); 7 (#6) is no improvement
  EXPECT_EQ(s[0].points[2].id, 4);
  EXPECT_EQ(s[0].points[2].n, 4);
  EXPECT_DOUBLE_EQ(s[0].points[2].best_ms, 6.0);
  EXPECT_DOUBLE_EQ(s[0].points[0].wall_s, 0.05);
  EXPECT_EQ(s[2].island, 1);
  ASSERT_EQ(s[2].points.size(), 2u);  // island 1 starts at the seed (10 ms, #1), then 7 (#6)
  EXPECT_EQ(s[2].points[0].id, 1);
  EXPECT_DOUBLE_EQ(s[2].points[0].best_ms, 10.0);
  EXPECT_EQ(s[2].points[1].id, 6);
}

TEST(RunModel, KnobAggregationCountsAndTimes) {
  TestRun t;
  auto knobs = AggregateKnobs(Load(t));
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].knob, "chunks");
  std::vector<std::string> values;
  for (const auto& v : knobs[0].values) values.push_back(v.value);
  EXPECT_EQ(values, (std::vector<std::string>{"1", "2", "3", "4", "16"}));  // numeric order; the pending 8 left out
  const auto& two = knobs[0].values[1];
  EXPECT_EQ(two.tried, 2);
  EXPECT_EQ(two.ok, 2);
  EXPECT_DOUBLE_EQ(two.time_ms.median, 7.5);
  EXPECT_DOUBLE_EQ(two.time_ms.min, 7.0);
  const auto& three = knobs[0].values[2];
  EXPECT_EQ(three.ok, 0);
  EXPECT_EQ(three.failed.at("wrong_result"), 2);
  EXPECT_EQ(three.time_ms.count, 0);
  EXPECT_EQ(knobs[1].knob, "placement");
  EXPECT_EQ(knobs[1].values[1].value, "interleaved");
  EXPECT_EQ(knobs[1].values[1].tried, 4);
}

TEST(RunModel, DistributionQuantiles) {
  Distribution d = Distribute({5, 1, 3, 2, 4});
  EXPECT_EQ(d.count, 5);
  EXPECT_DOUBLE_EQ(d.median, 3);
  EXPECT_DOUBLE_EQ(d.p10, 1.4);
  EXPECT_DOUBLE_EQ(d.p90, 4.6);
  EXPECT_EQ(Distribute({}).median, -1);
}

TEST(RunModel, FailuresGroupedByVerdictAndFoldedReason) {
  TestRun t;
  auto f = GroupFailures(Load(t));
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].status, "wrong_result");
  EXPECT_EQ(f[0].ids, (std::vector<int64_t>{3, 5}));  // same cause, different figures: one group
  EXPECT_EQ(f[0].reason, "verify: rel # # > # on rank #");
  EXPECT_EQ(f[0].example, "verify: rel L2 0.71 > 0.0001 on rank 1");
  EXPECT_EQ(f[1].status, "compile_error");
  EXPECT_EQ(f[1].ids, std::vector<int64_t>{7});
}

TEST(RunModel, FailuresFromHashedCachePathsAreOneGroup) {
  RunData run;
  for (const char* hash : {"c5d62dad2ea0", "74958c0a0b6a"}) {
    CandidateRecord c;
    c.status = "compile_error";
    c.feedback = std::string("compile_error: /cache/cand-") + hash + "/candidate.cc:19:15: error: static assertion failed";
    run.candidates.push_back(c);
  }
  auto f = GroupFailures(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].reason, "compile_error: /cache/cand-#/candidate.cc:#:#: error: static assertion failed");
  EXPECT_EQ(f[0].ids.size(), 2u);
}

TEST(Export, ColumnsAreStableAndRowsComplete) {
  TestRun t;
  RunData run = Load(t);
  auto cols = ExportColumns(run);
  ASSERT_EQ(cols.size(), kExportColumns.size() + 2);
  EXPECT_EQ(cols[0], "id");
  EXPECT_EQ(cols[cols.size() - 2], "knob.chunks");
  EXPECT_EQ(cols.back(), "knob.placement");
  auto rows = ExportJson(run);
  ASSERT_EQ(rows.size(), 8u);
  for (const auto& r : rows)
    for (const auto& c : cols) EXPECT_TRUE(r.contains(c)) << c;
  EXPECT_EQ(rows[5]["extra_parent_ids"], nlohmann::json::array({2}));
  EXPECT_EQ(rows[2]["reason"], "verify: rel L2 0.71 > 0.0001 on rank 1");
  EXPECT_EQ(rows[0]["knob.chunks"], "1");
  EXPECT_TRUE(rows[2]["time_ms"].is_null());
}

TEST(Export, CsvQuotesFieldsAndHasOneLinePerCandidate) {
  EXPECT_EQ(CsvField("plain"), "plain");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\"\n"), "\"say \"\"hi\"\"\n\"");
  TestRun t;
  const std::string csv = ExportCsv(Load(t));
  EXPECT_EQ(csv.rfind("id,parent_id,extra_parent_ids,island,generation,status,reason,time_ms", 0), 0u);
  size_t records = 0;
  bool quoted = false;
  for (size_t i = 0; i < csv.size(); ++i) {
    if (csv[i] == '"') quoted = !quoted;
    if (!quoted && csv[i] == '\n') ++records;
  }
  EXPECT_EQ(records, 9u);  // header + 8
}

}  // namespace
}  // namespace cuco
