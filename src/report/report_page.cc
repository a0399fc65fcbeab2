#include "report/report_page.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "bench/bench_json.h"
#include "edit/line_diff.h"
#include "report/html_text.h"
#include "report/run_model.h"
#include "util/files.h"
#include "util/text.h"

namespace cuco {

using json = nlohmann::json;

extern const char* const kReportJs;   // assets/report.js (report_assets.cc, generated)
extern const char* const kReportCss;  // assets/report.css

namespace {

json Parse(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  return j.is_discarded() ? json(nullptr) : j;
}

std::string Tail(const std::string& s, size_t cap) {
  if (s.size() <= cap) return s;
  return "[... " + std::to_string(s.size() - cap) + " bytes before]\n" + s.substr(s.size() - cap);
}

// Per rank: its timing summary, its timed iterations (overhead subtracted) and its worst check;
// the rest of the per-iteration arrays (tens of KB a candidate) stay in the store
// (`cuco show --json`).
// The record, less the per-iteration arrays the page never shows (dropped while parsing: most of
// a record's bytes).
json ParseMetrics(const std::string& text) {
  static const std::set<std::string> kBulky = {"raw_times_ms",   "null_before_ms", "null_after_ms",
                                               "scan_nonfinite", "scan_poison_left", "input_seeds",  "late_writes",
                                               "settings",       "launch"};
  json j = json::parse(
      text,
      [](int depth, json::parse_event_t event, json& parsed) {
        return !(depth > 2 && event == json::parse_event_t::key && kBulky.count(parsed.get<std::string>()));
      },
      false);
  return j.is_discarded() ? json(nullptr) : j;
}

json RankSummaries(json& metrics) {
  json out = json::array();
  if (!metrics.is_object() || !metrics.contains("rank_metrics") || !metrics["rank_metrics"].is_array()) return out;
  for (const auto& r : metrics["rank_metrics"]) {
    if (!r.is_object()) continue;
    json s = {{"rank", r.value("rank", json())}, {"checks", 0}, {"rel_l2", nullptr}, {"max_abs", nullptr}};
    if (r.contains("timing") && r["timing"].is_object())
      for (const char* k : {"median_ms", "p10_ms", "p90_ms", "min_ms", "max_ms", "iters", "times_ms"})
        s[k] = r["timing"].value(k, json());
    if (r.contains("checks") && r["checks"].is_array())
      for (const auto& ch : r["checks"]) {
        s["checks"] = s["checks"].get<int>() + 1;
        for (const char* k : {"rel_l2", "max_abs"})
          if (ch.contains(k) && ch[k].is_number() && (s[k].is_null() || ch[k].get<double>() > s[k].get<double>())) s[k] = ch[k];
      }
    out.push_back(s);
  }
  metrics.erase("rank_metrics");
  return out;
}

json Detail(const CandidateRecord& c, const CandidateRecord* seed, const ReportOptions& opt, bool with_code) {
  json metrics = ParseMetrics(c.metrics_json);
  json ranks = RankSummaries(metrics);
  json d = {{"id", c.id},
            {"status", c.status},
            {"reason", ReasonOf(metrics, c.feedback)},
            {"time_ms", c.time_ms >= 0 ? json(c.time_ms) : json(nullptr)},
            {"speedup", c.speedup > 0 ? json(c.speedup) : json(nullptr)},
            {"parent", c.parent_id},
            {"extra_parents", c.extra_parent_ids},
            {"island", c.island},
            {"generation", c.generation},
            {"mutation_kind", c.mutation_kind},
            {"proposer", c.proposer},
            {"feedback", c.feedback},
            {"knobs", CandidateKnobs(c)},
            {"logs", Tail(c.logs, with_code ? opt.log_cap : opt.log_cap_large)},
            {"diff_parent", c.diff_from_parent},
            {"created_ms", c.created_ms},
            {"finished_ms", c.finished_ms}};
  d["metrics"] = std::move(metrics);  // moved, not copied: the largest part
  d["ranks"] = std::move(ranks);
  d["diff_seed"] = seed && seed->id != c.id ? UnifiedDiff(seed->code, c.code, "seed #" + std::to_string(seed->id),
                                                          "#" + std::to_string(c.id))
                                            : "";
  if (with_code) d["code"] = c.code;
  return d;
}

json Meta(const RunData& run) {
  json m = {{"dir", run.dir}, {"label", run.label}, {"workload", run.workload_dir}, {"config", run.config_text}};
  if (run.meta.count("search.meta_summary")) m["meta_summary"] = run.meta.at("search.meta_summary");
  if (run.meta.count("search.state")) {
    const json st = Parse(run.meta.at("search.state"));
    if (st.is_object())
      for (const char* k : {"generation", "wall_s", "dollars", "stop_reason"})
        if (st.contains(k)) m[k] = st[k];
  }
  if (run.meta.count("search.provenance")) {
    const json p = Parse(run.meta.at("search.provenance"));
    if (p.is_object()) {
      const json git = p.value("git", json::object()), tc = p.value("toolchain", json::object());
      m["session"] = {{"time", p.value("time", json())}, {"host", p.value("host", json())},
                      {"command", p.value("command", json())},
                      {"cuco_commit", git.is_object() ? git.value("commit", json()) : json()},
                      {"cuco_dirty", git.is_object() ? git.value("dirty", json()) : json()}};
      if (tc.is_object()) {
        json nccl = tc.value("nccl", json::object()), gpus = json::array();
        for (const auto& g : tc.value("gpus", json::array())) gpus.push_back(g.is_object() ? g.value("name", g.dump()) : g.dump());
        m["session"]["driver"] = tc.value("driver_version", json());
        m["session"]["cuda"] = tc.value("cuda_version", json());
        m["session"]["nccl"] = nccl.is_object() ? nccl.value("version", json()) : json();
        m["session"]["gpu_names"] = gpus;
      }
    }
  }
  if (run.meta.count("search.lineages")) {  // search/run_binding.h: what changed between lineages
    const json l = Parse(run.meta.at("search.lineages"));
    if (l.is_array()) m["lineages"] = l;
  }
  if (run.meta.count("search.gain_check")) {  // search/gain_check.h: the best re-timed against the seed
    const json g = Parse(run.meta.at("search.gain_check"));
    if (g.is_object()) m["gain_check"] = g;
  }
  json summaries = json::object();
  for (const auto& [g, text] : run.summaries) summaries[std::to_string(g)] = text;
  m["summaries"] = std::move(summaries);
  if (const CandidateRecord* seed = run.Seed()) {
    const json sm = Parse(seed->metrics_json);
    if (sm.is_object())
      for (const char* k : {"workload", "world_size", "gpus", "device", "sizes", "sandbox", "mode", "timing_method"})
        if (sm.contains(k)) m["seed_" + std::string(k)] = sm[k];
    m["seed_id"] = seed->id;
    m["seed_ms"] = seed->time_ms >= 0 ? json(seed->time_ms) : json(nullptr);
  }
  std::map<std::string, int64_t> counts;
  for (const auto& c : run.candidates) ++counts[c.status];
  m["counts"] = counts;
  m["candidates"] = run.candidates.size();
  if (const CandidateRecord* best = run.Best()) m["best"] = {{"id", best->id}, {"time_ms", best->time_ms}};
  return m;
}

}  // namespace

json RunModelData(const RunData& run, const ReportOptions& opt) {
  const CandidateRecord* seed = run.Seed();
  const bool with_code = run.candidates.size() <= opt.code_up_to;
  // Each candidate's record is parsed on its own (most of a large report's time): on every core.
  std::vector<json> each(run.candidates.size());
  std::atomic<size_t> next{0};
  std::vector<std::thread> pool;
  const size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 8);
  for (size_t t = 0; t < threads && t < each.size(); ++t)
    pool.emplace_back([&] {
      for (size_t i; (i = next++) < each.size();) each[i] = Detail(run.candidates[i], seed, opt, with_code);
    });
  for (auto& t : pool) t.join();
  json details = json::array();
  for (auto& d : each) details.push_back(std::move(d));
  json out = {{"meta", Meta(run)},
              {"version", RunVersion(run)},
              {"lineage", ToJson(BuildLineage(run))},
              {"best_so_far", ToJson(BestSoFar(run))},
              {"knobs", ToJson(AggregateKnobs(run))},
              {"failures", ToJson(GroupFailures(run))}};
  out["candidates"] = std::move(details);
  return out;
}

json ReportData(const std::vector<RunData>& runs, const ReportOptions& opt) {
  json out = {{"runs", json::array()}};
  for (const auto& r : runs) out["runs"].push_back(RunModelData(r, opt));  // an rvalue: moved
  out["generated_ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  return out;
}

std::string RenderReportHtml(const json& data, const Result<std::string>& d3, bool live) {
  std::string title = "cuco report";
  if (data.contains("runs") && !data["runs"].empty()) title += ": " + data["runs"][0]["meta"].value("label", "");
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + HtmlEscape(title) +
                     "</title>\n<style>" + kReportCss + "</style>\n";
  if (d3.ok()) html += "<script>" + ScriptText(*d3) + "</script>\n";
  html += "</head><body>\n";
  if (!d3.ok())
    html += "<div id=\"missing\" class=\"missing\">This report has no charts or tree: " +
            HtmlEscape(d3.status().message()) + ". Tables below are complete.</div>\n";
  html += "<script type=\"application/json\" id=\"cuco-data\">" + ScriptJson(data) + "</script>\n";
  html += std::string("<script>window.CUCO_LIVE = ") + (live ? "true" : "false") + ";</script>\n";
  html += std::string("<script>") + kReportJs + "</script>\n</body></html>\n";
  return html;
}

Result<json> BenchLines(const std::string& path) {
  auto text = ReadFile(path);
  if (!text.ok()) return Status::InvalidArgument(path + ": cannot read: " + text.status().message());
  const json doc = Parse(*text);
  auto known = BenchSchemaOf(doc, path);  // bench/bench_json.h
  if (!known.ok()) return known.status();
  const std::string schema = *known;
  const json& table = doc["table"];
  json lines = json::array(), best;
  for (const auto& r : table.value("rows", json::array()))
    if (r.value("kind", "") == "variant" && r.value("status", "") == "ok" && r.contains("median_ms") &&
        r["median_ms"].is_number() && (best.is_null() || r["median_ms"].get<double>() < best["ms"].get<double>()))
      best = {{"label", "best variant " + r.value("name", std::string("?"))}, {"ms", r["median_ms"]}};
  if (!best.is_null()) lines.push_back(best);
  // /2: `bound` is over every implementation timed, `own_bound` cuco's parts; /1: `bound` was cuco's.
  auto add_bound = [&](const char* key, const std::string& label) {
    const json bound = table.value(key, json::object());
    if (bound.value("known", false) && bound.contains("ms") && bound["ms"].is_number())
      lines.push_back({{"label", label}, {"ms", bound["ms"]}});
  };
  if (schema == kBenchSchemaV1) {
    add_bound("bound", "overlap bound (cuco's own parts)");
  } else {
    add_bound("bound", "overlap bound (every implementation's fastest parts)");
    add_bound("own_bound", "overlap bound (cuco's own parts)");
  }
  return lines;
}

std::string RunVersion(const RunData& run) {
  int64_t pending = 0;
  for (const auto& c : run.candidates) pending += c.status == "pending";
  return RunVersion(run.candidates.empty() ? 0 : run.candidates.back().id, pending);
}

std::string RunVersion(int64_t max_id, int64_t pending) { return std::to_string(max_id) + ":" + std::to_string(pending); }

}  // namespace cuco
