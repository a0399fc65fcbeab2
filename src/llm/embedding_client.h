// EmbeddingClient: text -> vector from an embedding endpoint, for the search's novelty filter
// ([novelty] measure = "embedding", docs/search.md). Providers: "openai" (POST <base>/embeddings,
// any OpenAI-compatible server: OpenAI, vLLM, llama.cpp, Ollama's /v1) and "gemini"
// (POST <base>/models/<model>:embedContent). The endpoint is an LlmEndpoint (same keys, same
// rule for the key: read from the environment variable it names, never stored). 429 and 5xx
// are retried with backoff up to max_retries; every call is limited by timeout_s.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "llm/llm_endpoint.h"
#include "util/status.h"

namespace cuco {

class EmbeddingClient {
 public:
  // Fails for a provider without embeddings (anthropic, command) or a key variable that is unset.
  static Result<std::unique_ptr<EmbeddingClient>> Make(const LlmEndpoint& endpoint);
  // The embedding of `text`; errors name the endpoint and never contain the key.
  Result<std::vector<float>> Embed(const std::string& text);

 private:
  EmbeddingClient(LlmEndpoint endpoint, std::string key) : endpoint_(std::move(endpoint)), key_(std::move(key)) {}
  LlmEndpoint endpoint_;
  std::string key_;
};

}  // namespace cuco
