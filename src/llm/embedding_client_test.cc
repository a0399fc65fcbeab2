#include "llm/embedding_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "llm/test_server.h"

namespace cuco {
namespace {

using llm_test::Json;
using llm_test::ScriptedServer;

LlmEndpoint Endpoint(const std::string& provider, const std::string& url) {
  LlmEndpoint e;
  e.name = "emb";
  e.provider = provider;
  e.base_url = url;
  e.model = "embed-small";
  e.api_key_env = "CUCO_TEST_EMBED_KEY";
  e.backoff_initial_s = 0.01;
  e.backoff_max_s = 0.05;
  e.max_retries = 2;
  e.timeout_s = 20;
  return e;
}

TEST(EmbeddingClient, OpenAiCompatibleWithRetryAfterA429) {
  ::setenv("CUCO_TEST_EMBED_KEY", "sk-embed-secret", 1);
  ScriptedServer server({Json(R"({"error":{"message":"slow down"}})", 429),
                         Json(R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.5,-1.25,3]}],"model":"embed-small"})")});
  auto client = EmbeddingClient::Make(Endpoint("openai", server.url() + "/v1"));
  ASSERT_TRUE(client.ok()) << client.status().message();
  auto v = (*client)->Embed("__global__ void k() {}");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(*v, (std::vector<float>{0.5f, -1.25f, 3.0f}));
  const auto reqs = server.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[1].path, "/v1/embeddings");
  EXPECT_EQ(reqs[1].headers.at("authorization"), "Bearer sk-embed-secret");
  const auto body = nlohmann::json::parse(reqs[1].body);
  EXPECT_EQ(body["model"], "embed-small");
  EXPECT_EQ(body["input"], "__global__ void k() {}");
}

TEST(EmbeddingClient, GeminiEmbedContent) {
  ::setenv("CUCO_TEST_EMBED_KEY", "g-secret", 1);
  ScriptedServer server({Json(R"({"embedding":{"values":[1,2]}})")});
  auto client = EmbeddingClient::Make(Endpoint("gemini", server.url() + "/v1beta"));
  ASSERT_TRUE(client.ok());
  auto v = (*client)->Embed("x");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->size(), 2u);
  const auto reqs = server.requests();
  EXPECT_EQ(reqs[0].path, "/v1beta/models/embed-small:embedContent");
  EXPECT_EQ(reqs[0].headers.at("x-goog-api-key"), "g-secret");
  EXPECT_EQ(nlohmann::json::parse(reqs[0].body)["content"]["parts"][0]["text"], "x");
}

TEST(EmbeddingClient, ErrorsNameTheEndpointAndNeverTheKey) {
  ::setenv("CUCO_TEST_EMBED_KEY", "sk-embed-secret", 1);
  ScriptedServer server({Json(R"({"data":[]})"), Json(R"({"error":"bad"})", 400)});
  auto client = EmbeddingClient::Make(Endpoint("openai", server.url()));
  ASSERT_TRUE(client.ok());
  auto empty = (*client)->Embed("a");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("embedding endpoint 'emb': the answer holds no embedding"), std::string::npos);
  auto bad = (*client)->Embed("b");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("HTTP 400"), std::string::npos) << bad.status().message();
  EXPECT_EQ(server.count(), 2u);  // a 400 is not retried
  EXPECT_EQ(bad.status().message().find("sk-embed-secret"), std::string::npos);
  LlmEndpoint anthropic = Endpoint("anthropic", server.url());
  EXPECT_FALSE(EmbeddingClient::Make(anthropic).ok());
  ::unsetenv("CUCO_TEST_EMBED_KEY");
  EXPECT_NE(EmbeddingClient::Make(Endpoint("openai", server.url())).status().message().find("CUCO_TEST_EMBED_KEY is not set"),
            std::string::npos);
}

}  // namespace
}  // namespace cuco
