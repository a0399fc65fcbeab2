#include "llm/http_post.h"
#include "util/source_text.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ctime>
#include <mutex>

namespace cuco {
namespace {

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Exchange {
  CURL* curl = nullptr;
  const BodySink* sink = nullptr;
  HttpResponse response;
  bool head_done = false;
  bool aborted = false;
};

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  std::string line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {
    x->response.headers.clear();  // a new response (after 100 Continue or a redirect)
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    x->response.headers[Trim(name)] = Trim(line.substr(colon + 1));
  }
  return size * n;
}

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* x = static_cast<Exchange*>(user);
  if (!x->head_done) {
    curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &x->response.status);
    x->head_done = true;
  }
  std::string_view piece(data, size * n);
  x->response.body.append(piece);
  if (x->sink && *x->sink && !(*x->sink)(x->response, piece)) {
    x->aborted = true;
    return 0;  // makes curl stop with CURLE_WRITE_ERROR
  }
  return size * n;
}

}  // namespace

HttpResult HttpPost(const HttpRequest& request, double timeout_s, const BodySink& sink) {
  GlobalInitOnce();
  HttpResult result;
  Exchange x;
  x.sink = &sink;
  x.curl = curl_easy_init();
  if (!x.curl) {
    result.error = "cannot start a curl handle";
    return result;
  }
  curl_slist* headers = nullptr;
  for (const auto& [name, value] : request.headers) headers = curl_slist_append(headers, (name + ": " + value).c_str());
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  char errbuf[CURL_ERROR_SIZE] = {0};
  long timeout_ms = std::max(1L, static_cast<long>(timeout_s * 1000));

  curl_easy_setopt(x.curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(x.curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(x.curl, CURLOPT_POST, 1L);
  curl_easy_setopt(x.curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(x.curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(x.curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(x.curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(x.curl, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 30000L));
  curl_easy_setopt(x.curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(x.curl, CURLOPT_ACCEPT_ENCODING, "");
  curl_easy_setopt(x.curl, CURLOPT_ERRORBUFFER, errbuf);
  curl_easy_setopt(x.curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(x.curl, CURLOPT_HEADERDATA, &x);
  curl_easy_setopt(x.curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(x.curl, CURLOPT_WRITEDATA, &x);

  CURLcode rc = curl_easy_perform(x.curl);
  if (x.response.status == 0) curl_easy_getinfo(x.curl, CURLINFO_RESPONSE_CODE, &x.response.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(x.curl);

  result.response = std::move(x.response);
  result.aborted = x.aborted;
  result.completed = (rc == CURLE_OK);
  result.timed_out = (rc == CURLE_OPERATION_TIMEDOUT);
  if (rc != CURLE_OK) result.error = errbuf[0] != '\0' ? std::string(errbuf) : std::string(curl_easy_strerror(rc));
  return result;
}

double ParseRetryAfter(const std::string& value) {
  std::string v = Trim(value);
  if (v.empty()) return -1;
  char* end = nullptr;
  double s = std::strtod(v.c_str(), &end);
  if (end && *end == '\0') return s >= 0 ? s : -1;
  time_t when = curl_getdate(v.c_str(), nullptr);
  if (when < 0) return -1;
  return std::max(0.0, std::difftime(when, std::time(nullptr)));
}

}  // namespace cuco
