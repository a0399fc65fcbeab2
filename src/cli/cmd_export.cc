// cuco export <run> --csv|--json [-o file]: one row per candidate, every field (docs/report.md).
#include <iostream>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "report/export_rows.h"
#include "util/files.h"

namespace cuco {

namespace {

struct ExportArgs {
  std::string run, out;
  bool csv = false, json = false;
};

int Export(const ExportArgs& a) {
  if (a.csv == a.json) return ViewFail("export", Status::InvalidArgument("give exactly one of --csv and --json"));
  auto run = LoadRun(a.run);
  if (!run.ok()) return ViewFail("export", run.status());
  const std::string text = a.csv ? ExportCsv(*run)
                                 : ExportJson(*run).dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (a.out.empty()) {
    std::cout << text;
    return kExitOk;
  }
  if (Status s = WriteFileAtomic(a.out, text); !s.ok())
    return ViewFail("export", Status::InvalidArgument(a.out + ": cannot write: " + s.message()));
  return kExitOk;
}

}  // namespace

void AddExportCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ExportArgs>();
  auto* cmd = app.add_subcommand("export", "Every candidate of a run, one row each, every field (CSV or JSON)");
  cmd->add_option("run", a->run, "Run directory (holds cuco.db)")->required();
  cmd->add_flag("--csv", a->csv, "CSV (RFC 4180), header row first");
  cmd->add_flag("--json", a->json, "A JSON array of objects");
  cmd->add_option("-o,--output", a->out, "Write to this file instead of stdout");
  cmd->callback([a, exit_code] { *exit_code = Export(*a); });
}

}  // namespace cuco
