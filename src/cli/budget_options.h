// The budget flags of `cuco evolve` and `cuco run` on a command: --max-candidates N,
// --max-generations N, --time-budget (90s, 30m, 2h or seconds) and --max-cost (USD of LLM
// spending). What they do to a run is search/budget_flags.h's.
#pragma once

#include <CLI/CLI.hpp>

#include "search/budget_flags.h"

namespace cuco {

void AddBudgetOptions(CLI::App* cmd, BudgetFlags* flags);

}  // namespace cuco
