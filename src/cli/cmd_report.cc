// cuco report <run-dir>... [-o report.html] [--bench bench.json]: one self-contained HTML file
// (report_page.h).
#include <filesystem>
#include <iostream>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "report/d3_library.h"
#include "report/report_page.h"
#include "util/files.h"

namespace cuco {

namespace {

struct ReportArgs {
  std::vector<std::string> runs;
  std::string out, bench;
};

int Report(const ReportArgs& a) {
  std::vector<RunData> runs;
  for (const auto& dir : a.runs) {
    auto run = LoadRun(dir);
    if (!run.ok()) return ViewFail("report", run.status());
    runs.push_back(std::move(*run));
  }
  const std::string out = a.out.empty() ? (std::filesystem::path(a.runs[0]) / "report.html").string() : a.out;
  const Result<std::string> d3 = ReadD3();
  if (!d3.ok()) std::cerr << "cuco report: " << d3.status().message() << ": the page will have tables but no tree or charts\n";
  nlohmann::json data = ReportData(runs, ReportOptions{});
  if (!a.bench.empty()) {
    auto lines = BenchLines(a.bench);
    if (!lines.ok()) return ViewFail("report", lines.status());
    data["lines"] = *lines;
  }
  const std::string html = RenderReportHtml(data, d3, /*live=*/false);
  if (Status s = WriteFileAtomic(out, html); !s.ok())
    return ViewFail("report", Status::InvalidArgument(out + ": cannot write: " + s.message()));
  size_t n = 0;
  for (const auto& r : runs) n += r.candidates.size();
  std::cout << "report of " << runs.size() << " run(s), " << n << " candidates: " << out << " (" << html.size() / 1024
            << " KiB, opens offline)\n";
  return kExitOk;
}

}  // namespace

void AddReportCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ReportArgs>();
  auto* cmd = app.add_subcommand("report", "One self-contained HTML file of one or more runs: lineage tree, best-so-far, "
                                           "knobs, failures, every candidate (docs/report.md)");
  cmd->add_option("runs", a->runs, "Run directories (several: curves overlaid, bests compared)")->required();
  cmd->add_option("-o,--output", a->out, "The HTML file (default <first run>/report.html)");
  cmd->add_option("--bench", a->bench, "A `cuco bench` JSON (<bench run>/bench.json): its best variant and overlap "
                                       "bound drawn as lines on the best-so-far chart");
  cmd->callback([a, exit_code] { *exit_code = Report(*a); });
}

}  // namespace cuco
