#include "report/report_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <thread>

#include "report/report_test_run.h"
#include "store/candidate_store.h"

namespace cuco {
namespace {

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServeOptions opt;
    opt.run_dir = run_.dir();
    opt.port = 0;
    auto s = ReportServer::Start(opt);
    ASSERT_TRUE(s.ok()) << s.status().message();
    server_ = std::move(*s);
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
  }
  int Status(const std::string& path, const httplib::Headers& h = {}) {
    auto r = client_->Get(path.c_str(), h);
    return r ? r->status : -1;
  }
  report_test::TestRun run_;
  std::unique_ptr<ReportServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(ServerTest, ServesPageDataAndCandidates) {
  auto page = client_->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("window.CUCO_LIVE = true"), std::string::npos);
  auto c = client_->Get("/api/candidate/6");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, 200);
  EXPECT_EQ(nlohmann::json::parse(c->body)["extra_parent_ids"], nlohmann::json::array({2}));
  EXPECT_EQ(Status("/data.json"), 200);
}

TEST_F(ServerTest, BadRequestsGetClear4xx) {
  EXPECT_EQ(Status("/api/candidate/999"), 404);
  EXPECT_EQ(Status("/api/candidate/abc"), 400);
  EXPECT_EQ(Status("/api/candidate/-1"), 400);
  EXPECT_EQ(Status("/api/candidate/99999999999999999999999"), 400);
  EXPECT_EQ(Status("/api/candidate/"), 400);
  EXPECT_EQ(Status("/../../etc/passwd"), 404);
  EXPECT_EQ(Status("/%2e%2e/%2e%2e/etc/passwd"), 404);
  EXPECT_EQ(Status("/cuco.db"), 404);
  auto r = client_->Get("/api/candidate/zz");
  ASSERT_TRUE(r);
  EXPECT_NE(r->body.find("positive integer"), std::string::npos);
  EXPECT_EQ(Status("/data.json", {{"Range", "bytes=99999999999-999999999999"}}), 416);
  EXPECT_EQ(Status("/data.json", {{"Range", "bytes=0-1,2-3,4-5,6-7,8-9,10-11,12-13,14-15,16-17,18-19,20-21,"
                                           "22-23,24-25,26-27,28-29,30-31,32-33,34-35,36-37,38-39,40-41"}}) / 100, 2);
  auto post = client_->Post("/api/state", "x", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_GE(post->status, 400);
  EXPECT_LT(post->status, 500);
  EXPECT_EQ(Status("/api/state"), 200);  // still serving
}

TEST_F(ServerTest, StateChangesWhenACandidateIsAdded) {
  auto before = client_->Get("/api/state");
  ASSERT_TRUE(before);
  {
    auto store = CandidateStore::Open(run_.dir() + "/cuco.db");
    ASSERT_TRUE(store.ok());
    CandidateRecord r;
    r.code = "new";
    r.status = "ok";
    r.time_ms = 1;
    ASSERT_TRUE((*store)->Insert(r).ok());
  }
  auto after = client_->Get("/api/state");
  ASSERT_TRUE(after);
  EXPECT_NE(before->body, after->body);
  EXPECT_EQ(Status("/api/candidate/9"), 200);
}

TEST_F(ServerTest, StopEndsAWaitOnAnotherThread) {
  std::thread waiter([this] { server_->Wait(); });
  EXPECT_EQ(Status("/api/state"), 200);
  server_->Stop();
  waiter.join();  // returns: Wait saw the stop
  EXPECT_EQ(Status("/api/state"), -1);  // no longer serving
}

TEST(Server, MissingRunDirIsAnError) {
  ServeOptions opt;
  opt.run_dir = "/nonexistent/run";
  auto s = ReportServer::Start(opt);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("not a run directory"), std::string::npos);
}

}  // namespace
}  // namespace cuco
