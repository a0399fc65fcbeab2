#include "llm/llm_client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "llm/command_client.h"
#include "llm/http_chat_client.h"
#include "llm/wire_protocol.h"

namespace cuco {

LlmClient::~LlmClient() = default;

bool ChatResponse::CutOff() const {
  std::string f = finish_reason;
  std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return std::tolower(c); });
  return f == "length" || f == "max_tokens" || f == "max_output_tokens";
}

Result<std::unique_ptr<LlmClient>> MakeLlmClient(const LlmEndpoint& endpoint) {
  Result<LlmEndpoint> e = NormalizeLlmEndpoint(endpoint);
  if (!e.ok()) return e.status();
  if (e->provider == "command") return std::unique_ptr<LlmClient>(std::make_unique<CommandClient>(*e));

  std::string key;
  if (!e->api_key_env.empty()) {
    const char* v = std::getenv(e->api_key_env.c_str());
    if (v == nullptr || *v == '\0')
      return Status::InvalidArgument("llm endpoint '" + e->name + "': environment variable " + e->api_key_env +
                                     " is not set (it must hold the API key; set api_key_env = \"\" for a server "
                                     "without keys)");
    key = v;
  }
  std::unique_ptr<WireProtocol> protocol = e->provider == "openai"      ? MakeOpenAiProtocol()
                                           : e->provider == "anthropic" ? MakeAnthropicProtocol()
                                                                        : MakeGeminiProtocol();
  return std::unique_ptr<LlmClient>(std::make_unique<HttpChatClient>(*e, std::move(protocol), std::move(key)));
}

std::string FormatTranscript(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const ChatMessage& m : messages) {
    std::string title = m.role.empty() ? "User" : m.role;
    title[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(title[0])));
    if (!out.empty()) out += "\n\n";
    out += "## " + title + "\n\n" + m.content;
  }
  out += "\n";
  return out;
}

}  // namespace cuco
