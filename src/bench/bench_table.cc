#include "bench/bench_table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "bench/bench_gap.h"
#include "evaluate/timing_precision.h"

namespace cuco {
namespace {

nlohmann::json Opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
nlohmann::json Ms(double v) { return v > 0 && std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

nlohmann::json BenchTextOrNull(const std::string& s) { return s.empty() ? nlohmann::json(nullptr) : nlohmann::json(s); }

nlohmann::json BoundJson(const BenchBound& b) {
  nlohmann::json j = {{"known", b.known},
                      {"ms", Ms(b.ms)},
                      {"compute_ms", Ms(b.compute_ms)},
                      {"compute_entry", BenchTextOrNull(b.compute_entry)},
                      {"compute_kind", BenchTextOrNull(b.compute_kind)},
                      {"comm_ms", Ms(b.comm_ms)},
                      {"comm_entry", BenchTextOrNull(b.comm_entry)},
                      {"comm_kind", BenchTextOrNull(b.comm_kind)}};
  if (!b.known) j["why_unknown"] = b.why_unknown;
  return j;
}

bool IsBenchPart(const BenchRow& r) { return r.kind == "part" || r.kind == "peer-part"; }

// "743 TFLOP/s (75%)": a part's rate (three significant digits, at least) and its share of the peak.
std::string FormatPartRate(const BenchRow& r, const BenchFigures& f) {
  if (!f.rate) return "-";
  const std::string unit = r.part == "compute" ? "TFLOP/s" : "GB/s";
  const double v = *f.rate;
  const std::string value = v >= 100 ? fmt::format("{:.0f}", v) : v >= 10 ? fmt::format("{:.1f}", v) : fmt::format("{:.3g}", v);
  return fmt::format("{} {}{}", value, unit, f.of_peak ? fmt::format(" ({:.0f}%)", *f.of_peak * 100.0) : "");
}

// "compute_alone" or "torch comm alone (peer)": which implementation gave a bound's part.
std::string PartSource(const std::string& entry, const std::string& kind) {
  return kind == "peer-part" ? entry + " (peer)" : entry;
}

std::string Pad(const std::string& s, size_t width, bool right) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string FormatMs(double ms) { return ms > 0 ? fmt::format("{:.4f}", ms) : "-"; }

// The median, and how precisely it is known where that is worse than kMedianPrecision
// ("0.6519 +-6.5%": a difference smaller than that is not shown by this entry).
std::string FormatMedian(const BenchRow& r) {
  const std::string ms = FormatMs(r.median_ms);
  return r.median_ms > 0 && r.precision > kMedianPrecision ? fmt::format("{} +-{:.1f}%", ms, 100 * r.precision) : ms;
}

std::string FormatSpread(const BenchRow& r) {
  if (!(r.p10_ms > 0) || !(r.p90_ms > 0)) return "-";
  return fmt::format("{:.4f}-{:.4f}", r.p10_ms, r.p90_ms);
}

std::string FormatX(const std::optional<double>& v) { return v ? fmt::format("{:.2f}x", *v) : "-"; }
std::string FormatShare(const std::optional<double>& v) {
  if (!v) return "-";
  double p = std::round(*v * 100.0);
  if (p == 0) p = 0;  // no "-0%"
  return fmt::format("{:.0f}%", p);
}
std::string FormatRatio(const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v) : "-"; }

bool IsPeer(const BenchRow& r) { return r.kind == "peer" || r.kind == "peer-part"; }

// The timing column: short words for the methods the notes below the table spell out.
std::string TimingCell(const BenchRow& r) {
  if (r.method.empty()) return "-";
  if (!RowComparableWithPeers(r)) return "TIME-SLICED";
  if (r.method.rfind("MPS", 0) == 0) return "MPS";
  return IsPeer(r) ? "own process" : "-";
}

// "timing of cuco's entries: ...", "timing of the peers: ...", and what that means for the table.
std::string TimingNotes(const std::vector<BenchRow>& rows) {
  std::vector<std::string> ours, peers;
  bool sliced = false, any_peer_timed = false;
  for (const auto& r : rows) {
    if (r.method.empty()) continue;
    auto& into = IsPeer(r) ? peers : ours;
    if (std::find(into.begin(), into.end(), r.method) == into.end()) into.push_back(r.method);
    if (!IsPeer(r) && RowIsTimed(r) && !RowComparableWithPeers(r)) sliced = true;
    if (IsPeer(r) && RowIsTimed(r)) any_peer_timed = true;
  }
  std::string out;
  for (const auto& m : ours) out += "timing of cuco's entries: " + m + "\n";
  for (const auto& m : peers) out += "timing of the peers: " + m + "\n";
  if (sliced && any_peer_timed)
    out += "TIME-SLICED entries were timed with the supervisor's and the candidate's contexts taking turns on the GPU "
           "(1.4-1.8x slow): they are NOT comparable with the peers, and have no \"vs best peer\"\n";
  return out;
}

}  // namespace

bool RowIsTimed(const BenchRow& row) {
  return row.median_ms > 0 && std::isfinite(row.median_ms) && (row.status == "ok" || row.status == "timed");
}

bool RowIsFull(const BenchRow& row) {
  return row.kind == "seed" || row.kind == "variant" || row.kind == "candidate" || row.kind == "peer";
}

bool RowComparableWithPeers(const BenchRow& row) { return row.method.rfind("time-sliced", 0) != 0; }

std::string RowStatusText(const BenchRow& row) {
  if (row.status == "timed") return "unverified (bound part)";
  if (row.kind == "peer" && row.status == "ok") return row.peer_checked ? "ok (self-checked)" : "ok (unchecked)";
  return row.status;
}

std::optional<double> SpeedUp(double base_ms, double t_ms) {
  if (!(base_ms > 0) || !(t_ms > 0) || !std::isfinite(base_ms) || !std::isfinite(t_ms)) return std::nullopt;
  return base_ms / t_ms;
}

std::optional<double> ShareToBound(double seed_ms, double t_ms, double bound_ms) {
  if (!(seed_ms > 0) || !(t_ms > 0) || !(bound_ms > 0)) return std::nullopt;
  if (!std::isfinite(seed_ms) || !std::isfinite(t_ms) || !std::isfinite(bound_ms)) return std::nullopt;
  const double gap = seed_ms - bound_ms;
  if (!(gap > 1e-3 * seed_ms)) return std::nullopt;  // the seed is at (or past) the bound: no way to go
  return (seed_ms - t_ms) / gap;
}

BenchBound ComputeBound(const std::vector<BenchRow>& rows, const std::string& part_kind) {
  return ComputeBound(rows, std::vector<std::string>{part_kind});
}

BenchBound ComputeBound(const std::vector<BenchRow>& rows, const std::vector<std::string>& part_kinds) {
  BenchBound b;
  std::vector<std::string> failed;
  bool any_compute = false, any_comm = false;
  for (const auto& r : rows) {
    if (std::find(part_kinds.begin(), part_kinds.end(), r.kind) == part_kinds.end()) continue;
    const bool compute = r.part == "compute", comm = r.part == "comm";
    any_compute |= compute;
    any_comm |= comm;
    if (!RowIsTimed(r)) {
      failed.push_back(fmt::format("{} ({})", r.name, r.status));
      continue;
    }
    if (compute && (b.compute_ms < 0 || r.median_ms < b.compute_ms)) {
      b.compute_ms = r.median_ms;
      b.compute_entry = r.name;
      b.compute_kind = r.kind;
    }
    if (comm && (b.comm_ms < 0 || r.median_ms < b.comm_ms)) {
      b.comm_ms = r.median_ms;
      b.comm_entry = r.name;
      b.comm_kind = r.kind;
    }
  }
  if (b.compute_ms > 0 && b.comm_ms > 0) {
    b.known = true;
    b.ms = std::max(b.compute_ms, b.comm_ms);
    return b;
  }
  const std::string what = part_kinds.size() > 1         ? "part (cuco's or a peer's)"
                           : part_kinds.front() == "part" ? "[[variants]] part"
                                                          : "peer part";
  if (!any_compute && !any_comm) {
    b.why_unknown = fmt::format("no {} (compute alone, communication alone) was run", what);
  } else if (!any_compute || !any_comm) {
    b.why_unknown = fmt::format("no {} {} alone was run", what, any_compute ? "communication" : "compute");
  } else {
    std::string list;
    for (const auto& f : failed) list += (list.empty() ? "" : ", ") + f;
    b.why_unknown = "a part was not timed: " + list;
  }
  return b;
}

std::optional<double> PartRate(const BenchRow& row) {
  if (!IsBenchPart(row) || !RowIsTimed(row) || !(row.work > 0)) return std::nullopt;
  if (row.part == "compute") return row.work / (row.median_ms * 1e-3) / 1e12;  // TFLOP/s
  if (row.part == "comm") return row.work / (row.median_ms * 1e-3) / 1e9;      // GB/s
  return std::nullopt;
}

BenchSummary Summarize(std::vector<BenchRow> rows, BenchContext context) {
  BenchSummary s;
  s.rows = std::move(rows);
  s.context = std::move(context);
  for (const auto& r : s.rows) {
    if (r.kind == "seed" && RowIsTimed(r) && s.seed_ms < 0) {
      s.seed_ms = r.median_ms;
      s.seed_entry = r.name;
    }
    if (r.kind == "peer" && RowIsTimed(r) && (s.best_peer_ms < 0 || r.median_ms < s.best_peer_ms)) {
      s.best_peer_ms = r.median_ms;
      s.best_peer = r.name;
    }
  }
  s.bound = ComputeBound(s.rows, std::vector<std::string>{"part", "peer-part"});
  s.own_bound = ComputeBound(s.rows, "part");
  s.peer_bound = ComputeBound(s.rows, "peer-part");
  for (const auto& r : s.rows) {
    BenchFigures f;
    f.rate = PartRate(r);
    if (f.rate && s.context.peak) {
      const double peak = r.part == "compute" ? s.context.peak->bf16_dense_tflops : s.context.peak->nvlink_gbps_per_dir;
      if (peak > 0) f.of_peak = *f.rate / peak;
    }
    if (RowIsFull(r) && RowIsTimed(r)) {
      f.speedup_vs_seed = SpeedUp(s.seed_ms, r.median_ms);
      if (RowComparableWithPeers(r)) f.speedup_vs_best_peer = SpeedUp(s.best_peer_ms, r.median_ms);
      if (s.bound.known) {
        f.to_bound = ShareToBound(s.seed_ms, r.median_ms, s.bound.ms);
        f.bound_over_t = SpeedUp(s.bound.ms, r.median_ms);
      }
    }
    s.figures.push_back(f);
  }
  return s;
}

bool PastBound(const BenchFigures& f) { return f.bound_over_t && *f.bound_over_t > 1 + kPastBoundMargin; }

namespace {

// One line per full entry faster than the bound by more than kPastBoundMargin ("" when none).
std::string PastBoundLines(const BenchSummary& s) {
  std::string out;
  for (size_t i = 0; i < s.rows.size(); ++i)
    if (PastBound(s.figures[i]))
      out += fmt::format("PAST THE BOUND: {} ({}) took {:.4f} ms, {:.1f}% below the overlap bound {:.4f} ms: faster than its "
                         "fastest parts allow. A part ran slower alone than it can, or some of the entry's work was not "
                         "timed: check both before trusting either figure.\n",
                         s.rows[i].name, s.rows[i].kind, s.rows[i].median_ms, 100 * (1 - s.rows[i].median_ms / s.bound.ms),
                         s.bound.ms);
  return out;
}

std::string BenchBoundLine(const char* label, const BenchBound& b) {
  if (!b.known) return fmt::format("{}: unknown ({})\n", label, b.why_unknown);
  return fmt::format("{}: {:.4f} ms = max(compute alone {:.4f} ms [{}], communication alone {:.4f} ms [{}])\n", label,
                     b.ms, b.compute_ms, PartSource(b.compute_entry, b.compute_kind), b.comm_ms,
                     PartSource(b.comm_entry, b.comm_kind));
}

// Below the table: the bounds, the seed and best peer, the rates' formulas and peaks, the timing,
// then failures and skips with their reasons.
std::string BenchFooter(const BenchSummary& s) {
  std::string out = BenchBoundLine("overlap bound (fastest parts of every implementation timed)", s.bound);
  out += BenchBoundLine("  cuco's own parts", s.own_bound);
  if (s.peer_bound.known) out += BenchBoundLine("  peers' own parts", s.peer_bound);
  out += PastBoundLines(s);
  if (s.seed_ms > 0)
    out += fmt::format("seed: {:.4f} ms [{}]{}\n", s.seed_ms, s.seed_entry,
                       s.bound.known ? fmt::format("; the bound is {:.2f}x faster", s.seed_ms / s.bound.ms) : "");
  else
    out += "seed: not timed (speed-ups and \"to bound\" need it)\n";
  if (s.best_peer_ms > 0) out += fmt::format("best peer: {} {:.4f} ms\n", s.best_peer, s.best_peer_ms);
  out += BestGapLine(ExplainBestsGap(s));
  out += "to bound = (T_seed - T) / (T_seed - T_bound): 0% at the seed, 100% at the bound. Parts are timed, not verified.\n";
  const BenchContext& c = s.context;
  if (!c.compute_flops.empty() || !c.comm_bytes.empty())
    out += fmt::format("achieved = per rank: compute {} FLOP, communication {} bytes sent (workload.toml [work])\n",
                       c.compute_flops.empty() ? "(not stated)" : c.compute_flops,
                       c.comm_bytes.empty() ? "(not stated)" : c.comm_bytes);
  if (c.peak)
    out += fmt::format("peak of {} ({}): dense bf16 {:.1f} TFLOP/s, NVLink {:.0f} GB/s each way; (%) is the share of it\n",
                       c.device, c.peak->model, c.peak->bf16_dense_tflops, c.peak->nvlink_gbps_per_dir);
  else if (!c.device.empty())
    out += "peak of " + c.device + ": not in cuco's table (toolchain/device_peaks.h), so rates carry no share of it\n";
  if (!c.timing_note.empty()) out += "timing: " + c.timing_note + "\n";
  out += TimingNotes(s.rows);

  std::string failed, skipped;
  for (const auto& r : s.rows) {
    if (r.status == "skipped")
      skipped += fmt::format("  {} ({}): {}\n", r.name, r.kind, r.reason.empty() ? "skipped" : r.reason);
    else if (r.status != "ok" && r.status != "timed")
      failed += fmt::format("  {} ({}): {}: {}\n", r.name, r.kind, r.status, r.reason.empty() ? "no reason given" : r.reason);
  }
  if (!failed.empty()) out += "failed:\n" + failed;
  if (!skipped.empty()) out += "skipped:\n" + skipped;
  return out;
}

}  // namespace

std::string FormatBenchTable(const BenchSummary& s) {
  const std::vector<std::string> header = {"entry",   "kind",         "status",   "median ms", "p10-p90 ms",
                                           "vs seed", "vs best peer", "to bound", "bound/T",   "achieved",
                                           "timing"};
  const std::vector<bool> right = {false, false, false, true, true, true, true, true, true, true, false};
  std::vector<std::vector<std::string>> cells;
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const BenchRow& r = s.rows[i];
    const BenchFigures& f = s.figures[i];
    const bool timed = RowIsTimed(r);
    cells.push_back({r.name, r.kind, RowStatusText(r), timed ? FormatMedian(r) : "-",
                     timed ? FormatSpread(r) : "-", FormatX(f.speedup_vs_seed), FormatX(f.speedup_vs_best_peer),
                     FormatShare(f.to_bound), FormatRatio(f.bound_over_t), FormatPartRate(r, f), TimingCell(r)});
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t c = 0; c < row.size(); ++c) out += (c ? "  " : "") + Pad(row[c], width[c], right[c]);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& row : cells) out += line(row);
  return out + "\n" + BenchFooter(s);
}

nlohmann::json BenchSummaryJson(const BenchSummary& s) {
  nlohmann::json rows = nlohmann::json::array();
  for (size_t i = 0; i < s.rows.size(); ++i) {
    const BenchRow& r = s.rows[i];
    const BenchFigures& f = s.figures[i];
    const bool timed = RowIsTimed(r);
    rows.push_back({{"name", r.name},
                    {"kind", r.kind},
                    {"status", r.status},
                    {"status_text", RowStatusText(r)},
                    {"verified", r.status == "ok" && r.kind != "peer" && r.kind != "peer-part"},
                    {"part", r.part.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.part)},
                    {"median_ms", timed ? Ms(r.median_ms) : nullptr},
                    {"p10_ms", timed ? Ms(r.p10_ms) : nullptr},
                    {"p90_ms", timed ? Ms(r.p90_ms) : nullptr},
                    {"precision", timed && r.precision > 0 ? nlohmann::json(r.precision) : nlohmann::json(nullptr)},
                    {"speedup_vs_seed", Opt(f.speedup_vs_seed)},
                    {"speedup_vs_best_peer", Opt(f.speedup_vs_best_peer)},
                    {"to_bound", Opt(f.to_bound)},
                    {"bound_over_t", Opt(f.bound_over_t)},
                    {"past_bound", PastBound(f)},
                    {"reason", r.reason},
                    {"detail", r.detail},
                    {"method", r.method},
                    {"comparable_with_peers", RowComparableWithPeers(r)},
                    {"peer_checked", r.peer_checked},
                    {"work", r.work > 0 ? nlohmann::json(r.work) : nlohmann::json(nullptr)},
                    {"rate", Opt(f.rate)},
                    {"rate_unit", f.rate ? nlohmann::json(r.part == "compute" ? "TFLOP/s" : "GB/s") : nlohmann::json(nullptr)},
                    {"of_peak", Opt(f.of_peak)}});
  }
  const BenchContext& c = s.context;
  nlohmann::json peak = nullptr;
  if (c.peak)
    peak = {{"model", c.peak->model},
            {"bf16_dense_tflops", c.peak->bf16_dense_tflops},
            {"nvlink_gbps_per_dir", c.peak->nvlink_gbps_per_dir},
            {"source", c.peak->source}};
  return {{"rows", rows},
          {"seed", {{"entry", s.seed_entry.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.seed_entry)},
                    {"ms", Ms(s.seed_ms)}}},
          {"best_peer", {{"entry", s.best_peer.empty() ? nlohmann::json(nullptr) : nlohmann::json(s.best_peer)},
                         {"ms", Ms(s.best_peer_ms)}}},
          {"bound", BoundJson(s.bound)},
          {"own_bound", BoundJson(s.own_bound)},
          {"peer_bound", BoundJson(s.peer_bound)},
          {"best_gap", BestGapJson(ExplainBestsGap(s))},
          {"rates", {{"device", BenchTextOrNull(c.device)},
                     {"peak", peak},
                     {"compute_flops", BenchTextOrNull(c.compute_flops)},
                     {"comm_bytes", BenchTextOrNull(c.comm_bytes)}}},
          {"timing_note", BenchTextOrNull(c.timing_note)}};
}

}  // namespace cuco
