// Token prices of well-known models, for the dollar accounting of each LLM call.
//
// The built-in table is keyed by model-name prefix (the longest prefix wins; a "vendor/" part
// before the last '/' is ignored, so "openai/gpt-4o" and "models/gemini-2.5-pro" match). Prices
// are list prices in USD per million tokens as of 2025 and drift; an endpoint's price fields
// override them.
#pragma once

#include <optional>
#include <string>

#include "llm/llm_endpoint.h"

namespace cuco {

struct TokenPrice {
  double in_per_mtok = 0, out_per_mtok = 0;
};

// The table's price for a model, if some prefix matches.
std::optional<TokenPrice> BuiltinPrice(const std::string& model);

// The price an endpoint's calls are billed at: its own fields where set, else the table's;
// nullopt when neither knows (calls then cost 0 and say so).
std::optional<TokenPrice> PriceFor(const LlmEndpoint& endpoint, const std::string& model);

// Dollars for one call.
double CostDollars(const TokenPrice& price, int64_t input_tokens, int64_t output_tokens);

}  // namespace cuco
