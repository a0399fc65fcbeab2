// The budget flags `cuco evolve` and `cuco run` share (cli/budget_options.h adds them to a command;
// a search session applies them, session.h): --max-candidates N, --max-generations N,
// --time-budget (90s, 30m, 2h or seconds) and --max-cost (USD of LLM spending). Each given flag
// replaces the run config's [budget] key (max_candidates, max_generations, max_wall_s,
// max_dollars), and the run's config.toml records it, so --resume keeps it; a flag given with
// --resume replaces the recorded value and says so.
//
// A count limit given on the command line binds: --max-candidates N (N > 0) without
// --max-generations lifts the config's max_generations (sets it to 0, and says so), and
// --max-generations N without --max-candidates lifts max_candidates, so that a limit the user
// did not ask for never stops the search first (`--max-candidates 64` stopping at 21 because of
// max_generations = 10). Both flags keep both limits.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "search/run_config.h"

namespace cuco {

struct BudgetFlags {
  std::optional<int> max_candidates;
  std::optional<int> max_generations;
  std::string time_budget;  // as typed; ParseDuration reads it
  std::optional<double> max_cost;
};

// What the flags changed: one line per key ("--max-candidates 40 replaces max_candidates = 12",
// "--max-candidates 40 lifts max_generations = 10 (...)") and the keys' new values as TOML
// ("max_candidates" -> "40").
struct BudgetChange {
  std::vector<std::string> lines;
  std::vector<std::string> lifts;  // the lines that lift a limit not asked for: said in new runs too
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

// For a search stopped by its budget (`spent_key`, budget.h SpentBudgetKey: "max_candidates",
// "max_generations", "max_dollars" or "max_wall_s"): the flag that raises that limit with a value
// twice the spent one ("--max-candidates 100"); "" for any other key.
std::string RaiseBudgetFlag(const std::string& spent_key, const RunConfig& cfg);

}  // namespace cuco
