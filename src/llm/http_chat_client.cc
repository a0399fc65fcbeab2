#include "llm/http_chat_client.h"

#include <chrono>
#include <cstdio>
#include <exception>
#include <thread>

#include "util/clock.h"

namespace cuco {
namespace {

using Clock = std::chrono::steady_clock;

// `s` with a new message and the same code.
Status Reworded(const Status& s, const std::string& message) {
  switch (s.code()) {
    case Status::Code::kInvalidArgument:
      return Status::InvalidArgument(message);
    case Status::Code::kNotFound:
      return Status::NotFound(message);
    case Status::Code::kUnavailable:
      return Status::Unavailable(message);
    case Status::Code::kInternal:
      return Status::Internal(message);
    default:
      return Status::IOError(message);
  }
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

struct HttpChatClient::Attempt {
  std::optional<ChatResponse> answer;  // set on success
  Status error;
  bool retryable = false;
  bool timed_out = false;
  double retry_after_s = -1;  // from the response's Retry-After, when it had one
};

HttpChatClient::HttpChatClient(LlmEndpoint endpoint, std::unique_ptr<WireProtocol> protocol, std::string api_key)
    : endpoint_(std::move(endpoint)),
      protocol_(std::move(protocol)),
      api_key_(std::move(api_key)),
      rng_(std::random_device{}()) {}

std::string HttpChatClient::Redact(std::string text) const {
  if (api_key_.size() < 4) return text;
  for (size_t at = text.find(api_key_); at != std::string::npos; at = text.find(api_key_, at))
    text.replace(at, api_key_.size(), "[redacted]");
  return text;
}

double HttpChatClient::NextDelay(int retry) {
  std::lock_guard<std::mutex> lock(rng_mu_);
  return BackoffDelay(endpoint_.backoff_initial_s, endpoint_.backoff_max_s, retry, rng_);
}

std::string HttpChatClient::Describe() const {
  std::string s = protocol_->Name() + " " + endpoint_.model + " at " + endpoint_.base_url;
  s += endpoint_.api_key_env.empty() ? " (no key" : " (key from $" + endpoint_.api_key_env;
  std::optional<TokenPrice> p = PriceFor(endpoint_, endpoint_.model);
  if (p) {
    s += "; $" + Num(p->in_per_mtok) + "/$" + Num(p->out_per_mtok) + " per Mtok in/out)";
  } else {
    s += "; price unknown: cost counted as $0)";
  }
  return s;
}

HttpChatClient::Attempt HttpChatClient::Send(const HttpRequest& http, const ChatRequest& request, int attempt,
                                             double time_left_s) const {
  Attempt a;
  std::function<void(std::string_view)> on_text;
  if (request.on_delta) on_text = [&request, attempt](std::string_view d) { request.on_delta(d, attempt); };
  std::unique_ptr<AnswerParser> parser = protocol_->NewParser(std::move(on_text));
  SseDecoder decoder([&](const SseEvent& e) { return GuardedParse([&] { return parser->OnEvent(e); }); });

  Status parse_status;
  bool decided = false, sse = false;
  BodySink sink = [&](const HttpResponse& head, std::string_view piece) -> bool {
    if (head.status < 200 || head.status >= 300) return true;  // an error body: read it whole
    if (!decided) {
      auto ct = head.headers.find("content-type");
      sse = ct != head.headers.end() && ct->second.find("text/event-stream") != std::string::npos;
      decided = true;
    }
    if (!sse) return true;
    parse_status = decoder.Feed(piece);
    return parse_status.ok();
  };
  HttpResult r = HttpPost(http, time_left_s, sink);
  const std::string where = "POST " + http.url;
  const HttpResponse& resp = r.response;

  if (!parse_status.ok()) {
    a.error = parse_status;
    a.retryable = parser->retryable;
    return a;
  }
  if (!r.completed) {
    a.timed_out = r.timed_out;
    a.retryable = true;
    bool cut = resp.status >= 200 && resp.status < 300 && !resp.body.empty();
    a.error = Status::IOError(
        where + ": " +
        (cut ? "the answer was cut mid-way after " + std::to_string(resp.body.size()) + " bytes: " : "") + r.error);
    return a;
  }
  if (resp.status < 200 || resp.status >= 300) {
    long s = resp.status;
    a.retryable = s == 408 || s == 429 || s >= 500 || s == 0;
    std::string msg = "HTTP " + std::to_string(s) + " from " + where + ": " + protocol_->ErrorMessage(resp.body);
    a.error = (s >= 400 && s < 500 && !a.retryable) ? Status::InvalidArgument(msg) : Status::IOError(msg);
    for (const char* h : {"retry-after-ms", "retry-after"}) {
      auto it = resp.headers.find(h);
      if (it == resp.headers.end()) continue;
      double v = ParseRetryAfter(it->second);
      if (v >= 0) {
        a.retry_after_s = std::string(h) == "retry-after-ms" ? v / 1000 : v;
        break;
      }
    }
    return a;
  }

  Status st = FinishAnswer(*parser, decoder, resp.body, sse);
  if (!st.ok()) {
    a.error = Reworded(st, where + ": " + st.message());
    a.retryable = parser->retryable;
    return a;
  }
  a.answer = std::move(parser->answer);
  return a;
}

Result<ChatResponse> HttpChatClient::Complete(const ChatRequest& request) {
  const Clock::time_point start = Clock::now();
  const std::string prefix = "llm endpoint '" + endpoint_.name + "': ";
  if (request.messages.empty()) return Status::InvalidArgument(prefix + "a chat request needs at least one message");
  for (const ChatMessage& m : request.messages)
    if (m.role != "system" && m.role != "user" && m.role != "assistant")
      return Status::InvalidArgument(prefix + "message role must be system, user or assistant (got '" + m.role + "')");
  if (request.max_tokens <= 0) return Status::InvalidArgument(prefix + "max_tokens must be > 0");

  const std::string model = request.model.empty() ? endpoint_.model : request.model;
  const HttpRequest http = protocol_->Build(endpoint_.base_url, api_key_, model, request);
  for (int attempt = 1;; ++attempt) {
    double left = endpoint_.timeout_s - SecondsSince(start);
    Attempt a;
    if (left > 0) {
      a = Send(http, request, attempt, left);
    } else {
      a.timed_out = true;
      a.error = Status::IOError("no time left");
    }
    if (a.answer) {
      ChatResponse out = std::move(*a.answer);
      out.text = Redact(std::move(out.text));
      if (out.model.empty()) out.model = model;
      out.attempts = attempt;
      out.seconds = SecondsSince(start);
      if (std::optional<TokenPrice> p = PriceFor(endpoint_, model)) {
        out.usage.priced = true;
        out.usage.dollars = CostDollars(*p, out.usage.input_tokens, out.usage.output_tokens);
      }
      if (out.text.empty())
        return Status::IOError(prefix + "empty answer from POST " + http.url +
                               (out.finish_reason.empty() ? "" : " (finish reason: " + out.finish_reason + ")"));
      return out;
    }
    std::string tries = attempt > 1 ? " (after " + std::to_string(attempt) + " attempts)" : "";
    if (a.timed_out)
      return Status::IOError(
          Redact(prefix + "no answer within timeout_s=" + Num(endpoint_.timeout_s) + tries + ": " + a.error.message()));
    if (!a.retryable || attempt > endpoint_.max_retries)
      return Reworded(a.error, Redact(prefix + a.error.message() + tries));
    double delay = a.retry_after_s >= 0 ? a.retry_after_s : NextDelay(attempt);
    if (SecondsSince(start) + delay >= endpoint_.timeout_s)
      return Reworded(a.error, Redact(prefix + a.error.message() + tries + "; a retry in " + Num(delay) +
                                      "s would pass timeout_s=" + Num(endpoint_.timeout_s)));
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
  }
}

}  // namespace cuco
