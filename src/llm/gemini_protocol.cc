// Gemini: POST {base_url}/v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse
// for a stream of GenerateContentResponse chunks; the key goes in the x-goog-api-key header
// (never in the URL, which appears in messages).
#include "llm/wire_protocol.h"

namespace cuco {
namespace {

using nlohmann::json;

class GeminiParser : public AnswerParser {
 public:
  using AnswerParser::AnswerParser;

  Status OnEvent(const SseEvent& e) override {
    Result<json> j = ParseJsonText(e.data, "stream chunk");
    if (!j.ok()) return j.status();
    return Chunk(*j);
  }

  Status OnStreamEnd() override {
    if (!answer.finish_reason.empty()) return Status::Ok();
    retryable = true;
    return Status::IOError("the answer stream was cut mid-way (no chunk with a finishReason)");
  }

  Status OnJson(const json& body) override {
    CUCO_RETURN_IF_ERROR(Chunk(body));
    if (!body.contains("candidates")) return Status::IOError("the answer has no 'candidates'");
    return Status::Ok();
  }

 private:
  Status Chunk(const json& j) {
    if (!j.is_object()) return Status::IOError("the answer is not a JSON object");
    if (j.contains("error")) return ProviderError(j["error"]);
    if (j.contains("promptFeedback")) {
      std::string blocked = JsonString(j["promptFeedback"], "blockReason");
      if (!blocked.empty()) return Status::IOError("the provider blocked the prompt: " + blocked);
    }
    if (j.contains("modelVersion")) answer.model = JsonString(j, "modelVersion");
    if (j.contains("usageMetadata")) {
      const json& u = j["usageMetadata"];
      answer.usage.input_tokens = JsonInt(u, "promptTokenCount");
      // Thinking tokens are billed as output.
      answer.usage.output_tokens = JsonInt(u, "candidatesTokenCount") + JsonInt(u, "thoughtsTokenCount");
    }
    if (j.contains("candidates")) {
      const json& cs = j["candidates"];
      if (!cs.is_array()) return Status::IOError("'candidates' is not an array");
      if (!cs.empty()) {
        const json& c = cs[0];
        if (c.contains("content") && c["content"].contains("parts") && c["content"]["parts"].is_array())
          for (const json& part : c["content"]["parts"])
            if (!(part.contains("thought") && part["thought"] == true)) AddText(JsonString(part, "text"));
        std::string finish = JsonString(c, "finishReason");
        if (!finish.empty()) answer.finish_reason = finish;
      }
    }
    return Status::Ok();
  }
};

class GeminiProtocol : public WireProtocol {
 public:
  std::string Name() const override { return "gemini"; }

  HttpRequest Build(const std::string& base_url, const std::string& api_key, const std::string& model,
                    const ChatRequest& chat) const override {
    json contents = json::array();
    for (const ChatMessage& m : MergedTurns(chat.messages))
      contents.push_back(
          {{"role", m.role == "assistant" ? "model" : "user"}, {"parts", json::array({json{{"text", m.content}}})}});
    json body = {{"contents", contents},
                 {"generationConfig", {{"temperature", chat.temperature}, {"maxOutputTokens", chat.max_tokens}}}};
    std::string system = SystemText(chat.messages);
    if (!system.empty()) body["systemInstruction"] = {{"parts", json::array({json{{"text", system}}})}};
    std::string name = model.rfind("models/", 0) == 0 ? model.substr(7) : model;
    HttpRequest r;
    r.url = JoinUrl(base_url, "/v1beta",
                    "/models/" + name + (chat.stream ? ":streamGenerateContent?alt=sse" : ":generateContent"));
    r.headers.push_back({"Content-Type", "application/json"});
    if (chat.stream) r.headers.push_back({"Accept", "text/event-stream"});
    if (!api_key.empty()) r.headers.push_back({"x-goog-api-key", api_key});
    r.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    return r;
  }

  std::unique_ptr<AnswerParser> NewParser(std::function<void(std::string_view)> on_text) const override {
    return std::make_unique<GeminiParser>(std::move(on_text));
  }
};

}  // namespace

std::unique_ptr<WireProtocol> MakeGeminiProtocol() { return std::make_unique<GeminiProtocol>(); }

}  // namespace cuco
