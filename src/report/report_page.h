// The report page: the data of one or more runs (RunModelData), and the single self-contained
// HTML file built from it (RenderReportHtml): D3 inlined from the installed package, the page's
// own script and style (assets/report.js, assets/report.css, compiled in), and the data as a JSON
// script element. Every untrusted text reaches the page through ScriptJson and is put into the
// document by the script as text, never as markup (html_text.h). Without D3 the page still opens
// and says, at the top, what is missing and how to install it.
// `cuco serve` serves the same page with `live` set: it then polls /api/state and reloads
// /data.json (no page reload) when the store changed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/run_data.h"
#include "util/status.h"

namespace cuco {

struct ReportOptions {
  // Whole candidate code in the page (the code view, frozen code greyed) when the run has at
  // most this many candidates; diffs against parent and seed are always there.
  size_t code_up_to = 2000;
  size_t log_cap = 6000;        // the last bytes of each build/run log
  size_t log_cap_large = 1000;  // the same in runs of more than code_up_to candidates
};

// One run: meta, lineage, best-so-far, knobs, failures, candidates (details: the record's metrics
// less its per-iteration rank arrays, summarised per rank as "ranks").
nlohmann::json RunModelData(const RunData& run, const ReportOptions& opt);
// Several runs: {"runs": [...], "generated_ms": ...}.
nlohmann::json ReportData(const std::vector<RunData>& runs, const ReportOptions& opt);

// Reference lines for the best-so-far chart from a `cuco bench` JSON (schema cuco-bench/2 or /1):
// the fastest verified variant ("best variant <name>") and the overlap bounds, when known (/2:
// every implementation's fastest parts, and cuco's own parts; /1: cuco's own parts). Errors name
// the file.
Result<nlohmann::json> BenchLines(const std::string& bench_json_path);

// The page. d3 is the library text, or the error saying it is missing.
std::string RenderReportHtml(const nlohmann::json& data, const Result<std::string>& d3, bool live);

// A fingerprint of a store's content that changes when a candidate is added or finished:
// "<max id>:<candidates pending>" (serve's /api/state computes the same from the store).
std::string RunVersion(const RunData& run);
std::string RunVersion(int64_t max_id, int64_t pending);

}  // namespace cuco
