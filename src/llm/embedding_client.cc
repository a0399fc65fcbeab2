#include "llm/embedding_client.h"

#include <chrono>
#include <cstdlib>
#include <random>
#include <thread>

#include <nlohmann/json.hpp>

#include "llm/backoff.h"
#include "llm/http_post.h"

namespace cuco {

Result<std::unique_ptr<EmbeddingClient>> EmbeddingClient::Make(const LlmEndpoint& endpoint) {
  Result<LlmEndpoint> e = NormalizeLlmEndpoint(endpoint);
  if (!e.ok()) return e.status();
  if (e->provider != "openai" && e->provider != "gemini")
    return Status::InvalidArgument("embedding endpoint '" + e->name + "': provider '" + e->provider +
                                   "' has no embeddings here (use openai-compatible or gemini)");
  std::string key;
  if (!e->api_key_env.empty()) {
    const char* v = std::getenv(e->api_key_env.c_str());
    if (v == nullptr || *v == '\0')
      return Status::InvalidArgument("embedding endpoint '" + e->name + "': environment variable " + e->api_key_env +
                                     " is not set (it must hold the API key; set api_key_env = \"\" for a server "
                                     "without keys)");
    key = v;
  }
  return std::unique_ptr<EmbeddingClient>(new EmbeddingClient(*e, key));
}

Result<std::vector<float>> EmbeddingClient::Embed(const std::string& text) {
  const bool gemini = endpoint_.provider == "gemini";
  HttpRequest req;
  std::string base = endpoint_.base_url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  req.headers.push_back({"Content-Type", "application/json"});
  nlohmann::json body;
  if (gemini) {
    req.url = base + "/models/" + endpoint_.model + ":embedContent";
    if (!key_.empty()) req.headers.push_back({"x-goog-api-key", key_});
    body = {{"content", {{"parts", nlohmann::json::array({{{"text", text}}})}}}};
  } else {
    req.url = base + "/embeddings";
    if (!key_.empty()) req.headers.push_back({"Authorization", "Bearer " + key_});
    body = {{"model", endpoint_.model}, {"input", text}};
  }
  req.body = body.dump();
  const std::string who = "embedding endpoint '" + endpoint_.name + "'";
  std::mt19937_64 rng(std::hash<std::string>{}(text));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(endpoint_.timeout_s);
  std::string last;
  for (int attempt = 0;; ++attempt) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return Status::Unavailable(who + ": timed out after " + std::to_string(endpoint_.timeout_s) + " s" +
                                              (last.empty() ? "" : " (" + last + ")"));
    HttpResult r = HttpPost(req, left);
    const long status = r.response.status;
    if (r.completed && status == 200) {
      nlohmann::json j = nlohmann::json::parse(r.response.body, nullptr, false);
      const nlohmann::json* values = nullptr;
      if (!j.is_discarded()) {
        if (gemini && j.contains("embedding") && j["embedding"].contains("values")) values = &j["embedding"]["values"];
        if (!gemini && j.contains("data") && j["data"].is_array() && !j["data"].empty() &&
            j["data"][0].contains("embedding"))
          values = &j["data"][0]["embedding"];
      }
      if (values == nullptr || !values->is_array() || values->empty())
        return Status::Unavailable(who + ": the answer holds no embedding: " + r.response.body.substr(0, 200));
      std::vector<float> v;
      v.reserve(values->size());
      for (const auto& x : *values) {
        if (!x.is_number()) return Status::Unavailable(who + ": a non-number in the embedding");
        v.push_back(x.get<float>());
      }
      return v;
    }
    last = r.completed ? "HTTP " + std::to_string(status) + ": " + r.response.body.substr(0, 200) : r.error;
    const bool retry = !r.completed || status == 429 || status >= 500;
    if (!retry || attempt >= endpoint_.max_retries) return Status::Unavailable(who + ": " + last);
    double wait = BackoffDelay(endpoint_.backoff_initial_s, endpoint_.backoff_max_s, attempt, rng);
    auto ra = r.response.headers.find("retry-after");
    if (ra != r.response.headers.end()) {
      const double s = ParseRetryAfter(ra->second);
      if (s >= 0) wait = std::min(std::max(wait, s), endpoint_.backoff_max_s);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(wait, std::max(0.0, left))));
  }
}

}  // namespace cuco
