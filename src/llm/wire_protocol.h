// WireProtocol: what one HTTP provider's API looks like on the wire. HttpChatClient does the
// sending, retrying and accounting; a protocol builds the request and reads the answer.
// Implementations: openai_protocol.cc, anthropic_protocol.cc, gemini_protocol.cc.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "llm/http_post.h"
#include "llm/llm_client.h"
#include "llm/sse.h"
#include "util/status.h"

namespace cuco {

// Reads one attempt's answer into `answer` (text, tokens, model, finish_reason). Parsers may
// throw nlohmann::json exceptions on surprising shapes; the caller turns them into errors.
class AnswerParser {
 public:
  explicit AnswerParser(std::function<void(std::string_view)> on_text) : on_text_(std::move(on_text)) {}
  virtual ~AnswerParser() = default;

  // A streamed answer: one server-sent event.
  virtual Status OnEvent(const SseEvent& event) = 0;
  // A streamed answer ended: error unless it ended with the provider's end marker.
  virtual Status OnStreamEnd() = 0;
  // A non-streamed answer: the whole JSON body of a 200 response.
  virtual Status OnJson(const nlohmann::json& body) = 0;

  ChatResponse answer;
  bool retryable = false;  // set with an error that a new attempt may not meet (cut stream, overload)

 protected:
  void AddText(std::string_view text) {
    answer.text.append(text);
    if (on_text_ && !text.empty()) on_text_(text);
  }
  // An error the provider reported inside a 200 answer ({"error": {...}}); retryable unless it
  // blames the request (invalid/authentication/permission/not found).
  Status ProviderError(const nlohmann::json& error);

 private:
  std::function<void(std::string_view)> on_text_;
};

class WireProtocol {
 public:
  virtual ~WireProtocol() = default;
  virtual std::string Name() const = 0;  // the provider: "openai", "anthropic", "gemini"
  // The request for `chat` with `model`; no credentials header when api_key is empty.
  virtual HttpRequest Build(const std::string& base_url, const std::string& api_key, const std::string& model,
                            const ChatRequest& chat) const = 0;
  virtual std::unique_ptr<AnswerParser> NewParser(std::function<void(std::string_view)> on_text) const = 0;
  // The provider's message from an error response body (error.message and the like), else
  // the body itself, shortened to one line.
  virtual std::string ErrorMessage(const std::string& body) const;
};

std::unique_ptr<WireProtocol> MakeOpenAiProtocol();
std::unique_ptr<WireProtocol> MakeAnthropicProtocol();
std::unique_ptr<WireProtocol> MakeGeminiProtocol();

// Runs a parser step; a JSON shape it did not expect (or anything else thrown) becomes an IOError
// "malformed answer: ...".
Status GuardedParse(const std::function<Status()>& step);
// Ends reading a 200 answer whose whole body is `body`. `decoder` hands its events to `parser`
// (each through GuardedParse). `streamed`: the decoder was fed every byte as it came; else a body
// that looks like an event stream (the server did not label it) is fed whole, and any other body
// is one JSON answer. Any body gives ok or an error; never throws.
Status FinishAnswer(AnswerParser& parser, SseDecoder& decoder, const std::string& body, bool streamed);

// Helpers shared by the protocols.
// Parses JSON without throwing; the error says what was being read ("answer", "stream event").
Result<nlohmann::json> ParseJsonText(std::string_view text, const std::string& what);
// obj[key] as a count: 0 when obj is not an object or the key is missing, not a number or not
// positive; huge values are clamped.
int64_t JsonInt(const nlohmann::json& obj, const char* key);
// obj[key] as a string; "" when missing or not a string.
std::string JsonString(const nlohmann::json& obj, const char* key);
// `s` as one line of at most `max_chars` characters (for messages).
std::string OneLine(std::string_view s, size_t max_chars = 400);
// Consecutive messages of one role merged (blank line between); system messages left out.
std::vector<ChatMessage> MergedTurns(const std::vector<ChatMessage>& messages);
// The system messages' contents joined by blank lines ("" if none).
std::string SystemText(const std::vector<ChatMessage>& messages);
// base_url + version + path, leaving out version when base_url already ends with it
// ("https://api.anthropic.com" and "https://api.anthropic.com/v1" give the same URL).
std::string JoinUrl(const std::string& base_url, const std::string& version, const std::string& path);

}  // namespace cuco
