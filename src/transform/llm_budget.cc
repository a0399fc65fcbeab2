#include "transform/llm_budget.h"

#include <cstdio>

namespace cuco::transform_internal {

std::string Money(double d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "$%.4f", d);
  return buf;
}

std::string BudgetSpent(const LlmSpending& s, const LlmTransformOptions& o) {
  if (o.max_llm_calls > 0 && s.calls >= o.max_llm_calls)
    return "LLM call budget spent: " + std::to_string(s.calls) + " of " + std::to_string(o.max_llm_calls) + " calls";
  if (o.max_dollars > 0 && s.dollars >= o.max_dollars)
    return "dollar budget spent: " + Money(s.dollars) + " of " + Money(o.max_dollars);
  return "";
}

void Charge(const ChatResponse& r, LlmSpending* total, LlmTransformAttempt* a) {
  total->in += r.usage.input_tokens;
  total->out += r.usage.output_tokens;
  total->dollars += r.usage.dollars;
  a->input_tokens += r.usage.input_tokens;
  a->output_tokens += r.usage.output_tokens;
  a->dollars += r.usage.dollars;
}

}  // namespace cuco::transform_internal
