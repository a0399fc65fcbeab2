#include "llm/prices.h"

#include <string_view>

namespace cuco {
namespace {

struct PriceRow {
  std::string_view prefix;
  double in, out;  // USD per million tokens
};

// List prices (standard tier, short prompts, no caching), 2025.
constexpr PriceRow kPrices[] = {
    {"gpt-4o-mini", 0.15, 0.60},
    {"gpt-4o", 2.50, 10.00},
    {"gpt-4.1-nano", 0.10, 0.40},
    {"gpt-4.1-mini", 0.40, 1.60},
    {"gpt-4.1", 2.00, 8.00},
    {"gpt-5-nano", 0.05, 0.40},
    {"gpt-5-mini", 0.25, 2.00},
    {"gpt-5", 1.25, 10.00},
    {"o3-mini", 1.10, 4.40},
    {"o3-pro", 20.00, 80.00},
    {"o3", 2.00, 8.00},
    {"o4-mini", 1.10, 4.40},
    {"claude-opus-4-5", 5.00, 25.00},
    {"claude-opus-4", 15.00, 75.00},
    {"claude-sonnet-4", 3.00, 15.00},
    {"claude-haiku-4", 1.00, 5.00},
    {"claude-3-7-sonnet", 3.00, 15.00},
    {"claude-3-5-sonnet", 3.00, 15.00},
    {"claude-3-5-haiku", 0.80, 4.00},
    {"gemini-2.5-pro", 1.25, 10.00},
    {"gemini-2.5-flash-lite", 0.10, 0.40},
    {"gemini-2.5-flash", 0.30, 2.50},
    {"gemini-2.0-flash", 0.10, 0.40},
    {"deepseek-chat", 0.27, 1.10},
    {"deepseek-reasoner", 0.55, 2.19},
};

}  // namespace

std::optional<TokenPrice> BuiltinPrice(const std::string& model) {
  std::string_view m = model;
  size_t slash = m.rfind('/');
  if (slash != std::string_view::npos) m.remove_prefix(slash + 1);
  const PriceRow* best = nullptr;
  for (const PriceRow& row : kPrices)
    if (m.substr(0, row.prefix.size()) == row.prefix && (!best || row.prefix.size() > best->prefix.size())) best = &row;
  if (!best) return std::nullopt;
  return TokenPrice{best->in, best->out};
}

std::optional<TokenPrice> PriceFor(const LlmEndpoint& endpoint, const std::string& model) {
  std::optional<TokenPrice> table = BuiltinPrice(model);
  if (!table && !endpoint.price_in_per_mtok && !endpoint.price_out_per_mtok) return std::nullopt;
  TokenPrice p = table.value_or(TokenPrice{});
  if (endpoint.price_in_per_mtok) p.in_per_mtok = *endpoint.price_in_per_mtok;
  if (endpoint.price_out_per_mtok) p.out_per_mtok = *endpoint.price_out_per_mtok;
  return p;
}

double CostDollars(const TokenPrice& price, int64_t input_tokens, int64_t output_tokens) {
  return (static_cast<double>(input_tokens) * price.in_per_mtok +
          static_cast<double>(output_tokens) * price.out_per_mtok) /
         1e6;
}

}  // namespace cuco
