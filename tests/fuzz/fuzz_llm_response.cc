// Fuzz target: an LLM provider's HTTP response body, read as HttpChatClient reads it
// (FinishAnswer: an event stream fed in pieces, or one JSON answer), for each wire protocol, plus
// the error-body reader and the Retry-After header. The first byte picks the protocol, whether
// the body was streamed, and the piece size; the rest is the body.
#include "fuzz_input.h"
#include "llm/http_post.h"
#include "llm/wire_protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned char pick = data[0];
  const std::string body(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::unique_ptr<cuco::WireProtocol> protocol = (pick % 3 == 0)   ? cuco::MakeOpenAiProtocol()
                                                 : (pick % 3 == 1) ? cuco::MakeAnthropicProtocol()
                                                                   : cuco::MakeGeminiProtocol();
  const bool streamed = (pick & 4) != 0;
  const size_t piece = 1 + (pick >> 3);
  size_t text_bytes = 0;
  auto parser = protocol->NewParser([&](std::string_view t) { text_bytes += t.size(); });
  cuco::SseDecoder decoder([&](const cuco::SseEvent& e) { return cuco::GuardedParse([&] { return parser->OnEvent(e); }); });
  cuco::Status st;
  if (streamed)
    for (size_t at = 0; at < body.size() && st.ok(); at += piece) st = decoder.Feed(std::string_view(body).substr(at, piece));
  if (st.ok()) st = cuco::FinishAnswer(*parser, decoder, body, streamed);
  if (st.ok() && text_bytes != parser->answer.text.size()) cuco::fuzz::Broken("streamed text and answer text differ");
  (void)protocol->ErrorMessage(body);
  (void)cuco::ParseRetryAfter(body);
  return 0;
}
