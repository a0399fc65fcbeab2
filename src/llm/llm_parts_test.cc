// The pieces under the clients: SSE framing, prices, backoff, Retry-After, URL joining.
#include <gtest/gtest.h>

#include "llm/backoff.h"
#include "llm/llm_client.h"
#include "llm/http_post.h"
#include "llm/prices.h"
#include "llm/sse.h"
#include "llm/wire_protocol.h"

namespace cuco {
namespace {

std::vector<SseEvent> Decode(const std::string& stream, size_t piece) {
  std::vector<SseEvent> events;
  SseDecoder d([&](const SseEvent& e) {
    events.push_back(e);
    return Status::Ok();
  });
  for (size_t i = 0; i < stream.size(); i += piece) EXPECT_TRUE(d.Feed(std::string_view(stream).substr(i, piece)).ok());
  EXPECT_TRUE(d.Finish().ok());
  return events;
}

TEST(SseDecoderTest, FramingInAnySplit) {
  const std::string stream =
      ": comment\r\n"
      "event: message_start\r\ndata: {\"a\":1}\r\n\r\n"
      "data: line one\ndata:line two\nid: 7\n\n"
      "data: cr only\r\r"
      "event: ignored-without-data\n\n"
      "data: last without blank line";
  for (size_t piece : {1, 2, 3, 5, 1000}) {
    std::vector<SseEvent> ev = Decode(stream, piece);
    ASSERT_EQ(ev.size(), 4u) << piece;
    EXPECT_EQ(ev[0].event, "message_start");
    EXPECT_EQ(ev[0].data, "{\"a\":1}");
    EXPECT_EQ(ev[1].event, "");
    EXPECT_EQ(ev[1].data, "line one\nline two");
    EXPECT_EQ(ev[2].data, "cr only");
    EXPECT_EQ(ev[3].data, "last without blank line");
  }
}

TEST(SseDecoderTest, HandlerErrorStopsFeed) {
  SseDecoder d([](const SseEvent&) { return Status::IOError("stop"); });
  EXPECT_FALSE(d.Feed("data: x\n\ndata: y\n\n").ok());
}

TEST(ChatResponseTest, CutOffIsTheOutputTokenLimitInAnyProvidersWords) {
  for (const char* cut : {"length", "max_tokens", "MAX_OUTPUT_TOKENS"}) {
    ChatResponse r;
    r.finish_reason = cut;
    EXPECT_TRUE(r.CutOff()) << cut;
  }
  for (const char* done : {"stop", "end_turn", "STOP", ""}) {
    ChatResponse r;
    r.finish_reason = done;
    EXPECT_FALSE(r.CutOff()) << done;
  }
}

TEST(PricesTest, LongestPrefixAndVendorPrefix) {
  ASSERT_TRUE(BuiltinPrice("gpt-4o-mini-2024-07-18"));
  EXPECT_EQ(BuiltinPrice("gpt-4o-mini-2024-07-18")->in_per_mtok, 0.15);
  EXPECT_EQ(BuiltinPrice("gpt-4o-2024-08-06")->in_per_mtok, 2.5);
  EXPECT_EQ(BuiltinPrice("openai/gpt-4.1")->out_per_mtok, 8.0);
  EXPECT_EQ(BuiltinPrice("models/gemini-2.5-flash-lite")->in_per_mtok, 0.10);
  EXPECT_EQ(BuiltinPrice("claude-opus-4-1-20250805")->out_per_mtok, 75.0);
  EXPECT_EQ(BuiltinPrice("deepseek-chat")->in_per_mtok, 0.27);
  EXPECT_EQ(BuiltinPrice("o3-mini")->in_per_mtok, 1.10);
  EXPECT_FALSE(BuiltinPrice("llama-3.3-70b"));
  EXPECT_DOUBLE_EQ(CostDollars({2.0, 8.0}, 1'000'000, 500'000), 6.0);

  LlmEndpoint e;
  e.price_out_per_mtok = 1;
  EXPECT_EQ(PriceFor(e, "gpt-4.1")->in_per_mtok, 2.0);  // the table's, for what the endpoint leaves out
  EXPECT_EQ(PriceFor(e, "gpt-4.1")->out_per_mtok, 1.0);
  EXPECT_EQ(PriceFor(e, "unknown")->in_per_mtok, 0.0);
  EXPECT_FALSE(PriceFor(LlmEndpoint{}, "unknown"));
}

TEST(BackoffTest, GrowsCapsAndJitters) {
  std::mt19937_64 rng(1);
  for (int retry = 1; retry <= 10; ++retry) {
    double want = std::min(30.0, 1.0 * (1 << (retry - 1)));
    double d = BackoffDelay(1, 30, retry, rng);
    EXPECT_GE(d, want * 0.5);
    EXPECT_LE(d, want);
  }
}

TEST(RetryAfterTest, SecondsAndDates) {
  EXPECT_EQ(ParseRetryAfter("0"), 0);
  EXPECT_EQ(ParseRetryAfter(" 12 "), 12);
  EXPECT_EQ(ParseRetryAfter("1.5"), 1.5);
  EXPECT_EQ(ParseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT"), 0);  // in the past
  EXPECT_EQ(ParseRetryAfter("soon"), -1);
  EXPECT_EQ(ParseRetryAfter("-3"), -1);
}

TEST(WireHelpersTest, UrlsTurnsAndErrorMessages) {
  EXPECT_EQ(JoinUrl("https://api.anthropic.com", "/v1", "/messages"), "https://api.anthropic.com/v1/messages");
  EXPECT_EQ(JoinUrl("https://api.anthropic.com/v1", "/v1", "/messages"), "https://api.anthropic.com/v1/messages");
  std::vector<ChatMessage> turns =
      MergedTurns({{"system", "s1"}, {"user", "a"}, {"system", "s2"}, {"user", "b"}, {"assistant", "c"}});
  ASSERT_EQ(turns.size(), 2u);
  EXPECT_EQ(turns[0].content, "a\n\nb");
  EXPECT_EQ(SystemText({{"system", "s1"}, {"user", "a"}, {"system", "s2"}}), "s1\n\ns2");
  auto p = MakeOpenAiProtocol();
  EXPECT_EQ(p->ErrorMessage(R"({"error":"model 'x' not found"})"), "model 'x' not found");  // Ollama
  EXPECT_EQ(p->ErrorMessage(R"({"detail":"Not Found"})"), "Not Found");                     // FastAPI
  EXPECT_EQ(p->ErrorMessage(R"({"error":{"message":"m","type":"t"}})"), "t: m");            // OpenAI
  EXPECT_EQ(p->ErrorMessage("<html>\nBad gateway</html>"), "<html> Bad gateway</html>");
  EXPECT_EQ(p->ErrorMessage(""), "(empty body)");
}

}  // namespace
}  // namespace cuco
