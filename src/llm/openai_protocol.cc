// OpenAI-compatible chat completions: POST {base_url}/chat/completions. Spoken by OpenAI,
// DeepSeek, vLLM, llama.cpp's server, Ollama (/v1) and most gateways.
#include "llm/wire_protocol.h"

namespace cuco {
namespace {

using nlohmann::json;

// OpenAI's reasoning models take max_completion_tokens and only the default temperature.
bool IsReasoningModel(const std::string& model) {
  std::string m = model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1);
  for (const char* p : {"o1", "o3", "o4", "gpt-5"})
    if (m.rfind(p, 0) == 0) return true;
  return false;
}

// message.content or delta.content: a string, null, or (some servers) an array of text parts.
std::string ContentText(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array())
    for (const json& part : content)
      if (part.is_object() && part.contains("text") && part["text"].is_string()) out += part["text"].get<std::string>();
  return out;
}

class OpenAiParser : public AnswerParser {
 public:
  using AnswerParser::AnswerParser;

  Status OnEvent(const SseEvent& e) override {
    if (e.data == "[DONE]") {
      done_ = true;
      return Status::Ok();
    }
    Result<json> j = ParseJsonText(e.data, "stream chunk");
    if (!j.ok()) return j.status();
    return Chunk(*j, /*streamed=*/true);
  }

  Status OnStreamEnd() override {
    if (done_ || !answer.finish_reason.empty()) return Status::Ok();
    retryable = true;
    return Status::IOError("the answer stream was cut mid-way (no finish_reason and no 'data: [DONE]')");
  }

  Status OnJson(const json& body) override {
    if (!body.is_object()) return Status::IOError("the answer is not a JSON object");
    if (!body.contains("choices") || !body["choices"].is_array() || body["choices"].empty()) {
      if (body.contains("error")) return ProviderError(body["error"]);
      return Status::IOError("the answer has no 'choices'");
    }
    return Chunk(body, /*streamed=*/false);
  }

 private:
  Status Chunk(const json& j, bool streamed) {
    if (!j.is_object()) return Status::IOError("a stream chunk is not a JSON object");
    if (j.contains("error") && !j["error"].is_null()) return ProviderError(j["error"]);
    if (j.contains("model") && j["model"].is_string()) answer.model = j["model"].get<std::string>();
    if (j.contains("usage") && j["usage"].is_object()) {
      const json& u = j["usage"];
      answer.usage.input_tokens = JsonInt(u, "prompt_tokens");
      answer.usage.output_tokens = JsonInt(u, "completion_tokens");
    }
    if (j.contains("choices") && j["choices"].is_array() && !j["choices"].empty()) {
      const json& c = j["choices"][0];
      const char* part = streamed ? "delta" : "message";
      if (!c.contains(part) && !streamed) return Status::IOError("the answer's choices[0] has no 'message'");
      if (c.contains(part) && c[part].is_object() && c[part].contains("content"))
        AddText(ContentText(c[part]["content"]));
      if (c.contains("finish_reason") && c["finish_reason"].is_string())
        answer.finish_reason = c["finish_reason"].get<std::string>();
    }
    return Status::Ok();
  }

  bool done_ = false;
};

class OpenAiProtocol : public WireProtocol {
 public:
  std::string Name() const override { return "openai"; }

  HttpRequest Build(const std::string& base_url, const std::string& api_key, const std::string& model,
                    const ChatRequest& chat) const override {
    json messages = json::array();
    for (const ChatMessage& m : chat.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    json body = {{"model", model}, {"messages", messages}, {"stream", chat.stream}};
    if (IsReasoningModel(model)) {
      body["max_completion_tokens"] = chat.max_tokens;
    } else {
      body["temperature"] = chat.temperature;
      body["max_tokens"] = chat.max_tokens;
    }
    if (chat.stream) body["stream_options"] = {{"include_usage", true}};
    HttpRequest r;
    r.url = base_url + "/chat/completions";
    r.headers.push_back({"Content-Type", "application/json"});
    r.headers.push_back({"Accept", chat.stream ? "text/event-stream" : "application/json"});
    if (!api_key.empty()) r.headers.push_back({"Authorization", "Bearer " + api_key});
    r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
  }

  std::unique_ptr<AnswerParser> NewParser(std::function<void(std::string_view)> on_text) const override {
    return std::make_unique<OpenAiParser>(std::move(on_text));
  }
};

}  // namespace

std::unique_ptr<WireProtocol> MakeOpenAiProtocol() { return std::make_unique<OpenAiProtocol>(); }

}  // namespace cuco
