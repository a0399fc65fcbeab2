// The table `cuco bench` prints and writes: one row per entry (the seed, the workload's variants,
// its bound parts, candidates, PyTorch peers), and the figures derived from them in one call:
// speed-up over the seed, over the best peer, the share of the way from the seed to the overlap
// bound, and each part's achieved rate beside the device's peak.
//
// The overlap bound is honest: T_bound = max(fastest compute alone, fastest communication alone)
// over every implementation timed, cuco's parts and the peers' parts alike, each part named with
// the entry that gave it. "To bound" and bound/T use it. The bounds of cuco's own parts and of the
// peers' own parts are kept beside it for comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "toolchain/device_peaks.h"

namespace cuco {

// One entry's outcome, as the table needs it.
struct BenchRow {
  std::string name;
  std::string kind;         // "seed" | "variant" | "part" | "candidate" | "peer" | "peer-part"
  std::string status;       // cuco entries: an EvalStatus name ("ok", "timed", "wrong_result", ...);
                            // peers: "ok" | "failed" | "skipped"
  std::string part;         // "compute" | "comm" for parts and peer parts
  double median_ms = -1;    // < 0: not timed
  double p10_ms = -1, p90_ms = -1;
  double precision = 0;     // cuco entries: the median's 95% half-width over the median
                            // (TimingFigures::Precision); 0 unknown (peers)
  std::string reason;       // why it failed or was skipped (one line)
  std::string detail;       // what it is: file, knobs, description (one line)
  std::string method;       // how it was timed (a record's timing_method; the peers' own); "" unknown
  double work = -1;         // parts: FLOPs (compute) or bytes sent (comm) per rank, from the
                            // workload's [work]; < 0: not stated
  bool peer_checked = false;  // a peer's full entry that checked its own output against a reference
};

// What the rates need besides the rows: the device's peaks (none: rates without a share of the
// peak), the [work] formulas as written (shown under the table), and how entries were timed.
struct BenchContext {
  std::string device;                  // the device name, as CUDA reports it
  std::optional<DevicePeak> peak;
  std::string compute_flops, comm_bytes;
  std::string timing_note;             // one line: how cuco's entries and the peers were timed
};

// Whether a row's time may stand beside a peer's: not one timed time-sliced ("time-sliced (no MPS):
// not comparable with peers", evaluate/gpu_session.h).
bool RowComparableWithPeers(const BenchRow& row);

// The overlap bound: the best compute-alone time and the best communication-alone time among the
// timed parts, and their max.
struct BenchBound {
  bool known = false;
  double ms = -1;
  double compute_ms = -1, comm_ms = -1;
  std::string compute_entry, comm_entry;
  std::string compute_kind, comm_kind;  // "part" (cuco's) or "peer-part"
  std::string why_unknown;  // when !known
};

// Figures of one row; absent where they do not apply (a part, an untimed row, no seed time, a
// time-sliced row's speed-up over a peer...).
struct BenchFigures {
  std::optional<double> speedup_vs_seed;       // T_seed / T
  std::optional<double> speedup_vs_best_peer;  // T_best_peer / T
  std::optional<double> to_bound;              // (T_seed - T) / (T_seed - T_bound)
  std::optional<double> bound_over_t;          // T_bound / T
  std::optional<double> rate;                  // parts: TFLOP/s (compute) or GB/s (comm) per rank
  std::optional<double> of_peak;               // rate / the device's dense bf16 peak or NVLink one way
};

// How far below the overlap bound a full entry's median may fall before it is flagged: the bound
// is made of the fastest parts, so an entry faster than it by more than the timing's noise means a
// part ran slower alone than it can, or the entry's work was not all timed. Checked, never hidden.
inline constexpr double kPastBoundMargin = 0.02;
// A full entry whose bound/T exceeds 1 + kPastBoundMargin.
bool PastBound(const BenchFigures& f);

struct BenchSummary {
  std::vector<BenchRow> rows;
  std::vector<BenchFigures> figures;  // one per row
  double seed_ms = -1;                // < 0: the seed was not timed
  std::string seed_entry;
  double best_peer_ms = -1;           // the fastest full peer entry (not a peer part); < 0: none
  std::string best_peer;
  BenchBound bound;                   // honest: from every timed part, cuco's and the peers'
  BenchBound own_bound;               // from cuco's own parts (the figure older tables called the bound)
  BenchBound peer_bound;              // from the peers' parts
  BenchContext context;
};

// A row whose time counts: timed, and ok (peers, verified entries) or timed-only (parts).
bool RowIsTimed(const BenchRow& row);
// A full computation (its time is comparable with the seed's): seed, variant, candidate, peer.
bool RowIsFull(const BenchRow& row);
// What the status column shows: "unverified (bound part)" for timed parts, "ok (self-checked)" or
// "ok (unchecked)" for a full peer entry that did or did not check its own output, else the status.
std::string RowStatusText(const BenchRow& row);

// base / t; absent unless both are > 0.
std::optional<double> SpeedUp(double base_ms, double t_ms);
// (seed - t) / (seed - bound): 0 at the seed's time, 1 at the bound, negative when slower than the
// seed, above 1 past the bound. Absent unless all three are > 0 and the seed is slower than the
// bound by more than 0.1% of the seed's time (otherwise there is no way to go).
std::optional<double> ShareToBound(double seed_ms, double t_ms, double bound_ms);
// The bound from the timed rows whose kind is one of `part_kinds` ("part", "peer-part").
BenchBound ComputeBound(const std::vector<BenchRow>& rows, const std::vector<std::string>& part_kinds);
BenchBound ComputeBound(const std::vector<BenchRow>& rows, const std::string& part_kind);
// A part's achieved rate: TFLOP/s for compute (work in FLOPs), GB/s for comm (work in bytes);
// absent unless the row is a timed part with work > 0.
std::optional<double> PartRate(const BenchRow& row);

BenchSummary Summarize(std::vector<BenchRow> rows, BenchContext context = {});

// The table as text (header line, one line per row (its "timing" column: MPS, TIME-SLICED, or how a
// peer ran), then the bound, the best peer, how cuco's entries and the peers were timed and whether
// they compare, failures and skipped entries with their reasons).
std::string FormatBenchTable(const BenchSummary& summary);

// {"rows": [...], "seed": {...}, "best_peer": {...}, "bound": {...}, "own_bound": {...},
// "peer_bound": {...}, "rates": {...}, "timing_note": "..."}; absent figures are null.
nlohmann::json BenchSummaryJson(const BenchSummary& summary);

}  // namespace cuco
