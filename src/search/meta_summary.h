// The meta-summary: a deterministic digest of what the search has tried, computed from the
// store's candidates: per knob value how many were tried, passed and failed (by class) and
// the best time; per mutation kind the same; the best candidate; and what is untried (knob
// values never evaluated, neighbours of the best never evaluated) as "try next". The search
// stores it (meta key "search.meta_summary") and passes it to proposers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workload/workload_config.h"

namespace cuco {

struct SummaryItem {
  int64_t id = 0;
  std::string status;                         // ok, wrong_result, ... (skipped ones are left out)
  double time_ms = -1;
  std::map<std::string, std::string> knobs;   // knob values as marked in its code
  std::string mutation_kind;
  std::string reason;                         // the first failure, one line ("" when ok)
};

// `items` in id order; reference_ms <= 0 when the seed has no time. Same input, same text.
std::string MetaSummary(const std::vector<SummaryItem>& items, const std::vector<Knob>& knobs, double reference_ms,
                        int through_generation);

}  // namespace cuco
