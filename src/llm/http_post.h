// HttpPost: one HTTP(S) POST through libcurl, with the body handed over piece by piece as it
// arrives (for streamed answers) and a limit on the whole exchange. No retries here.
// Thread-safe; honours the usual proxy variables (https_proxy, no_proxy).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cuco {

struct HttpRequest {
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;  // name, value
  std::string body;
};

struct HttpResponse {
  long status = 0;                             // 0 until the status line came
  std::map<std::string, std::string> headers;  // names in lower case; the last of repeated ones
  std::string body;                            // everything received (also what was given to the sink)
};

struct HttpResult {
  bool completed = false;  // false: no whole response (connect/TLS failure, cut mid-body, timeout, sink abort)
  bool timed_out = false;  // the limit passed
  bool aborted = false;    // the sink returned false
  std::string error;       // why, when !completed: curl's words
  HttpResponse response;   // what came, even when !completed
};

// Called with each piece of the body once the status and headers are known; return false to stop.
using BodySink = std::function<bool(const HttpResponse& head, std::string_view piece)>;

HttpResult HttpPost(const HttpRequest& request, double timeout_s, const BodySink& sink = {});

// Seconds to wait from a Retry-After value (delta-seconds or an HTTP date), or -1 if unreadable.
double ParseRetryAfter(const std::string& value);

}  // namespace cuco
