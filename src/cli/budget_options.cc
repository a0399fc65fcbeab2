#include "cli/budget_options.h"

namespace cuco {

void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags) {
  cmd->add_option("--max-candidates", flags->max_candidates,
                  "Stop after N candidates (replaces [budget] max_candidates; recorded in the run's config.toml)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--max-generations", flags->max_generations,
                  "Stop after N generations after generation 0 (replaces [budget] max_generations; recorded in the "
                  "run's config.toml)")
      ->check(CLI::Range(0, 1000000000));
  cmd->add_option("--time-budget", flags->time_budget,
                  "Stop after this long, over all sessions: 90s, 30m, 2h or seconds (replaces [budget] max_wall_s)");
  cmd->add_option("--max-cost", flags->max_cost,
                  "Stop when LLM spending reaches this many USD (replaces [budget] max_dollars)")
      ->check(CLI::Range(0.0, 1e12));
}

}  // namespace cuco
