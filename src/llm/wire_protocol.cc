#include "llm/wire_protocol.h"

namespace cuco {

Status AnswerParser::ProviderError(const nlohmann::json& error) {
  std::string type, message;
  if (error.is_object()) {
    if (error.contains("type") && error["type"].is_string()) type = error["type"].get<std::string>();
    if (error.contains("status") && error["status"].is_string()) type = error["status"].get<std::string>();
    if (error.contains("message") && error["message"].is_string()) message = error["message"].get<std::string>();
  } else if (error.is_string()) {
    message = error.get<std::string>();
  }
  if (message.empty()) message = OneLine(error.dump());
  std::string lower = type;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  retryable = true;
  for (const char* fatal : {"invalid", "authentication", "permission", "not_found", "unauthenticated"})
    if (lower.find(fatal) != std::string::npos) retryable = false;
  return Status::IOError("the provider reported an error in its answer" + (type.empty() ? "" : " (" + type + ")") +
                         ": " + OneLine(message));
}

std::string WireProtocol::ErrorMessage(const std::string& body) const {
  Result<nlohmann::json> j = ParseJsonText(body, "error body");
  if (j.ok()) {
    const nlohmann::json& v = *j;
    if (v.is_object()) {
      if (v.contains("error")) {
        const nlohmann::json& e = v["error"];
        if (e.is_string()) return OneLine(e.get<std::string>());
        if (e.is_object() && e.contains("message") && e["message"].is_string()) {
          std::string type = e.contains("type") && e["type"].is_string()       ? e["type"].get<std::string>()
                             : e.contains("status") && e["status"].is_string() ? e["status"].get<std::string>()
                                                                               : "";
          return OneLine((type.empty() ? "" : type + ": ") + e["message"].get<std::string>());
        }
      }
      for (const char* k : {"message", "detail"})
        if (v.contains(k)) return OneLine(v[k].is_string() ? v[k].get<std::string>() : v[k].dump());
    }
  }
  return body.empty() ? "(empty body)" : OneLine(body);
}

Status GuardedParse(const std::function<Status()>& step) {
  try {
    return step();
  } catch (const std::exception& e) {
    return Status::IOError(std::string("malformed answer: ") + e.what());
  } catch (...) {
    return Status::IOError("malformed answer");
  }
}

namespace {

bool LooksLikeSse(const std::string& body) {
  size_t i = body.find_first_not_of(" \r\n");
  if (i == std::string::npos) return false;
  return body.compare(i, 5, "data:") == 0 || body.compare(i, 6, "event:") == 0 || body.compare(i, 1, ":") == 0;
}

}  // namespace

Status FinishAnswer(AnswerParser& parser, SseDecoder& decoder, const std::string& body, bool streamed) {
  if (streamed || LooksLikeSse(body)) {
    Status st;
    if (!streamed) st = decoder.Feed(body);  // an event stream the server did not label as one
    if (st.ok()) st = decoder.Finish();
    if (st.ok()) st = GuardedParse([&] { return parser.OnStreamEnd(); });
    return st;
  }
  Result<nlohmann::json> json = ParseJsonText(body, "answer");
  return json.ok() ? GuardedParse([&] { return parser.OnJson(*json); }) : json.status();
}

Result<nlohmann::json> ParseJsonText(std::string_view text, const std::string& what) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::IOError("the " + what + " is not valid JSON: " + OneLine(text, 200));
  return j;
}

int64_t JsonInt(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return 0;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number()) return 0;
  double v = it->get<double>();  // token counts: clamp nonsense rather than overflow
  if (!(v > 0)) return 0;
  return v >= 1e15 ? int64_t{1'000'000'000'000'000} : static_cast<int64_t>(v);
}

std::string JsonString(const nlohmann::json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string OneLine(std::string_view s, size_t max_chars) {
  std::string out;
  for (char c : s) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    out.push_back(c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
  }
  return out;
}

std::vector<ChatMessage> MergedTurns(const std::vector<ChatMessage>& messages) {
  std::vector<ChatMessage> out;
  for (const ChatMessage& m : messages) {
    if (m.role == "system") continue;
    if (!out.empty() && out.back().role == m.role) {
      out.back().content += "\n\n" + m.content;
    } else {
      out.push_back(m);
    }
  }
  return out;
}

std::string SystemText(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const ChatMessage& m : messages) {
    if (m.role != "system") continue;
    if (!out.empty()) out += "\n\n";
    out += m.content;
  }
  return out;
}

std::string JoinUrl(const std::string& base_url, const std::string& version, const std::string& path) {
  bool has_version = base_url.size() >= version.size() &&
                     base_url.compare(base_url.size() - version.size(), version.size(), version) == 0;
  return base_url + (has_version ? "" : version) + path;
}

}  // namespace cuco
