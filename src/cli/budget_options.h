// The budget flags `cuco evolve` and `cuco run` share: --max-candidates N, --time-budget (90s,
// 30m, 2h or seconds) and --max-cost (USD of LLM spending). Each given flag replaces the run
// config's [budget] key (max_candidates, max_wall_s, max_dollars), and the run's config.toml
// records it, so --resume keeps it; a flag given with --resume replaces the recorded value and
// says so.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "search/run_config.h"

namespace cuco {

struct BudgetFlags {
  std::optional<int> max_candidates;
  std::string time_budget;  // as typed; ParseDuration reads it
  std::optional<double> max_cost;
};

void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags);

// What the flags changed: one line per key ("--max-candidates 40 replaces max_candidates = 12")
// and the keys' new values as TOML ("max_candidates" -> "40").
struct BudgetChange {
  std::vector<std::string> lines;
  std::vector<std::pair<std::string, std::string>> keys;
  bool empty() const { return keys.empty(); }
};

// Applies the given flags to `cfg`. A bad --time-budget or a budget with no limit left is
// kInvalidArgument naming the flag.
Result<BudgetChange> ApplyBudgetFlags(const BudgetFlags& flags, RunConfig* cfg);

// `toml` (a run config's text) with `change`'s keys set in its [budget] table (replaced where
// written, else added; the table is added when missing), the rest kept byte for byte. Checked by
// parsing the result: a config that writes [budget] another way (dotted keys, an inline table) is
// kInvalidArgument naming `path`.
Result<std::string> RecordBudgetChange(const std::string& toml, const std::string& path, const BudgetChange& change,
                                       const RunConfig& cfg);

}  // namespace cuco
