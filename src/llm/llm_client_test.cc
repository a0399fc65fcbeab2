#include "llm/llm_client.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "llm/test_server.h"

namespace cuco {
namespace {

using llm_test::Json;
using llm_test::Reply;
using llm_test::ScriptedServer;
using llm_test::Sse;
using nlohmann::json;

constexpr char kKeyEnv[] = "CUCO_LLM_TEST_KEY";
constexpr char kKey[] = "sk-test-SECRET-0123456789abcdef";

class LlmClientTest : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv(kKeyEnv, kKey, 1); }
  void TearDown() override { ::unsetenv(kKeyEnv); }

  // An endpoint for a scripted server: fast backoff, the test key.
  static LlmEndpoint Endpoint(const std::string& provider, const std::string& base_url, const std::string& model) {
    LlmEndpoint e;
    e.provider = provider;
    e.base_url = base_url;
    e.model = model;
    e.api_key_env = kKeyEnv;
    e.timeout_s = 20;
    e.max_retries = 3;
    e.backoff_initial_s = 0.001;
    e.backoff_max_s = 0.005;
    return e;
  }
  static std::unique_ptr<LlmClient> Client(const LlmEndpoint& e) {
    Result<std::unique_ptr<LlmClient>> c = MakeLlmClient(e);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  static ChatRequest Request(bool stream) {
    ChatRequest r;
    r.messages = {{"system", "You write CUDA."}, {"user", "Make it faster."}};
    r.temperature = 0.25;
    r.max_tokens = 1234;
    r.stream = stream;
    return r;
  }
  static void ExpectNoKey(const std::string& text) { EXPECT_EQ(text.find(kKey), std::string::npos) << text; }
};

// Splits `s` into pieces of `n` bytes, to cut SSE lines and JSON in awkward places.
std::vector<std::string> Pieces(const std::string& s, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < s.size(); i += n) out.push_back(s.substr(i, n));
  return out;
}

std::string OpenAiJson(const std::string& text, int in = 1000, int out = 500) {
  return json{
      {"id", "chatcmpl-1"},
      {"object", "chat.completion"},
      {"model", "gpt-4o-2024-08-06"},
      {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
      {"usage", {{"prompt_tokens", in}, {"completion_tokens", out}, {"total_tokens", in + out}}}}
      .dump();
}

std::string OpenAiStream(const std::vector<std::string>& deltas, bool done = true) {
  std::string s;
  auto chunk = [](const json& j) { return "data: " + j.dump() + "\n\n"; };
  s += chunk(
      {{"id", "c1"},
       {"model", "gpt-4o-2024-08-06"},
       {"choices", {{{"index", 0}, {"delta", {{"role", "assistant"}, {"content", ""}}}, {"finish_reason", nullptr}}}}});
  for (const std::string& d : deltas)
    s += chunk({{"id", "c1"},
                {"model", "gpt-4o-2024-08-06"},
                {"choices", {{{"index", 0}, {"delta", {{"content", d}}}, {"finish_reason", nullptr}}}}});
  if (!done) return s;
  s += chunk({{"id", "c1"}, {"choices", {{{"index", 0}, {"delta", json::object()}, {"finish_reason", "stop"}}}}});
  s += chunk(
      {{"id", "c1"}, {"choices", json::array()}, {"usage", {{"prompt_tokens", 2000}, {"completion_tokens", 100}}}});
  s += "data: [DONE]\n\n";
  return s;
}

// ---------------------------------------------------------------------------------------------
// OpenAI-compatible

TEST_F(LlmClientTest, OpenAiNonStreamedRequestAndAccounting) {
  ScriptedServer server({Json(OpenAiJson("__global__ void k() {}"))});
  auto client = Client(Endpoint("openai", server.url() + "/v1", "gpt-4o"));
  Result<ChatResponse> r = client->Complete(Request(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "__global__ void k() {}");
  EXPECT_EQ(r->model, "gpt-4o-2024-08-06");
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->attempts, 1);
  EXPECT_EQ(r->usage.input_tokens, 1000);
  EXPECT_EQ(r->usage.output_tokens, 500);
  EXPECT_TRUE(r->usage.priced);
  EXPECT_NEAR(r->usage.dollars, (1000 * 2.5 + 500 * 10.0) / 1e6, 1e-12);

  ASSERT_EQ(server.count(), 1u);
  llm_test::Recorded q = server.requests()[0];
  EXPECT_EQ(q.path, "/v1/chat/completions");
  EXPECT_EQ(q.headers["authorization"], std::string("Bearer ") + kKey);
  json body = json::parse(q.body);
  EXPECT_EQ(body["model"], "gpt-4o");
  EXPECT_EQ(body["stream"], false);
  EXPECT_FALSE(body.contains("stream_options"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.25);
  EXPECT_EQ(body["max_tokens"], 1234);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0], (json{{"role", "system"}, {"content", "You write CUDA."}}));
  EXPECT_EQ(body["messages"][1], (json{{"role", "user"}, {"content", "Make it faster."}}));
}

TEST_F(LlmClientTest, OpenAiStreamedDeltasUsageAndCallback) {
  ScriptedServer server({Sse(Pieces(OpenAiStream({"__global__", " void", " k() {}"}), 7))});
  auto client = Client(Endpoint("openai", server.url() + "/v1", "gpt-4.1-mini"));
  ChatRequest req = Request(true);
  std::string seen;
  int calls = 0;
  req.on_delta = [&](std::string_view d, int attempt) {
    EXPECT_EQ(attempt, 1);
    seen += d;
    ++calls;
  };
  Result<ChatResponse> r = client->Complete(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "__global__ void k() {}");
  EXPECT_EQ(seen, r->text);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(r->finish_reason, "stop");
  EXPECT_EQ(r->usage.input_tokens, 2000);
  EXPECT_EQ(r->usage.output_tokens, 100);
  EXPECT_NEAR(r->usage.dollars, (2000 * 0.4 + 100 * 1.6) / 1e6, 1e-12);
  json body = json::parse(server.requests()[0].body);
  EXPECT_EQ(body["stream"], true);
  EXPECT_EQ(body["stream_options"]["include_usage"], true);
  EXPECT_EQ(server.requests()[0].headers["accept"], "text/event-stream");
}

TEST_F(LlmClientTest, OpenAiStreamRequestedButJsonAnswerIsAccepted) {
  ScriptedServer server({Json(OpenAiJson("ok"))});  // a server that ignores "stream"
  Result<ChatResponse> r = Client(Endpoint("openai", server.url() + "/v1", "gpt-4o"))->Complete(Request(true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "ok");
}

TEST_F(LlmClientTest, OpenAiReasoningModelsGetMaxCompletionTokens) {
  ScriptedServer server({Json(OpenAiJson("ok"))});
  ASSERT_TRUE(Client(Endpoint("openai", server.url() + "/v1", "o3"))->Complete(Request(false)).ok());
  json body = json::parse(server.requests()[0].body);
  EXPECT_EQ(body["max_completion_tokens"], 1234);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_FALSE(body.contains("temperature"));
}

TEST_F(LlmClientTest, Retries429HonouringRetryAfter) {
  Reply limited = Json(R"({"error":{"message":"Rate limit reached","type":"requests"}})", 429);
  limited.headers["Retry-After"] = "0";
  ScriptedServer server({limited, Json(OpenAiJson("done"))});
  LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "gpt-4o");
  e.backoff_initial_s = e.backoff_max_s = 10;  // would time the test out if Retry-After were ignored
  auto start = std::chrono::steady_clock::now();
  Result<ChatResponse> r = Client(e)->Complete(Request(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->attempts, 2);
  EXPECT_EQ(server.count(), 2u);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST_F(LlmClientTest, Retries5xxUntilGivingUp) {
  ScriptedServer server({Json(R"({"error":{"message":"The server had an error"}})", 503)});
  LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "gpt-4o");
  e.max_retries = 2;
  Result<ChatResponse> r = Client(e)->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(server.count(), 3u);
  EXPECT_NE(r.status().message().find("HTTP 503"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("The server had an error"), std::string::npos);
  EXPECT_NE(r.status().message().find("after 3 attempts"), std::string::npos);
}

TEST_F(LlmClientTest, Other4xxIsNotRetriedAndCarriesTheMessage) {
  ScriptedServer server(
      {Json(R"({"error":{"message":"max_tokens is too large: 99999999","type":"invalid_request_error"}})", 400),
       Json(OpenAiJson("never"))});
  Result<ChatResponse> r = Client(Endpoint("openai", server.url() + "/v1", "gpt-4o"))->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(server.count(), 1u);
  EXPECT_NE(r.status().message().find("HTTP 400"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("max_tokens is too large"), std::string::npos);
}

TEST_F(LlmClientTest, KeyNeverLeaks) {
  std::string echo = std::string(R"({"error":{"message":"Incorrect API key provided: )") + kKey +
                     R"(","type":"invalid_request_error"}})";
  ScriptedServer server({Json(echo, 401)});
  auto client = Client(Endpoint("openai", server.url() + "/v1", "gpt-4o"));
  ExpectNoKey(client->Describe());
  Result<ChatResponse> r = client->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(server.count(), 1u);
  EXPECT_NE(r.status().message().find("HTTP 401"), std::string::npos);
  EXPECT_NE(r.status().message().find("[redacted]"), std::string::npos) << r.status().message();
  ExpectNoKey(r.status().ToString());

  // Nor in an answer, or in errors about streams and JSON that quote the body.
  ScriptedServer echo_ok({Json(OpenAiJson(std::string("the key is ") + kKey)), Json(std::string("{bad json ") + kKey)});
  auto c2 = Client(Endpoint("openai", echo_ok.url() + "/v1", "gpt-4o"));
  Result<ChatResponse> ok = c2->Complete(Request(false));
  ASSERT_TRUE(ok.ok());
  ExpectNoKey(ok->text);
  Result<ChatResponse> bad = c2->Complete(Request(false));
  ASSERT_FALSE(bad.ok());
  ExpectNoKey(bad.status().ToString());
}

TEST_F(LlmClientTest, MissingKeyVariableIsAConfigError) {
  LlmEndpoint e = Endpoint("openai", "http://127.0.0.1:1/v1", "gpt-4o");
  e.api_key_env = "CUCO_LLM_TEST_UNSET_VARIABLE";
  Result<std::unique_ptr<LlmClient>> c = MakeLlmClient(e);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("CUCO_LLM_TEST_UNSET_VARIABLE"), std::string::npos);
  e.api_key_env = "";  // a local server without keys
  EXPECT_TRUE(MakeLlmClient(e).ok());
}

TEST_F(LlmClientTest, NoKeyMeansNoAuthorizationHeader) {
  ScriptedServer server({Json(OpenAiJson("ok"))});
  LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "qwen2.5-coder:32b");
  e.api_key_env = "";
  auto client = Client(e);
  Result<ChatResponse> r = client->Complete(Request(false));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(server.requests()[0].headers.count("authorization"), 0u);
  EXPECT_FALSE(r->usage.priced);  // unknown model: no price
  EXPECT_EQ(r->usage.dollars, 0);
  EXPECT_NE(client->Describe().find("price unknown"), std::string::npos) << client->Describe();
}

TEST_F(LlmClientTest, EndpointPricesOverrideTheTable) {
  ScriptedServer server({Json(OpenAiJson("ok", 1000000, 2000000))});
  LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "my-local-model");
  e.price_in_per_mtok = 0.5;
  e.price_out_per_mtok = 2;
  Result<ChatResponse> r = Client(e)->Complete(Request(false));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->usage.priced);
  EXPECT_NEAR(r->usage.dollars, 0.5 + 4.0, 1e-9);
}

TEST_F(LlmClientTest, MalformedAnswersAreErrorsNotCrashes) {
  const std::vector<std::pair<Reply, std::string>> cases = {
      {Json("{not json"), "not valid JSON"},
      {Json(R"({"id":"x"})"), "no 'choices'"},
      {Json(R"({"choices":[{"index":0}]})"), "no 'message'"},
      {Json(R"({"choices":[{"message":{"content":42}}]})"), "empty answer"},
      {Json(R"({"choices":"nope"})"), "no 'choices'"},
      {Json(R"([1,2,3])"), "not a JSON object"},
      {Json(OpenAiJson("")), "empty answer"},
      {Json(""), "not valid JSON"},
      {Sse({"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {oops\n\n"}), "not valid JSON"},
      {Sse({"data: [1]\n\n"}), "not a JSON object"},
  };
  for (const auto& [reply, want] : cases) {
    ScriptedServer server({reply});
    LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "gpt-4o");
    Result<ChatResponse> r = Client(e)->Complete(Request(reply.chunks.empty() ? false : true));
    ASSERT_FALSE(r.ok()) << reply.body;
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().message();
    EXPECT_EQ(server.count(), 1u) << "not retried: " << r.status().message();
  }
}

// Valid JSON of surprising shapes, for every protocol, whole and streamed: an answer or an
// error, never a crash or an exception.
TEST_F(LlmClientTest, OddShapesNeverCrash) {
  const std::vector<std::string> bodies = {
      "null",
      "true",
      "\"text\"",
      "{}",
      "[]",
      R"({"choices":[null]})",
      R"({"choices":[{"message":null}]})",
      R"({"choices":[{"message":{"content":["a",{"text":"b"},{"text":3}]}}],"usage":"many"})",
      R"({"choices":[{"delta":{"content":null},"finish_reason":7}]})",
      R"({"error":null})",
      R"({"error":[1]})",
      R"({"type":"error"})",
      R"({"content":[1,{"type":"text"},{"type":"text","text":null}]})",
      R"({"content":"x","usage":{"input_tokens":"9"}})",
      R"({"type":"message_start","message":[]})",
      R"({"type":"content_block_delta","delta":"x"})",
      R"({"type":"message_delta","usage":[],"delta":5})",
      R"({"candidates":{}})",
      R"({"candidates":[{"content":{"parts":"x"}}]})",
      R"({"candidates":[{"content":{"parts":[null,{"text":1},{"text":"ok"}]},"finishReason":1}]})",
      R"({"candidates":[],"usageMetadata":{"promptTokenCount":1e30}})",
      R"({"promptFeedback":[]})",
      R"({"usageMetadata":null,"modelVersion":7})"};
  for (const std::string provider : {"openai", "anthropic", "gemini"}) {
    for (const std::string& body : bodies) {
      for (bool stream : {false, true}) {
        Reply reply =
            stream ? Sse({"data: " + body + "\n\n", "event: message_start\ndata: " + body + "\n\n"}) : Json(body);
        ScriptedServer server({reply});
        LlmEndpoint e = Endpoint(provider, server.url(), "m");
        e.max_retries = 0;
        Result<ChatResponse> r = Client(e)->Complete(Request(stream));
        if (r.ok()) {
          EXPECT_FALSE(r->text.empty());
        } else {
          EXPECT_FALSE(r.status().message().empty());
        }
      }
    }
  }
}

TEST_F(LlmClientTest, StreamCutMidWayIsRetried) {
  std::string whole = OpenAiStream({"part one", " part two"});
  ScriptedServer server({Sse({whole.substr(0, whole.size() / 2)}, /*cut=*/true), Sse(Pieces(whole, 50))});
  ChatRequest req = Request(true);
  std::vector<int> attempts_seen;
  req.on_delta = [&](std::string_view, int attempt) { attempts_seen.push_back(attempt); };
  Result<ChatResponse> r = Client(Endpoint("openai", server.url() + "/v1", "gpt-4o"))->Complete(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "part one part two");
  EXPECT_EQ(r->attempts, 2);
  ASSERT_FALSE(attempts_seen.empty());
  EXPECT_EQ(attempts_seen.front(), 1);
  EXPECT_EQ(attempts_seen.back(), 2);
}

TEST_F(LlmClientTest, StreamCutMidWayEveryTimeIsAClearError) {
  std::string whole = OpenAiStream({"part one", " part two"});
  // Dropped connection, and a stream that ends cleanly without its end marker.
  for (bool drop : {true, false}) {
    ScriptedServer server({Sse({OpenAiStream({"part one"}, /*done=*/false)}, drop)});
    LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "gpt-4o");
    e.max_retries = 1;
    Result<ChatResponse> r = Client(e)->Complete(Request(true));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(server.count(), 2u);
    EXPECT_NE(r.status().message().find("cut mid-way"), std::string::npos) << r.status().message();
  }
}

TEST_F(LlmClientTest, ConnectionRefusedIsRetriedThenReported) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len), 0);
  int port = ntohs(a.sin_port);
  ::close(fd);  // nothing listens there now
  LlmEndpoint e = Endpoint("openai", "http://127.0.0.1:" + std::to_string(port) + "/v1", "gpt-4o");
  e.max_retries = 2;
  Result<ChatResponse> r = Client(e)->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_NE(r.status().message().find("after 3 attempts"), std::string::npos) << r.status().message();
}

TEST_F(LlmClientTest, WholeRequestTimeout) {
  Reply slow = Json(OpenAiJson("late"));
  slow.delay_ms = 700;
  ScriptedServer server({slow});
  LlmEndpoint e = Endpoint("openai", server.url() + "/v1", "gpt-4o");
  e.timeout_s = 0.3;
  auto start = std::chrono::steady_clock::now();
  Result<ChatResponse> r = Client(e)->Complete(Request(false));
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no answer within timeout_s=0.3"), std::string::npos) << r.status().message();
  EXPECT_LT(took, 1.0);
}

TEST_F(LlmClientTest, BadRequestsAreRejectedBeforeSending) {
  auto client = Client(Endpoint("openai", "http://127.0.0.1:1/v1", "gpt-4o"));
  ChatRequest empty;
  EXPECT_EQ(client->Complete(empty).status().code(), Status::Code::kInvalidArgument);
  ChatRequest bad_role = Request(false);
  bad_role.messages.push_back({"tool", "x"});
  EXPECT_EQ(client->Complete(bad_role).status().code(), Status::Code::kInvalidArgument);
}

// ---------------------------------------------------------------------------------------------
// Anthropic

std::string AnthropicStream(const std::vector<std::string>& deltas, bool stop = true) {
  auto ev = [](const std::string& name, const json& j) { return "event: " + name + "\ndata: " + j.dump() + "\n\n"; };
  std::string s = ev("message_start", {{"type", "message_start"},
                                       {"message",
                                        {{"id", "msg_1"},
                                         {"type", "message"},
                                         {"role", "assistant"},
                                         {"content", json::array()},
                                         {"model", "claude-sonnet-4-20250514"},
                                         {"stop_reason", nullptr},
                                         {"usage", {{"input_tokens", 25}, {"output_tokens", 1}}}}}});
  s += ev("content_block_start",
          {{"type", "content_block_start"}, {"index", 0}, {"content_block", {{"type", "text"}, {"text", ""}}}});
  s += ev("ping", {{"type", "ping"}});
  for (const std::string& d : deltas)
    s += ev("content_block_delta",
            {{"type", "content_block_delta"}, {"index", 0}, {"delta", {{"type", "text_delta"}, {"text", d}}}});
  if (!stop) return s;
  s += ev("content_block_stop", {{"type", "content_block_stop"}, {"index", 0}});
  s += ev("message_delta", {{"type", "message_delta"},
                            {"delta", {{"stop_reason", "end_turn"}, {"stop_sequence", nullptr}}},
                            {"usage", {{"output_tokens", 15}}}});
  s += ev("message_stop", {{"type", "message_stop"}});
  return s;
}

TEST_F(LlmClientTest, AnthropicStreamedRequestShapeAndUsage) {
  ScriptedServer server({Sse(Pieces(AnthropicStream({"Hello", ", kernel"}), 11))});
  auto client = Client(Endpoint("anthropic", server.url(), "claude-sonnet-4-20250514"));
  ChatRequest req = Request(true);
  req.messages = {{"system", "Be terse."}, {"user", "first"}, {"user", "second"}, {"assistant", "ok"}, {"user", "go"}};
  Result<ChatResponse> r = client->Complete(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "Hello, kernel");
  EXPECT_EQ(r->finish_reason, "end_turn");
  EXPECT_EQ(r->model, "claude-sonnet-4-20250514");
  EXPECT_EQ(r->usage.input_tokens, 25);
  EXPECT_EQ(r->usage.output_tokens, 15);
  EXPECT_NEAR(r->usage.dollars, (25 * 3.0 + 15 * 15.0) / 1e6, 1e-12);

  llm_test::Recorded q = server.requests()[0];
  EXPECT_EQ(q.path, "/v1/messages");
  EXPECT_EQ(q.headers["x-api-key"], kKey);
  EXPECT_EQ(q.headers["anthropic-version"], "2023-06-01");
  EXPECT_EQ(q.headers.count("authorization"), 0u);
  json body = json::parse(q.body);
  EXPECT_EQ(body["model"], "claude-sonnet-4-20250514");
  EXPECT_EQ(body["system"], "Be terse.");
  EXPECT_EQ(body["max_tokens"], 1234);
  EXPECT_EQ(body["stream"], true);
  ASSERT_EQ(body["messages"].size(), 3u);  // no system message; the two user turns merged
  EXPECT_EQ(body["messages"][0], (json{{"role", "user"}, {"content", "first\n\nsecond"}}));
  EXPECT_EQ(body["messages"][1]["role"], "assistant");
  EXPECT_EQ(body["messages"][2]["role"], "user");
}

TEST_F(LlmClientTest, AnthropicNonStreamedAnd500Retry) {
  json answer = {{"id", "msg_1"},
                 {"type", "message"},
                 {"role", "assistant"},
                 {"model", "claude-opus-4-1-20250805"},
                 {"content",
                  {{{"type", "thinking"}, {"thinking", "hmm"}},
                   {{"type", "text"}, {"text", "A"}},
                   {{"type", "text"}, {"text", "B"}}}},
                 {"stop_reason", "max_tokens"},
                 {"usage", {{"input_tokens", 100}, {"output_tokens", 200}}}};
  ScriptedServer server(
      {Json(R"({"type":"error","error":{"type":"api_error","message":"Internal server error"}})", 500),
       Json(answer.dump())});
  // base_url may carry the /v1 already.
  Result<ChatResponse> r =
      Client(Endpoint("anthropic", server.url() + "/v1", "claude-opus-4-1"))->Complete(Request(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "AB");
  EXPECT_EQ(r->finish_reason, "max_tokens");
  EXPECT_EQ(r->attempts, 2);
  EXPECT_NEAR(r->usage.dollars, (100 * 15.0 + 200 * 75.0) / 1e6, 1e-12);
  for (const auto& q : server.requests()) EXPECT_EQ(q.path, "/v1/messages");
  EXPECT_FALSE(json::parse(server.requests()[0].body).contains("stream_options"));
}

TEST_F(LlmClientTest, AnthropicErrorEvents) {
  std::string overloaded =
      "event: error\ndata: "
      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n";
  {  // overloaded mid-stream: retried
    ScriptedServer server({Sse({AnthropicStream({"x"}, false) + overloaded}), Sse({AnthropicStream({"fine"})})});
    Result<ChatResponse> r = Client(Endpoint("anthropic", server.url(), "claude-sonnet-4-5"))->Complete(Request(true));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->text, "fine");
    EXPECT_EQ(r->attempts, 2);
  }
  {  // a request error reported in the stream: not retried
    std::string invalid =
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is "
        "too long\"}}\n\n";
    ScriptedServer server({Sse({invalid})});
    Result<ChatResponse> r = Client(Endpoint("anthropic", server.url(), "claude-sonnet-4-5"))->Complete(Request(true));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(server.count(), 1u);
    EXPECT_NE(r.status().message().find("prompt is too long"), std::string::npos) << r.status().message();
  }
  {  // cut before message_stop
    ScriptedServer server({Sse({AnthropicStream({"x"}, false)})});
    LlmEndpoint e = Endpoint("anthropic", server.url(), "claude-sonnet-4-5");
    e.max_retries = 0;
    Result<ChatResponse> r = Client(e)->Complete(Request(true));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("no message_stop"), std::string::npos) << r.status().message();
  }
}

// ---------------------------------------------------------------------------------------------
// Gemini

json GeminiChunk(const std::string& text, const std::string& finish = "", int in = 0, int out = 0) {
  json c = {{"content", {{"role", "model"}, {"parts", {{{"text", text}}}}}}, {"index", 0}};
  if (!finish.empty()) c["finishReason"] = finish;
  json j = {{"candidates", {c}}, {"modelVersion", "gemini-2.5-flash"}};
  if (in || out)
    j["usageMetadata"] = {{"promptTokenCount", in}, {"candidatesTokenCount", out}, {"totalTokenCount", in + out}};
  return j;
}

TEST_F(LlmClientTest, GeminiNonStreamedRequestShape) {
  json answer = GeminiChunk("B", "STOP", 400, 40);
  answer["candidates"][0]["content"]["parts"] = {
      {{"text", "thinking..."}, {"thought", true}}, {{"text", "A"}}, {{"text", "B"}}};
  answer["usageMetadata"]["thoughtsTokenCount"] = 60;
  ScriptedServer server({Json(answer.dump())});
  auto client = Client(Endpoint("gemini", server.url(), "gemini-2.5-flash"));
  ChatRequest req = Request(false);
  req.messages.push_back({"assistant", "Which kernel?"});
  req.messages.push_back({"user", "The GEMM."});
  Result<ChatResponse> r = client->Complete(req);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "AB");
  EXPECT_EQ(r->finish_reason, "STOP");
  EXPECT_EQ(r->usage.input_tokens, 400);
  EXPECT_EQ(r->usage.output_tokens, 100);
  EXPECT_NEAR(r->usage.dollars, (400 * 0.30 + 100 * 2.50) / 1e6, 1e-12);

  llm_test::Recorded q = server.requests()[0];
  EXPECT_EQ(q.path, "/v1beta/models/gemini-2.5-flash:generateContent");
  EXPECT_TRUE(q.params.empty());  // the key is not in the URL
  EXPECT_EQ(q.headers["x-goog-api-key"], kKey);
  json body = json::parse(q.body);
  EXPECT_EQ(body["systemInstruction"]["parts"][0]["text"], "You write CUDA.");
  ASSERT_EQ(body["contents"].size(), 3u);
  EXPECT_EQ(body["contents"][0], (json{{"role", "user"}, {"parts", {{{"text", "Make it faster."}}}}}));
  EXPECT_EQ(body["contents"][1]["role"], "model");
  EXPECT_DOUBLE_EQ(body["generationConfig"]["temperature"].get<double>(), 0.25);
  EXPECT_EQ(body["generationConfig"]["maxOutputTokens"], 1234);
}

TEST_F(LlmClientTest, GeminiStreamed) {
  std::string s = "data: " + GeminiChunk("Hel").dump() + "\r\n\r\n" + "data: " + GeminiChunk("lo").dump() + "\r\n\r\n" +
                  "data: " + GeminiChunk("!", "STOP", 10, 3).dump() + "\r\n\r\n";
  ScriptedServer server({Sse(Pieces(s, 13))});
  Result<ChatResponse> r = Client(Endpoint("gemini", server.url(), "gemini-2.5-pro"))->Complete(Request(true));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "Hello!");
  EXPECT_EQ(r->usage.input_tokens, 10);
  EXPECT_EQ(r->usage.output_tokens, 3);
  EXPECT_NEAR(r->usage.dollars, (10 * 1.25 + 3 * 10.0) / 1e6, 1e-15);
  llm_test::Recorded q = server.requests()[0];
  EXPECT_EQ(q.path, "/v1beta/models/gemini-2.5-pro:streamGenerateContent");
  EXPECT_EQ(q.params["alt"], "sse");
}

TEST_F(LlmClientTest, GeminiCutStreamAndBlockedPrompt) {
  {
    ScriptedServer server({Sse({"data: " + GeminiChunk("Hel").dump() + "\n\n"})});
    LlmEndpoint e = Endpoint("gemini", server.url(), "gemini-2.5-pro");
    e.max_retries = 0;
    Result<ChatResponse> r = Client(e)->Complete(Request(true));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("cut mid-way"), std::string::npos) << r.status().message();
  }
  {
    ScriptedServer server({Json(R"({"promptFeedback":{"blockReason":"SAFETY"}})")});
    Result<ChatResponse> r = Client(Endpoint("gemini", server.url(), "gemini-2.5-pro"))->Complete(Request(false));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("SAFETY"), std::string::npos);
    EXPECT_EQ(server.count(), 1u);
  }
  {
    ScriptedServer server(
        {Json(R"({"error":{"code":403,"message":"API key not valid","status":"PERMISSION_DENIED"}})", 403)});
    Result<ChatResponse> r = Client(Endpoint("gemini", server.url(), "gemini-2.5-pro"))->Complete(Request(false));
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find("PERMISSION_DENIED: API key not valid"), std::string::npos)
        << r.status().message();
    EXPECT_EQ(server.count(), 1u);
  }
}

// ---------------------------------------------------------------------------------------------
// command

LlmEndpoint CommandEndpoint(const std::string& command, double timeout_s = 10) {
  LlmEndpoint e;
  e.name = "agent";
  e.provider = "command";
  e.model = "agent-model";
  e.command = command;
  e.timeout_s = timeout_s;
  return e;
}

TEST_F(LlmClientTest, CommandGetsTheTranscriptOnStdin) {
  auto client = Client(CommandEndpoint("cat; printf 'model=%s\\n' \"$CUCO_LLM_MODEL\""));
  Result<ChatResponse> r = client->Complete(Request(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "## System\n\nYou write CUDA.\n\n## User\n\nMake it faster.\nmodel=agent-model\n");
  EXPECT_FALSE(r->usage.priced);
  EXPECT_NE(client->Describe().find("not measured"), std::string::npos);
}

TEST_F(LlmClientTest, CommandAnswer) {
  Result<ChatResponse> r = Client(CommandEndpoint("cat >/dev/null; echo answer"))->Complete(Request(false));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->text, "answer\n");
}

TEST_F(LlmClientTest, CommandFailures) {
  Result<ChatResponse> r =
      Client(CommandEndpoint("cat >/dev/null; echo 'quota exceeded' >&2; exit 3"))->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kIOError);
  EXPECT_NE(r.status().message().find("exit 3"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("quota exceeded"), std::string::npos);

  r = Client(CommandEndpoint("cuco-no-such-agent-cli --print"))->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Status::Code::kUnavailable) << r.status().ToString();

  r = Client(CommandEndpoint("cat >/dev/null"))->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no answer"), std::string::npos);

  auto start = std::chrono::steady_clock::now();
  r = Client(CommandEndpoint("sleep 20", 0.3))->Complete(Request(false));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("timed out"), std::string::npos) << r.status().message();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

TEST(FormatTranscriptTest, RoleHeaders) {
  EXPECT_EQ(FormatTranscript({{"system", "s"}, {"user", "u"}, {"assistant", "a"}}),
            "## System\n\ns\n\n## User\n\nu\n\n## Assistant\n\na\n");
}

}  // namespace
}  // namespace cuco
