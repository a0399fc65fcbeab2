// LlmClient: one chat completion from a language model, whichever provider serves it.
//
// The evolutionary search asks an LlmClient to rewrite candidate code. Providers (see
// MakeLlmClient): OpenAI-compatible chat completions (OpenAI, DeepSeek, vLLM, llama.cpp, Ollama),
// Anthropic Messages, Gemini generateContent, and "command" (an agent CLI fed the prompt on stdin).
//
// Contract of Complete():
//  - returns the answer text, token use and its dollar cost, or a Status; it never throws;
//  - retries 429, 5xx, connection failures and streams cut mid-way with exponential backoff
//    (jitter; a Retry-After header wins), never other 4xx; the whole call (retries included)
//    ends within the endpoint's timeout_s;
//  - the API key never appears in anything it returns (it is redacted from provider messages);
//  - an invalid, incomplete or empty answer is an error, not an empty ChatResponse.
// Clients are thread-safe: Complete may run on several threads at once.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llm/llm_endpoint.h"
#include "util/status.h"

namespace cuco {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;  // empty: the endpoint's model
  std::vector<ChatMessage> messages;
  double temperature = 0.7;
  int max_tokens = 4096;
  bool stream = true;  // ask for a streamed (SSE) answer; the result is the same either way
  // Called with each piece of text as it arrives (streamed answers; otherwise with the whole
  // text at the end, in one piece per content block). `attempt` starts at 1; when it changes, a
  // retry began and the text starts over. Pieces are passed as received (not redacted).
  std::function<void(std::string_view delta, int attempt)> on_delta;
};

struct ChatUsage {
  int64_t input_tokens = 0, output_tokens = 0;
  double dollars = 0;
  bool priced = false;  // false: no price known for the model (dollars is 0, not measured)
};

struct ChatResponse {
  std::string text;
  ChatUsage usage;
  std::string model;          // as the provider named it (may carry a date suffix)
  std::string finish_reason;  // provider's own words: "stop", "end_turn", "STOP", "length", ...
  int attempts = 1;           // HTTP requests made (1 = no retry)
  double seconds = 0;         // wall time of the whole call
  // The answer stopped at the output-token limit ("length", "max_tokens", "MAX_OUTPUT_TOKENS"):
  // it may be incomplete.
  bool CutOff() const;
};

class LlmClient {
 public:
  virtual ~LlmClient();
  virtual Result<ChatResponse> Complete(const ChatRequest& request) = 0;
  // One line for logs: provider, model, where, key variable (never the key), price.
  virtual std::string Describe() const = 0;
};

// A client for the endpoint (normalized first: see NormalizeLlmEndpoint). Fails if the endpoint
// is invalid or its api_key_env names a variable that is unset or empty.
Result<std::unique_ptr<LlmClient>> MakeLlmClient(const LlmEndpoint& endpoint);

// The conversation as one text for providers that take a single prompt ("command"): each
// message under a "## System" / "## User" / "## Assistant" header, separated by blank lines.
std::string FormatTranscript(const std::vector<ChatMessage>& messages);

}  // namespace cuco
