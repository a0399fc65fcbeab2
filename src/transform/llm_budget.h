// LLM budget: what the LLM transform's writer and judge calls have spent, and whether the
// options' call or dollar budget is spent (transform/ internal).
#pragma once

#include <cstdint>
#include <string>

#include "llm/llm_client.h"
#include "transform/llm_transform.h"

namespace cuco::transform_internal {

struct LlmSpending {
  int calls = 0;
  int64_t in = 0, out = 0;  // tokens
  double dollars = 0;
};

// "" while calls and dollars are below the options' limits (0 = no limit); else which budget is
// spent, with the figures.
std::string BudgetSpent(const LlmSpending& s, const LlmTransformOptions& o);

// Adds a response's tokens and dollars to the run's total and to the attempt (not the call
// itself: the caller counts calls, answered or not).
void Charge(const ChatResponse& r, LlmSpending* total, LlmTransformAttempt* a);

// "$1.2345".
std::string Money(double d);

}  // namespace cuco::transform_internal
