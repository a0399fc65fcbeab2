#include "bench/bench_table.h"

#include <gtest/gtest.h>

#include <cmath>

#include <fmt/format.h>

namespace cuco {
namespace {

BenchRow Row(const std::string& name, const std::string& kind, double ms, const std::string& status = "ok",
             const std::string& part = "") {
  BenchRow r;
  r.name = name;
  r.kind = kind;
  r.status = status;
  r.part = part;
  r.median_ms = ms;
  if (ms > 0) {
    r.p10_ms = ms * 0.95;
    r.p90_ms = ms * 1.05;
  }
  return r;
}

// The anchors of gemm_reducescatter 8192^3 on 2 H200s, in ms.
std::vector<BenchRow> Gemm() {
  return {Row("seed", "seed", 1.098),
          Row("gen0", "variant", 0.900),
          Row("compute_alone", "part", 0.763, "timed", "compute"),
          Row("comm_alone", "part", 0.366, "timed", "comm"),
          Row("mine.cu", "candidate", 0.800),
          Row("torch sequential", "peer", 1.098),
          Row("torch fused", "peer", 1.224),
          Row("torch compute alone", "peer-part", 0.763, "ok", "compute"),
          Row("torch comm alone", "peer-part", 0.366, "ok", "comm")};
}

TEST(BenchArithmetic, SpeedUp) {
  EXPECT_DOUBLE_EQ(*SpeedUp(2.0, 1.0), 2.0);
  EXPECT_DOUBLE_EQ(*SpeedUp(1.0, 4.0), 0.25);
  EXPECT_FALSE(SpeedUp(-1, 1.0));
  EXPECT_FALSE(SpeedUp(1.0, 0));
  EXPECT_FALSE(SpeedUp(NAN, 1.0));
  EXPECT_FALSE(SpeedUp(1.0, INFINITY));
}

TEST(BenchArithmetic, ShareToBound) {
  // seed 1.0, bound 0.6: 0 at the seed, 1 at the bound, linear between.
  EXPECT_DOUBLE_EQ(*ShareToBound(1.0, 1.0, 0.6), 0.0);
  EXPECT_DOUBLE_EQ(*ShareToBound(1.0, 0.6, 0.6), 1.0);
  EXPECT_NEAR(*ShareToBound(1.0, 0.8, 0.6), 0.5, 1e-12);
  EXPECT_NEAR(*ShareToBound(1.0, 1.2, 0.6), -0.5, 1e-12);  // slower than the seed
  EXPECT_NEAR(*ShareToBound(1.0, 0.5, 0.6), 1.25, 1e-12);  // past the bound (a part was not optimal)
  // No way to go when the seed is at or below the bound.
  EXPECT_FALSE(ShareToBound(1.0, 0.9, 1.0));
  EXPECT_FALSE(ShareToBound(1.0, 0.9, 1.2));
  EXPECT_FALSE(ShareToBound(1.0, 0.9, 0.99999));
  EXPECT_FALSE(ShareToBound(-1, 0.9, 0.5));
  EXPECT_FALSE(ShareToBound(1.0, 0.9, -1));
}

TEST(BenchArithmetic, BoundIsMaxOfTheBestPartOfEachKind) {
  auto rows = Gemm();
  rows.push_back(Row("compute_alone_ws4", "part", 0.700, "timed", "compute"));  // a better compute part
  rows.push_back(Row("comm_alone_broken", "part", -1, "crashed", "comm"));       // ignored: not timed
  BenchBound b = ComputeBound(rows, "part");
  ASSERT_TRUE(b.known) << b.why_unknown;
  EXPECT_DOUBLE_EQ(b.compute_ms, 0.700);
  EXPECT_EQ(b.compute_entry, "compute_alone_ws4");
  EXPECT_DOUBLE_EQ(b.comm_ms, 0.366);
  EXPECT_DOUBLE_EQ(b.ms, 0.700);
  // Communication-bound: the comm part is the bound.
  BenchBound c = ComputeBound({Row("c", "part", 0.4, "timed", "compute"), Row("m", "part", 0.77, "timed", "comm")}, "part");
  EXPECT_DOUBLE_EQ(c.ms, 0.77);
  EXPECT_EQ(c.comm_entry, "m");
}

TEST(BenchArithmetic, UnknownBoundSaysWhy) {
  EXPECT_NE(ComputeBound({Row("seed", "seed", 1.0)}, "part").why_unknown.find("no [[variants]] part"), std::string::npos);
  BenchBound only_compute = ComputeBound({Row("c", "part", 0.5, "timed", "compute")}, "part");
  EXPECT_FALSE(only_compute.known);
  EXPECT_NE(only_compute.why_unknown.find("communication alone"), std::string::npos) << only_compute.why_unknown;
  BenchBound failed =
      ComputeBound({Row("c", "part", 0.5, "timed", "compute"), Row("m", "part", -1, "crashed", "comm")}, "part");
  EXPECT_FALSE(failed.known);
  EXPECT_NE(failed.why_unknown.find("m (crashed)"), std::string::npos) << failed.why_unknown;
  // Peer parts never make cuco's bound, and cuco's parts never the peers'.
  EXPECT_FALSE(ComputeBound({Row("t", "peer-part", 0.5, "ok", "compute"), Row("u", "peer-part", 0.2, "ok", "comm")},
                            "part")
                   .known);
}

TEST(BenchSummary, FiguresPerRow) {
  BenchSummary s = Summarize(Gemm());
  EXPECT_DOUBLE_EQ(s.seed_ms, 1.098);
  EXPECT_EQ(s.best_peer, "torch sequential");  // peer parts are not peers' results
  EXPECT_DOUBLE_EQ(s.best_peer_ms, 1.098);
  ASSERT_TRUE(s.bound.known);
  EXPECT_DOUBLE_EQ(s.bound.ms, 0.763);
  ASSERT_TRUE(s.peer_bound.known);
  ASSERT_EQ(s.figures.size(), s.rows.size());

  const BenchFigures& seed = s.figures[0];
  EXPECT_DOUBLE_EQ(*seed.speedup_vs_seed, 1.0);
  EXPECT_DOUBLE_EQ(*seed.to_bound, 0.0);
  EXPECT_NEAR(*seed.bound_over_t, 0.763 / 1.098, 1e-12);

  const BenchFigures& gen0 = s.figures[1];
  EXPECT_NEAR(*gen0.speedup_vs_seed, 1.098 / 0.900, 1e-12);
  EXPECT_NEAR(*gen0.speedup_vs_best_peer, 1.098 / 0.900, 1e-12);
  EXPECT_NEAR(*gen0.to_bound, (1.098 - 0.900) / (1.098 - 0.763), 1e-12);
  EXPECT_NEAR(*gen0.bound_over_t, 0.763 / 0.900, 1e-12);

  // Parts and peer parts get no figures: they are not the whole computation.
  for (size_t i : {2u, 3u, 7u, 8u}) {
    EXPECT_FALSE(s.figures[i].speedup_vs_seed) << s.rows[i].name;
    EXPECT_FALSE(s.figures[i].to_bound) << s.rows[i].name;
  }
  // Peers are compared with the seed and the bound like anything else.
  EXPECT_NEAR(*s.figures[6].speedup_vs_seed, 1.098 / 1.224, 1e-12);
  EXPECT_LT(*s.figures[6].to_bound, 0);
}

TEST(BenchSummary, TheBoundIsOverEveryImplementationAndNamesIt) {
  auto rows = Gemm();
  rows[8].median_ms = 0.300;  // the peer's communication alone beats cuco's 0.366
  rows[7].median_ms = 0.800;  // the peer's compute alone is slower than cuco's 0.763
  BenchSummary s = Summarize(rows);
  ASSERT_TRUE(s.bound.known);
  EXPECT_DOUBLE_EQ(s.bound.compute_ms, 0.763);
  EXPECT_EQ(s.bound.compute_entry, "compute_alone");
  EXPECT_EQ(s.bound.compute_kind, "part");
  EXPECT_DOUBLE_EQ(s.bound.comm_ms, 0.300);
  EXPECT_EQ(s.bound.comm_entry, "torch comm alone");
  EXPECT_EQ(s.bound.comm_kind, "peer-part");
  // Compute-bound here, so the bound is cuco's compute; make the peer's compute faster too.
  rows[7].median_ms = 0.700;
  s = Summarize(rows);
  EXPECT_DOUBLE_EQ(s.bound.ms, 0.700);
  EXPECT_EQ(s.bound.compute_entry, "torch compute alone");
  EXPECT_DOUBLE_EQ(s.own_bound.ms, 0.763);  // cuco's own parts, kept beside it
  EXPECT_EQ(s.own_bound.compute_entry, "compute_alone");
  EXPECT_DOUBLE_EQ(s.peer_bound.ms, 0.700);
  // "To bound" and bound/T use the honest bound.
  EXPECT_NEAR(*s.figures[1].to_bound, (1.098 - 0.900) / (1.098 - 0.700), 1e-12);
  EXPECT_NEAR(*s.figures[1].bound_over_t, 0.700 / 0.900, 1e-12);
  const std::string t = FormatBenchTable(s);
  EXPECT_NE(t.find("max(compute alone 0.7000 ms [torch compute alone (peer)], communication alone 0.3000 ms "
                   "[torch comm alone (peer)])"),
            std::string::npos)
      << t;
  nlohmann::json j = BenchSummaryJson(s);
  EXPECT_EQ(j["bound"]["compute_entry"], "torch compute alone");
  EXPECT_EQ(j["bound"]["compute_kind"], "peer-part");
  EXPECT_DOUBLE_EQ(j["own_bound"]["ms"].get<double>(), 0.763);
  // Without any part at all, the honest bound says so.
  EXPECT_NE(Summarize({Row("seed", "seed", 1.0)}).bound.why_unknown.find("no part (cuco's or a peer's)"), std::string::npos);
}

TEST(BenchSummary, AnImpreciseMedianSaysHowWellItIsKnown) {
  auto rows = Gemm();
  rows[0].precision = 0.065;  // the seed's median known to +-6.5%
  rows[4].precision = 0.004;  // the candidate's to +-0.4%: precise, shown plain
  BenchSummary s = Summarize(rows);
  const std::string t = FormatBenchTable(s);
  EXPECT_NE(t.find("1.0980 +-6.5%"), std::string::npos) << t;
  EXPECT_EQ(t.find("0.8000 +-"), std::string::npos) << t;
  nlohmann::json j = BenchSummaryJson(s);
  EXPECT_DOUBLE_EQ(j["rows"][0]["precision"].get<double>(), 0.065);
  EXPECT_TRUE(j["rows"][5]["precision"].is_null());  // a peer: not known
}

TEST(BenchSummary, PartsGetTheirRateBesideThePeak) {
  auto rows = Gemm();
  const double flops = 2.0 * 8192 * 8192 * 8192 / 2, bytes = 8192.0 * 8192 * 2 / 2;
  for (size_t i : {2u, 7u}) rows[i].work = flops;  // compute parts
  for (size_t i : {3u, 8u}) rows[i].work = bytes;  // comm parts
  rows[0].work = flops;                           // a full entry: no rate
  BenchContext c;
  c.device = "NVIDIA H200";
  c.peak = DevicePeakFor(c.device);
  c.compute_flops = "2 * M * N * K / W";
  c.comm_bytes = "(W - 1) * M / W * N * 2";
  c.timing_note = "cuco: events; peers: events";
  BenchSummary s = Summarize(rows, c);
  ASSERT_TRUE(s.figures[2].rate);
  EXPECT_NEAR(*s.figures[2].rate, flops / 0.763e-3 / 1e12, 1e-9);  // TFLOP/s
  EXPECT_NEAR(*s.figures[2].of_peak, *s.figures[2].rate / 989.4, 1e-12);
  EXPECT_NEAR(*s.figures[3].rate, bytes / 0.366e-3 / 1e9, 1e-9);   // GB/s
  EXPECT_NEAR(*s.figures[3].of_peak, *s.figures[3].rate / 450.0, 1e-12);
  EXPECT_TRUE(s.figures[8].rate);  // peers' parts too
  EXPECT_FALSE(s.figures[0].rate);
  EXPECT_FALSE(s.figures[1].rate);
  const std::string t = FormatBenchTable(s);
  ASSERT_GT(*s.figures[2].rate, 100);  // shown as a whole number
  EXPECT_NE(t.find(fmt::format("{:.0f} TFLOP/s ({:.0f}%)", *s.figures[2].rate, *s.figures[2].of_peak * 100)), std::string::npos) << t;
  EXPECT_NE(t.find(fmt::format("{:.0f} GB/s ({:.0f}%)", *s.figures[3].rate, *s.figures[3].of_peak * 100)), std::string::npos) << t;
  EXPECT_NE(t.find("achieved = per rank: compute 2 * M * N * K / W FLOP, communication (W - 1) * M / W * N * 2 bytes"),
            std::string::npos) << t;
  EXPECT_NE(t.find("peak of NVIDIA H200 (H200 SXM): dense bf16 989.4 TFLOP/s, NVLink 450 GB/s each way"), std::string::npos) << t;
  EXPECT_NE(t.find("timing: cuco: events; peers: events"), std::string::npos) << t;
  nlohmann::json j = BenchSummaryJson(s);
  EXPECT_EQ(j["rows"][2]["rate_unit"], "TFLOP/s");
  EXPECT_EQ(j["rows"][3]["rate_unit"], "GB/s");
  EXPECT_TRUE(j["rows"][0]["rate"].is_null());
  EXPECT_EQ(j["rates"]["peak"]["model"], "H200 SXM");
  EXPECT_EQ(j["rates"]["comm_bytes"], "(W - 1) * M / W * N * 2");
  // An unknown device: rates without a share.
  c.device = "Some GPU";
  c.peak.reset();
  s = Summarize(rows, c);
  EXPECT_TRUE(s.figures[2].rate);
  EXPECT_FALSE(s.figures[2].of_peak);
  EXPECT_NE(FormatBenchTable(s).find("peak of Some GPU: not in cuco's table"), std::string::npos);
}

TEST(BenchSummary, FailedRowsGetNoFiguresAndNoSeedMeansNoSpeedUps) {
  auto rows = Gemm();
  rows[4].status = "wrong_result";  // a failed candidate keeps no time that counts
  rows[4].reason = "verify: rank 0: relative L2 error 0.7";
  BenchSummary s = Summarize(rows);
  EXPECT_FALSE(s.figures[4].speedup_vs_seed);
  rows[0].status = "compile_error";
  s = Summarize(rows);
  EXPECT_LT(s.seed_ms, 0);
  EXPECT_FALSE(s.figures[1].speedup_vs_seed);
  EXPECT_FALSE(s.figures[1].to_bound);
  EXPECT_TRUE(s.figures[1].bound_over_t);  // the bound is still known
}

TEST(BenchTable, TextShowsEveryRowTheBoundAndFailures) {
  auto rows = Gemm();
  rows[4].status = "wrong_result";
  rows[4].reason = "verify: rank 0: relative L2 error 0.7";
  BenchRow skipped;
  skipped.name = "peers";
  skipped.kind = "peer";
  skipped.status = "skipped";
  skipped.reason = "python3 cannot import torch";
  rows.push_back(skipped);
  std::string t = FormatBenchTable(Summarize(rows));
  EXPECT_EQ(t.rfind("entry", 0), 0u) << t;
  EXPECT_NE(t.find("vs seed"), std::string::npos);
  EXPECT_NE(t.find("to bound"), std::string::npos);
  EXPECT_NE(t.find("unverified (bound part)"), std::string::npos) << t;
  EXPECT_NE(t.find("1.0980"), std::string::npos) << t;
  EXPECT_NE(t.find("1.22x"), std::string::npos) << t;   // gen0 vs seed
  EXPECT_NE(t.find("59%"), std::string::npos) << t;     // gen0: (1.098-0.9)/(1.098-0.763)
  EXPECT_NE(t.find("overlap bound (fastest parts of every implementation timed): 0.7630 ms = max(compute alone "
                   "0.7630 ms [compute_alone], communication alone 0.3660 ms [comm_alone])"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("  cuco's own parts: 0.7630 ms"), std::string::npos) << t;
  EXPECT_NE(t.find("  peers' own parts: 0.7630 ms"), std::string::npos) << t;
  EXPECT_NE(t.find("torch sequential     peer       ok (unchecked)"), std::string::npos) << t;
  EXPECT_NE(t.find("best peer: torch sequential 1.0980 ms"), std::string::npos) << t;
  EXPECT_NE(t.find("failed:\n  mine.cu (candidate): wrong_result: verify: rank 0"), std::string::npos) << t;
  EXPECT_NE(t.find("skipped:\n  peers (peer): python3 cannot import torch"), std::string::npos) << t;
  // Every line of the table part has its columns aligned: the header's "median ms" ends where
  // the seed's time ends.
  size_t header_end = t.find('\n');
  size_t seed_line = header_end + 1;
  size_t seed_end = t.find('\n', seed_line);
  std::string header = t.substr(0, header_end), seed = t.substr(seed_line, seed_end - seed_line);
  EXPECT_EQ(header.find("median ms") + 9, seed.find("1.0980") + 6) << t;
}

// An entry faster than the bound by more than the margin is said, in the text and the JSON; one
// within the margin (timing noise around a well-hidden communication) is not.
TEST(BenchTable, AnEntryPastTheBoundIsFlagged) {
  auto rows = Gemm();           // bound 0.763
  rows[1].median_ms = 0.750;    // gen0: 1.7% below, within the margin
  rows[4].median_ms = 0.700;    // mine.cu: 8.3% below
  BenchSummary s = Summarize(rows);
  EXPECT_FALSE(PastBound(s.figures[1]));
  EXPECT_TRUE(PastBound(s.figures[4]));
  EXPECT_FALSE(PastBound(s.figures[0]));  // the seed, slower than the bound
  const std::string t = FormatBenchTable(s);
  EXPECT_NE(t.find("PAST THE BOUND: mine.cu (candidate) took 0.7000 ms, 8.3% below the overlap bound 0.7630 ms"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("PAST THE BOUND: gen0"), std::string::npos) << t;
  const nlohmann::json j = BenchSummaryJson(s);
  EXPECT_TRUE(j["rows"][4]["past_bound"].get<bool>());
  EXPECT_FALSE(j["rows"][1]["past_bound"].get<bool>());
}

// Entries timed without MPS (the supervisor's and the candidate's contexts taking turns) never
// stand beside a peer's time unlabelled: no "vs best peer", a TIME-SLICED column and a note.
TEST(BenchTable, TimeSlicedEntriesAreLabelledAndNotComparedWithPeers) {
  auto rows = Gemm();
  for (auto& r : rows)
    r.method = r.kind == "peer" || r.kind == "peer-part" ? "own process per rank, no MPS"
                                                          : "time-sliced (no MPS): not comparable with peers";
  BenchSummary s = Summarize(rows);
  EXPECT_TRUE(s.figures[1].speedup_vs_seed) << "entries timed alike still compare with each other";
  EXPECT_FALSE(s.figures[1].speedup_vs_best_peer);
  EXPECT_FALSE(s.figures[4].speedup_vs_best_peer);
  EXPECT_TRUE(s.figures[6].speedup_vs_seed);
  const std::string t = FormatBenchTable(s);
  EXPECT_NE(t.find("TIME-SLICED"), std::string::npos) << t;
  EXPECT_NE(t.find("timing of cuco's entries: time-sliced (no MPS): not comparable with peers"), std::string::npos) << t;
  EXPECT_NE(t.find("timing of the peers: own process per rank, no MPS"), std::string::npos) << t;
  EXPECT_NE(t.find("they are NOT comparable with the peers"), std::string::npos) << t;
  const nlohmann::json j = BenchSummaryJson(s);
  EXPECT_EQ(j["rows"][1]["comparable_with_peers"], false);
  EXPECT_TRUE(j["rows"][1]["speedup_vs_best_peer"].is_null());

  for (auto& r : rows)
    if (r.kind != "peer" && r.kind != "peer-part") r.method = "MPS (cuco's own daemon: supervisor and candidate run concurrently)";
  s = Summarize(rows);
  EXPECT_NEAR(*s.figures[1].speedup_vs_best_peer, 1.098 / 0.900, 1e-12);
  const std::string mps = FormatBenchTable(s);
  EXPECT_EQ(mps.find("TIME-SLICED"), std::string::npos) << mps;
  EXPECT_EQ(mps.find("NOT comparable"), std::string::npos) << mps;
}

TEST(BenchTable, Json) {
  nlohmann::json j = BenchSummaryJson(Summarize(Gemm()));
  ASSERT_EQ(j["rows"].size(), 9u);
  EXPECT_EQ(j["rows"][2]["status"], "timed");
  EXPECT_EQ(j["rows"][2]["status_text"], "unverified (bound part)");
  EXPECT_EQ(j["rows"][2]["verified"], false);
  EXPECT_EQ(j["rows"][0]["verified"], true);
  EXPECT_EQ(j["rows"][5]["verified"], false);  // cuco does not check a peer's outputs
  EXPECT_EQ(j["rows"][5]["peer_checked"], false);
  EXPECT_TRUE(j["rows"][2]["speedup_vs_seed"].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][1]["speedup_vs_seed"].get<double>(), 1.098 / 0.9);
  EXPECT_DOUBLE_EQ(j["bound"]["ms"].get<double>(), 0.763);
  EXPECT_EQ(j["bound"]["compute_entry"], "compute_alone");
  EXPECT_EQ(j["best_peer"]["entry"], "torch sequential");
  EXPECT_DOUBLE_EQ(j["seed"]["ms"].get<double>(), 1.098);
}

}  // namespace
}  // namespace cuco
