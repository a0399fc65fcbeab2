#include "report/report_server.h"

#include <mutex>
#include <thread>

#include <httplib.h>

#include "report/d3_library.h"
#include "report/export_rows.h"
#include "report/html_text.h"

namespace cuco {

using json = nlohmann::json;

struct ReportServer::Rep {
  ServeOptions opt;
  httplib::Server http;
  std::thread thread;
  std::mutex join_mu;  // Wait and Stop may run on two threads: one joins
  int port = 0;
  std::mutex mu;  // guards everything below
  std::unique_ptr<CandidateStore> store;
  std::string version;       // of the cached data
  std::string data_text;     // ReportData JSON
  std::string page;          // the live page (no data: it fetches /data.json)
  std::string rows_version;  // of the cached export rows
  json rows;                 // export rows by position

  // Rebuilds the data when the store changed. Returns the current version.
  Result<std::string> Refresh() {
    auto max_id = store->MaxId();
    if (!max_id.ok()) return max_id.status();
    auto pending = store->Count("pending");
    if (!pending.ok()) return pending.status();
    const std::string v = RunVersion(*max_id, *pending);
    if (v == version && !data_text.empty()) return v;
    auto run = LoadRun(opt.run_dir);
    if (!run.ok()) return run.status();
    data_text = ReportData({*run}, ReportOptions{}).dump(-1, ' ', false, json::error_handler_t::replace);
    version = RunVersion(*run);
    return version;
  }
  Status RefreshRows() {
    if (rows_version == version) return Status::Ok();
    auto run = LoadRun(opt.run_dir);
    if (!run.ok()) return run.status();
    rows = ExportJson(*run);
    rows_version = version;
    return Status::Ok();
  }
};

// cpp-httplib compresses "application/json" and text/* bodies for clients that accept it
// (brotli at its slowest setting: seconds for a few MB); a charset parameter keeps JSON as is.
constexpr const char* kJson = "application/json; charset=utf-8";

namespace {

void Error(httplib::Response& res, int code, const std::string& msg) {
  res.status = code;
  res.set_content(json{{"error", msg}}.dump(), kJson);
}

}  // namespace

ReportServer::ReportServer(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
ReportServer::~ReportServer() { Stop(); }

Result<std::unique_ptr<ReportServer>> ReportServer::Start(const ServeOptions& opt) {
  auto rep = std::make_unique<Rep>();
  rep->opt = opt;
  auto store = OpenRunStore(opt.run_dir);
  if (!store.ok()) return store.status();
  rep->store = std::move(*store);
  if (auto v = rep->Refresh(); !v.ok()) return v.status();
  rep->page = RenderReportHtml({{"runs", json::array()}}, ReadD3(), /*live=*/true);
  Rep* r = rep.get();
  auto guarded = [r](auto fn) {
    return [r, fn](const httplib::Request& req, httplib::Response& res) {
      std::lock_guard<std::mutex> lock(r->mu);
      if (auto v = r->Refresh(); !v.ok()) return Error(res, 503, v.status().message());
      fn(req, res);
    };
  };
  r->http.Get("/", guarded([r](const httplib::Request&, httplib::Response& res) {
    res.set_content(r->page, "text/html; charset=utf-8");
  }));
  r->http.Get("/data.json", guarded([r](const httplib::Request&, httplib::Response& res) {
    res.set_content(r->data_text, kJson);
  }));
  r->http.Get("/api/state", guarded([r](const httplib::Request&, httplib::Response& res) {
    res.set_content(json{{"version", r->version}}.dump(), kJson);
  }));
  r->http.Get(R"(/api/candidate/([^/]*))", guarded([r](const httplib::Request& req, httplib::Response& res) {
    const std::string word = req.matches[1];
    char* end = nullptr;
    const long long id = std::strtoll(word.c_str(), &end, 10);
    if (word.empty() || word.size() > 18 || *end != '\0' || id <= 0)
      return Error(res, 400, "candidate id must be a positive integer, got '" + word + "'");
    if (Status s = r->RefreshRows(); !s.ok()) return Error(res, 503, s.message());
    for (const auto& row : r->rows)
      if (row["id"].get<int64_t>() == id) return res.set_content(row.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
    Error(res, 404, "no candidate " + word + " in " + r->opt.run_dir);
  }));
  r->http.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (res.body.empty()) res.set_content(json{{"error", "HTTP " + std::to_string(res.status) + " for " + HtmlEscape(req.path)}}.dump(), kJson);
  });
  r->http.set_payload_max_length(1 << 16);
  if (opt.port == 0) {
    r->port = r->http.bind_to_any_port(opt.bind);
    if (r->port < 0) return Status::Unavailable("cannot bind " + opt.bind);
  } else {
    if (!r->http.bind_to_port(opt.bind, opt.port))
      return Status::Unavailable("cannot bind " + opt.bind + ":" + std::to_string(opt.port) + " (in use? try --port)");
    r->port = opt.port;
  }
  r->thread = std::thread([r] { r->http.listen_after_bind(); });
  return std::unique_ptr<ReportServer>(new ReportServer(std::move(rep)));
}

int ReportServer::port() const { return rep_->port; }

void ReportServer::Wait() {
  std::lock_guard<std::mutex> lock(rep_->join_mu);
  if (rep_->thread.joinable()) rep_->thread.join();
}

void ReportServer::Stop() {
  if (!rep_) return;
  rep_->http.stop();  // first, so that a Wait() holding join_mu returns
  std::lock_guard<std::mutex> lock(rep_->join_mu);
  if (rep_->thread.joinable()) rep_->thread.join();
}

}  // namespace cuco
