// LlmEndpoint: where one LLM lives and how to reach it, as written in a run config
// ([[llm.endpoints]] tables in TOML). Holds the *name* of the environment variable with the API
// key, never the key itself.
#pragma once

#include <toml++/toml.h>

#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace cuco {

struct LlmEndpoint {
  std::string name;         // label in logs, the store ("llm:<name>") and the bandit; default: the model
  std::string provider;     // "openai" (any OpenAI-compatible server), "anthropic", "gemini", "command"
  std::string base_url;     // empty: the provider's public API (see DefaultBaseUrl)
  std::string model;        // e.g. "gpt-4.1", "claude-sonnet-4-20250514"; optional for "command"
  std::string api_key_env;  // env var holding the key; empty: no key, or the provider's default
                            // (OPENAI_API_KEY, ...) when base_url is empty too
  std::string command;      // provider "command": a /bin/sh command line; the prompt is its stdin
  double timeout_s = 300;   // the whole Complete() call, retries and waits included
  int max_retries = 5;      // retries after the first attempt (429, 5xx, connection errors)
  double backoff_initial_s = 1;
  double backoff_max_s = 30;
  std::optional<double> price_in_per_mtok, price_out_per_mtok;  // USD per million tokens; override the table
};

// The provider names MakeLlmClient accepts.
const std::vector<std::string>& LlmProviders();
// The public API's base URL for a provider ("" for "command" or an unknown provider).
std::string DefaultBaseUrl(const std::string& provider);
// The conventional key variable for a provider: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY.
std::string DefaultApiKeyEnv(const std::string& provider);

// Fills in defaults (name, base_url, api_key_env as described above) and checks the fields:
// known provider, a model for HTTP providers, a command for "command", positive times,
// non-negative retries and prices. Messages start with "llm endpoint '<name>': ".
Result<LlmEndpoint> NormalizeLlmEndpoint(LlmEndpoint endpoint);

// One endpoint from a TOML table (keys as the struct's fields), normalized. Errors name
// file:line of the offending key (or of the table), including unknown (misspelt) keys.
Result<LlmEndpoint> LlmEndpointFromToml(const toml::table& table, const std::string& file);
// An array of such tables (e.g. the node at "llm.endpoints"); names must be unique.
Result<std::vector<LlmEndpoint>> LlmEndpointsFromToml(const toml::node& array, const std::string& file);

}  // namespace cuco
