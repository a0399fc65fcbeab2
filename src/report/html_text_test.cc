#include "report/html_text.h"

#include <gtest/gtest.h>

#include "report/report_page.h"
#include "report/report_test_run.h"
#include "util/files.h"

namespace cuco {
namespace {

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

TEST(HtmlText, EscapesMarkup) {
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

TEST(HtmlText, ScriptJsonCannotCloseTheScriptElement) {
  const nlohmann::json j = {{"code", "</script><script>alert(1)</script>"}, {"ls", "\xe2\x80\xa8"}, {"bad", "\xff"}};
  const std::string s = ScriptJson(j);
  EXPECT_EQ(s.find('<'), std::string::npos);
  EXPECT_EQ(s.find('>'), std::string::npos);
  EXPECT_NE(s.find("\\u003c/script\\u003e"), std::string::npos);
  EXPECT_NE(s.find("\\u2028"), std::string::npos);
  const auto back = nlohmann::json::parse(s);  // still valid JSON with the same text
  EXPECT_EQ(back["code"], "</script><script>alert(1)</script>");
}

TEST(HtmlText, ScriptTextBreaksUpClosingTags) {
  EXPECT_EQ(ScriptText("a='</script>';b='</SCRIPT'"), "a='<\\/script>';b='<\\/SCRIPT'");
  EXPECT_EQ(ScriptText("x</div>"), "x</div>");
}

TEST(ReportPage, HostileCodeAndLogsStayData) {
  report_test::TestRun t;
  auto run = LoadRun(t.dir());
  ASSERT_TRUE(run.ok());
  const auto data = ReportData({*run}, ReportOptions{});
  const std::string fake_d3 = "window.d3 = {}; // '</script><b>'";
  const std::string html = RenderReportHtml(data, Result<std::string>(fake_d3), false);
  // The page's own <script> elements only: the D3 one, the data, the live flag and the page script.
  EXPECT_EQ(Count(html, "<script"), 4u);
  EXPECT_EQ(Count(html, "</script>"), 4u);
  EXPECT_EQ(html.find("<img"), std::string::npos);  // the markup is there only as escaped data
  EXPECT_NE(html.find("\\u003cimg src=x onerror=alert(2)\\u003e"), std::string::npos);
  EXPECT_NE(html.find("\\u003c/script\\u003e\\u003cscript\\u003ewindow.pwned=1"), std::string::npos);
}

TEST(ReportPage, TheBestReTimedAgainstTheSeedIsInTheMeta) {
  report_test::TestRun t;
  auto run = LoadRun(t.dir());
  ASSERT_TRUE(run.ok());
  const auto meta = ReportData({*run}, ReportOptions{})["runs"][0]["meta"];
  ASSERT_TRUE(meta.contains("gain_check")) << meta.dump(2);
  EXPECT_EQ(meta["gain_check"]["best_id"], 4);
  EXPECT_NE(meta["gain_check"]["line"].get<std::string>().find("NOT a confirmed gain"), std::string::npos);
}

TEST(ReportPage, BenchLinesTakeTheBestVariantAndTheBound) {
  report_test::TestRun t;
  const std::string path = t.dir() + "/bench.json";
  nlohmann::json doc = {{"schema", "cuco-bench/1"},
                        {"table", {{"rows", {{{"name", "a"}, {"kind", "variant"}, {"status", "ok"}, {"median_ms", 2.0}},
                                             {{"name", "b"}, {"kind", "variant"}, {"status", "ok"}, {"median_ms", 1.5}},
                                             {{"name", "c"}, {"kind", "variant"}, {"status", "wrong_result"}, {"median_ms", 0.1}},
                                             {{"name", "seed"}, {"kind", "seed"}, {"status", "ok"}, {"median_ms", 3.0}}}},
                                   {"bound", {{"known", true}, {"ms", 1.0}}}}}};
  ASSERT_TRUE(WriteFileAtomic(path, doc.dump()).ok());
  auto lines = BenchLines(path);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(*lines, nlohmann::json::parse(
                        R"j([{"label":"best variant b","ms":1.5},{"label":"overlap bound (cuco's own parts)","ms":1.0}])j"));
  // cuco-bench/2: the honest bound (every implementation's fastest parts) and cuco's own.
  doc["schema"] = "cuco-bench/2";
  doc["table"]["bound"]["ms"] = 0.8;
  doc["table"]["own_bound"] = {{"known", true}, {"ms", 1.0}};
  ASSERT_TRUE(WriteFileAtomic(path, doc.dump()).ok());
  lines = BenchLines(path);
  ASSERT_TRUE(lines.ok()) << lines.status().message();
  EXPECT_EQ(*lines, nlohmann::json::parse(R"j([{"label":"best variant b","ms":1.5},
    {"label":"overlap bound (every implementation's fastest parts)","ms":0.8},
    {"label":"overlap bound (cuco's own parts)","ms":1.0}])j"));
  ASSERT_TRUE(WriteFileAtomic(path, "{}").ok());
  EXPECT_NE(BenchLines(path).status().message().find("bench.json: not a `cuco bench` JSON"), std::string::npos);
}

TEST(ReportPage, MissingD3IsSaidOnThePage) {
  report_test::TestRun t;
  auto run = LoadRun(t.dir());
  ASSERT_TRUE(run.ok());
  const std::string html =
      RenderReportHtml(ReportData({*run}, ReportOptions{}), Result<std::string>(Status::NotFound("D3 <missing>: install node-d3")), false);
  EXPECT_NE(html.find("id=\"missing\""), std::string::npos);
  EXPECT_NE(html.find("D3 &lt;missing&gt;: install node-d3"), std::string::npos);
  EXPECT_EQ(Count(html, "<script"), 3u);
}

}  // namespace
}  // namespace cuco
