// `cuco serve`: the report page of one run, live, over HTTP (cpp-httplib) while `cuco evolve`
// writes the store. Routes (GET only):
//   /                  the page (report_page.h) in live mode, without data: it fetches /data.json,
//                      then polls /api/state and fetches /data.json again (no page reload)
//                      when the store changed
//   /data.json         the page's data (ReportData of the run)
//   /api/state         {"version": "<max id>:<pending>"}
//   /api/candidate/ID  one candidate's record (export row); 400 when ID is not a positive
//                      integer, 404 when there is no such candidate
// Anything else is 404; a Range the content cannot satisfy is 416. The store is read through
// one reader connection (SQLite WAL: the writer is never blocked); the data is rebuilt only when
// the version changed, so many clients cost one rebuild per change.
// Binds 127.0.0.1 unless told otherwise (ServeOptions.bind).
#pragma once

#include <memory>
#include <string>

#include "report/report_page.h"
#include "util/status.h"

namespace cuco {

struct ServeOptions {
  std::string run_dir;
  std::string bind = "127.0.0.1";
  int port = 8765;  // 0: any free port (see ReportServer::port)
};

class ReportServer {
 public:
  // Checks the run dir, binds and starts serving on a thread of its own. Unavailable when the
  // address cannot be bound (naming it).
  static Result<std::unique_ptr<ReportServer>> Start(const ServeOptions& opt);
  ~ReportServer();  // stops
  ReportServer(const ReportServer&) = delete;
  ReportServer& operator=(const ReportServer&) = delete;

  int port() const;
  // Blocks until Stop() is called (from another thread).
  void Wait();
  // Stops serving and joins the server thread; safe beside a Wait() on another thread.
  void Stop();

 private:
  struct Rep;
  explicit ReportServer(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace cuco
