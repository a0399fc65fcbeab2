// ScriptedServer: a local HTTP server (cpp-httplib, 127.0.0.1, a free port) that answers each
// POST with the next reply of a script and records every request. For the LLM client tests.
#pragma once

#include <httplib.h>

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace cuco::llm_test {

struct Reply {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;                            // a whole body (when chunks is empty)
  std::vector<std::string> chunks;             // sent one by one with chunked encoding
  bool cut = false;                            // drop the connection after the chunks
  std::map<std::string, std::string> headers;  // extra response headers
  int delay_ms = 0;                            // wait before answering
};

// Reply helpers.
inline Reply Json(std::string body, int status = 200) {
  Reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}
inline Reply Sse(std::vector<std::string> chunks, bool cut = false) {
  Reply r;
  r.content_type = "text/event-stream";
  r.chunks = std::move(chunks);
  r.cut = cut;
  return r;
}

struct Recorded {
  std::string path;                            // without the query
  std::map<std::string, std::string> params;   // query parameters
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

class ScriptedServer {
 public:
  // The last reply repeats once the script runs out.
  explicit ScriptedServer(std::vector<Reply> script) : script_(std::move(script)) {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~ScriptedServer() {
    server_.stop();
    thread_.join();
  }
  ScriptedServer(const ScriptedServer&) = delete;
  ScriptedServer& operator=(const ScriptedServer&) = delete;

  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<Recorded> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  size_t count() const { return requests().size(); }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    Reply reply;
    {
      std::lock_guard<std::mutex> lock(mu_);
      Recorded r{req.path, {}, {}, req.body};
      for (const auto& [k, v] : req.params) r.params[k] = v;
      for (const auto& [k, v] : req.headers) {
        std::string name = k;
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        r.headers[name] = v;
      }
      requests_.push_back(std::move(r));
      reply = script_.empty() ? Json("{}") : script_[std::min(next_++, script_.size() - 1)];
    }
    if (reply.delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(reply.delay_ms));
    res.status = reply.status;
    for (const auto& [k, v] : reply.headers) res.set_header(k.c_str(), v);
    if (reply.chunks.empty()) {
      res.set_content(reply.body, reply.content_type.c_str());
      return;
    }
    res.set_chunked_content_provider(reply.content_type.c_str(), [reply](size_t, httplib::DataSink& sink) {
      for (const std::string& c : reply.chunks) sink.write(c.data(), c.size());
      if (reply.cut) return false;  // no closing chunk: the client sees a cut transfer
      sink.done();
      return true;
    });
  }

  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<Reply> script_;
  size_t next_ = 0;
  std::vector<Recorded> requests_;
};

}  // namespace cuco::llm_test
