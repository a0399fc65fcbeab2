#include "bench/bench_gap.h"

#include <gtest/gtest.h>

namespace cuco {
namespace {

BenchRow GapRow(const std::string& name, const std::string& kind, double ms, const std::string& part = "") {
  BenchRow r;
  r.name = name;
  r.kind = kind;
  r.status = kind == "part" ? "timed" : "ok";
  r.part = part;
  r.median_ms = ms;
  return r;
}

// aicomm_tp_row at W=2 (bench/results/2026-11-30-s48-h200x2, call 2): chunking costs the GEMMs
// 0.019 ms, and 0.149 ms of the communication stays exposed.
TEST(BestGap, SplitsTheGapIntoTheSettingsCostAndWhatStaysExposed) {
  BenchSummary s = Summarize({GapRow("seed", "seed", 1.8211), GapRow("compute_alone", "part", 1.4492, "compute"),
                              GapRow("comm_alone", "part", 0.3699, "comm"), GapRow(kBestComputePart, "part", 1.4681, "compute"),
                              GapRow(kBestCommPart, "part", 0.3385, "comm"), GapRow("best.cu", "candidate", 1.6171)});
  const auto g = ExplainBestsGap(s);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->best, "best.cu");
  EXPECT_DOUBLE_EQ(g->bound_ms, 1.4492);
  EXPECT_NEAR(g->settings_ms, 0.0189, 1e-9);
  EXPECT_NEAR(g->exposed_ms, 0.1490, 1e-9);
  EXPECT_NEAR(g->exposed_share, 0.1490 / 0.3385, 1e-9);
  EXPECT_TRUE(g->comm_smaller);
  const std::string line = BestGapLine(g);
  EXPECT_NE(line.find("= its settings' cost to its parts 0.0189 ms"), std::string::npos) << line;
  EXPECT_NE(line.find("its communication left exposed 0.1490 ms (44% of its 0.3385 ms alone)"), std::string::npos)
      << line;
  EXPECT_NE(FormatBenchTable(s).find(line), std::string::npos) << "the footer holds it";
  EXPECT_EQ(BenchSummaryJson(s)["best_gap"]["exposed_part"], "comm");
}

TEST(BestGap, WhereTheCommunicationIsTheLongerPartTheComputationIsWhatHides) {
  BenchSummary s = Summarize({GapRow("compute_alone", "part", 1.0, "compute"), GapRow("comm_alone", "part", 2.0, "comm"),
                              GapRow(kBestComputePart, "part", 1.0, "compute"), GapRow(kBestCommPart, "part", 2.5, "comm"),
                              GapRow("a.cu", "candidate", 3.0), GapRow("b.cu", "candidate", 2.75)});
  const auto g = ExplainBestsGap(s);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->best, "b.cu") << "the fastest candidate";
  EXPECT_FALSE(g->comm_smaller);
  EXPECT_DOUBLE_EQ(g->settings_ms, 0.5);
  EXPECT_DOUBLE_EQ(g->exposed_ms, 0.25);
  EXPECT_DOUBLE_EQ(g->exposed_share, 0.25);
  EXPECT_NE(BestGapLine(g).find("its computation left exposed"), std::string::npos);
}

TEST(BestGap, NothingWithoutTheBestsOwnPartsOrABest) {
  EXPECT_FALSE(ExplainBestsGap(Summarize({GapRow("compute_alone", "part", 1.0, "compute"), GapRow("comm_alone", "part", 0.5, "comm"),
                                          GapRow("best.cu", "candidate", 1.2)})));
  EXPECT_FALSE(ExplainBestsGap(Summarize({GapRow("compute_alone", "part", 1.0, "compute"), GapRow("comm_alone", "part", 0.5, "comm"),
                                          GapRow(kBestComputePart, "part", 1.1, "compute"), GapRow(kBestCommPart, "part", 0.5, "comm")})));
  EXPECT_EQ(BestGapLine(std::nullopt), "");
  EXPECT_TRUE(BestGapJson(std::nullopt).is_null());
}

}  // namespace
}  // namespace cuco
