// HttpChatClient: an LlmClient over one WireProtocol (OpenAI, Anthropic, Gemini). Sends the
// request, retries what is worth retrying, reads streamed or whole answers, counts tokens and
// dollars, and keeps the API key out of everything it returns.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>

#include "llm/backoff.h"
#include "llm/llm_client.h"
#include "llm/prices.h"
#include "llm/wire_protocol.h"

namespace cuco {

class HttpChatClient : public LlmClient {
 public:
  // `endpoint` must be normalized; `api_key` may be empty (servers without auth).
  HttpChatClient(LlmEndpoint endpoint, std::unique_ptr<WireProtocol> protocol, std::string api_key);

  Result<ChatResponse> Complete(const ChatRequest& request) override;
  std::string Describe() const override;

 private:
  struct Attempt;  // one HTTP exchange's outcome
  Attempt Send(const HttpRequest& http, const ChatRequest& request, int attempt, double time_left_s) const;
  std::string Redact(std::string text) const;  // the key, wherever it appears, becomes "[redacted]"
  double NextDelay(int retry);

  LlmEndpoint endpoint_;
  std::unique_ptr<WireProtocol> protocol_;
  std::string api_key_;
  std::mutex rng_mu_;
  std::mt19937_64 rng_;
};

}  // namespace cuco
