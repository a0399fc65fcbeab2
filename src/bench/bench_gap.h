// The best candidate's gap to the overlap bound, told apart (`cuco run`'s bound bench, bound_bench.h):
// with the best's own parts timed (best_compute_alone, best_comm_alone: each part at the best's knob
// settings), the gap T_best - T_bound splits into what the best's settings cost its parts (its own
// bound, max of its own parts, over the bound) and what of its smaller part stays exposed (T_best
// over its own bound).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_table.h"

namespace cuco {

// The names bound_bench.cc gives the best's own parts.
inline constexpr const char* kBestComputePart = "best_compute_alone";
inline constexpr const char* kBestCommPart = "best_comm_alone";

struct BestGap {
  std::string best;              // the fastest timed candidate row
  double best_ms = -1, bound_ms = -1;
  double own_compute_ms = -1, own_comm_ms = -1;
  double own_bound_ms = -1;      // max(own compute, own comm)
  double settings_ms = 0;        // own bound - bound: what the best's settings cost its parts
  double exposed_ms = 0;         // best - own bound: what of its smaller part is not hidden
  double exposed_share = 0;      // exposed over the smaller own part
  bool comm_smaller = true;      // the part that should hide behind the other is the communication
};

// Absent unless the bound is known, a candidate row is timed and both of the best's own parts are.
std::optional<BestGap> ExplainBestsGap(const BenchSummary& s);

// One line (with its newline) for the table's footer; "" when absent.
std::string BestGapLine(const std::optional<BestGap>& g);
// {"best", "best_ms", "bound_ms", "own_compute_ms", ...}; null when absent.
nlohmann::json BestGapJson(const std::optional<BestGap>& g);

}  // namespace cuco
