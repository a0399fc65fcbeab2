// CommandClient: an LlmClient that runs an external agent CLI (`claude -p`, `codex exec`,
// `llm -m ...`) through /bin/sh: the conversation (FormatTranscript) is its stdin, its stdout the
// answer. The child gets CUCO_LLM_MODEL (the endpoint's model, may be empty) in its environment.
// Not retried (agent CLIs retry on their own); tokens and cost are not measured (0, priced=false).
#pragma once

#include <string>

#include "llm/llm_client.h"

namespace cuco {

class CommandClient : public LlmClient {
 public:
  // `endpoint` must be normalized, with provider "command".
  explicit CommandClient(LlmEndpoint endpoint) : endpoint_(std::move(endpoint)) {}

  // Errors: the command could not start or exited 126/127 (Unavailable); it timed out, was
  // killed, exited non-zero (IOError with the tail of its stderr) or printed nothing.
  Result<ChatResponse> Complete(const ChatRequest& request) override;
  std::string Describe() const override;

 private:
  LlmEndpoint endpoint_;
};

}  // namespace cuco
