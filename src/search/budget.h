// Budget: why a search must stop proposing now, or "" while it may go on. Checked before every
// slot, in this order: an interrupt (the user's Ctrl-C; the run continues with --resume), then
// [budget] max_candidates (counted candidates: all but those the novelty filter skipped),
// max_dollars, max_wall_s (all sessions). A limit of 0 is no limit.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "search/run_config.h"

namespace cuco {

std::string BudgetReason(const RunConfig& cfg, const std::atomic<bool>* interrupt, int64_t counted, double dollars,
                         double wall_s);

}  // namespace cuco
