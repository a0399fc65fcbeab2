// Anthropic Messages: POST {base_url}/v1/messages with x-api-key and anthropic-version headers;
// the system prompt is the top-level "system" field; turns must alternate user/assistant.
#include "llm/wire_protocol.h"

namespace cuco {
namespace {

using nlohmann::json;

class AnthropicParser : public AnswerParser {
 public:
  using AnswerParser::AnswerParser;

  Status OnEvent(const SseEvent& e) override {
    if (e.event == "ping") return Status::Ok();
    Result<json> parsed = ParseJsonText(e.data, "stream event" + (e.event.empty() ? "" : " '" + e.event + "'"));
    if (!parsed.ok()) return parsed.status();
    const json& j = *parsed;
    std::string type = e.event.empty() ? JsonString(j, "type") : e.event;
    if (type == "error") return ProviderError(j.is_object() && j.contains("error") ? j["error"] : j);
    if (type == "message_start") {
      if (!j.contains("message") || !j["message"].is_object())
        return Status::IOError("message_start without 'message'");
      const json& m = j["message"];
      answer.model = JsonString(m, "model");
      if (m.contains("usage")) {
        answer.usage.input_tokens = JsonInt(m["usage"], "input_tokens");
        answer.usage.output_tokens = JsonInt(m["usage"], "output_tokens");
      }
    } else if (type == "content_block_start") {
      if (j.contains("content_block") && JsonString(j["content_block"], "type") == "text")
        AddText(JsonString(j["content_block"], "text"));
    } else if (type == "content_block_delta") {
      if (!j.contains("delta") || !j["delta"].is_object())
        return Status::IOError("content_block_delta without 'delta'");
      if (JsonString(j["delta"], "type") == "text_delta") AddText(JsonString(j["delta"], "text"));
    } else if (type == "message_delta") {
      if (j.contains("usage") && j["usage"].contains("output_tokens"))
        answer.usage.output_tokens = JsonInt(j["usage"], "output_tokens");
      if (j.contains("usage") && j["usage"].contains("input_tokens") && JsonInt(j["usage"], "input_tokens") > 0)
        answer.usage.input_tokens = JsonInt(j["usage"], "input_tokens");
      if (j.contains("delta")) {
        std::string stop = JsonString(j["delta"], "stop_reason");
        if (!stop.empty()) answer.finish_reason = stop;
      }
    } else if (type == "message_stop") {
      done_ = true;
    }
    return Status::Ok();  // content_block_stop and unknown events
  }

  Status OnStreamEnd() override {
    if (done_) return Status::Ok();
    retryable = true;
    return Status::IOError("the answer stream was cut mid-way (no message_stop event)");
  }

  Status OnJson(const json& body) override {
    if (!body.is_object()) return Status::IOError("the answer is not a JSON object");
    if (JsonString(body, "type") == "error") return ProviderError(body.contains("error") ? body["error"] : body);
    if (!body.contains("content") || !body["content"].is_array())
      return Status::IOError("the answer has no 'content' array");
    for (const json& block : body["content"])
      if (JsonString(block, "type") == "text") AddText(JsonString(block, "text"));
    answer.model = JsonString(body, "model");
    answer.finish_reason = JsonString(body, "stop_reason");
    if (body.contains("usage")) {
      answer.usage.input_tokens = JsonInt(body["usage"], "input_tokens");
      answer.usage.output_tokens = JsonInt(body["usage"], "output_tokens");
    }
    return Status::Ok();
  }

 private:
  bool done_ = false;
};

class AnthropicProtocol : public WireProtocol {
 public:
  std::string Name() const override { return "anthropic"; }

  HttpRequest Build(const std::string& base_url, const std::string& api_key, const std::string& model,
                    const ChatRequest& chat) const override {
    json messages = json::array();
    for (const ChatMessage& m : MergedTurns(chat.messages))
      messages.push_back({{"role", m.role}, {"content", m.content}});
    json body = {{"model", model},
                 {"messages", messages},
                 {"max_tokens", chat.max_tokens},
                 {"temperature", chat.temperature},
                 {"stream", chat.stream}};
    std::string system = SystemText(chat.messages);
    if (!system.empty()) body["system"] = system;
    HttpRequest r;
    r.url = JoinUrl(base_url, "/v1", "/messages");
    r.headers.push_back({"Content-Type", "application/json"});
    r.headers.push_back({"anthropic-version", "2023-06-01"});
    if (chat.stream) r.headers.push_back({"Accept", "text/event-stream"});
    if (!api_key.empty()) r.headers.push_back({"x-api-key", api_key});
    r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
  }

  std::unique_ptr<AnswerParser> NewParser(std::function<void(std::string_view)> on_text) const override {
    return std::make_unique<AnthropicParser>(std::move(on_text));
  }
};

}  // namespace

std::unique_ptr<WireProtocol> MakeAnthropicProtocol() { return std::make_unique<AnthropicProtocol>(); }

}  // namespace cuco
