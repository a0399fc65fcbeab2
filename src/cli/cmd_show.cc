// cuco show <run> <id|best|seed> [--json]: one candidate's record, knobs, figures and code.
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "report/export_rows.h"
#include "report/run_model.h"

namespace cuco {

namespace {

struct ShowArgs {
  std::string run, id;
  bool json = false, no_code = false;
};

std::string Ms(const nlohmann::json& v) { return v.is_number() ? fmt::format("{:.4f} ms", v.get<double>()) : "-"; }

int Show(const ShowArgs& a) {
  auto run = LoadRun(a.run);
  if (!run.ok()) return ViewFail("show", run.status());
  auto id = ResolveCandidateId(*run, a.id);
  if (!id.ok()) return ViewFail("show", id.status());
  nlohmann::json row;
  for (const auto& r : ExportJson(*run))
    if (r["id"] == *id) row = r;
  if (a.json) {
    std::cout << row.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return kExitOk;
  }
  const auto& m = row["metrics_json"].is_object() ? row["metrics_json"] : nlohmann::json::object();
  std::cout << fmt::format("candidate #{} in {}\n", *id, a.run);
  std::cout << fmt::format("  verdict     {}{}\n", row["status"].get<std::string>(),
                           row["reason"].get<std::string>().empty() ? "" : ": " + row["reason"].get<std::string>());
  std::cout << fmt::format("  time        {}{}\n", Ms(row["time_ms"]),
                           row["speedup"].is_number() ? fmt::format(" ({:.2f}x over the seed)", row["speedup"].get<double>()) : "");
  if (m.contains("timing") && m["timing"].is_object())
    std::cout << fmt::format("  timing      median {}  p10 {}  p90 {}  iters {}\n", Ms(m["timing"].value("median_ms", nlohmann::json())),
                             Ms(m["timing"].value("p10_ms", nlohmann::json())), Ms(m["timing"].value("p90_ms", nlohmann::json())),
                             m["timing"].value("iters", 0));
  if (m.contains("timing") && m["timing"].is_object() && m["timing"].contains("median_interval_ms") &&
      m["timing"]["median_interval_ms"].is_array() && m["timing"]["median_interval_ms"].size() == 2) {
    const auto& t = m["timing"];
    std::cout << fmt::format("  precision   median 95% interval {} - {} (+-{:.1f}%){}\n", Ms(t["median_interval_ms"][0]),
                             Ms(t["median_interval_ms"][1]), 100 * t.value("precision", 0.0),
                             t.value("imprecise", false) ? ": IMPRECISE, a smaller difference is not shown" : "");
  }
  if (m.contains("timing_method") && m["timing_method"].is_string() && !m["timing_method"].get<std::string>().empty()) {
    const auto& why = m.contains("gpu_session") && m["gpu_session"].is_object() ? m["gpu_session"].value("why", std::string()) : "";
    std::cout << fmt::format("  method      {}{}\n", m["timing_method"].get<std::string>(), why.empty() ? "" : " (" + why + ")");
  }
  // A stage's error figures only where it checked something: a candidate that never ran (a
  // compile error, a rejection) has zeros there, which would read as a perfect pass.
  for (const char* stage : {"verify", "bench"})
    if (m.contains(stage) && m[stage].is_object() && m[stage].value("checks", 0) > 0)
      std::cout << fmt::format("  {:<11} rel L2 {}  max abs {}  over {} checks\n", stage,
                               m[stage].value("rel_l2", nlohmann::json()).dump(), m[stage].value("max_abs", nlohmann::json()).dump(),
                               m[stage].value("checks", 0));
  std::string extra;
  for (const auto& p : row["extra_parent_ids"]) extra += " #" + p.dump();
  std::cout << fmt::format("  parent      {}{}\n", row["parent_id"].get<int64_t>() ? "#" + row["parent_id"].dump() : "-",
                           extra.empty() ? "" : " (crossover with" + extra + ")");
  std::cout << fmt::format("  island      {}  generation {}  mutation {}  proposer {}\n", row["island"].dump(),
                           row["generation"].dump(), row["mutation_kind"].get<std::string>(), row["proposer"].get<std::string>());
  const CandidateRecord* c = run->Find(*id);
  for (const auto& [k, v] : CandidateKnobs(*c)) std::cout << fmt::format("  knob        {} = {}\n", k, v);
  if (!c->feedback.empty()) std::cout << "  feedback    " << c->feedback << "\n";
  if (!a.no_code) std::cout << "\n" << c->code << (c->code.empty() || c->code.back() == '\n' ? "" : "\n");
  return kExitOk;
}

}  // namespace

void AddShowCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<ShowArgs>();
  auto* cmd = app.add_subcommand("show", "One candidate of a run: verdict, reason, timing, error figures, parents, knobs, code");
  cmd->add_option("run", a->run, "Run directory (holds cuco.db)")->required();
  cmd->add_option("id", a->id, "Candidate id, best or seed")->required();
  cmd->add_flag("--json", a->json, "Print the candidate's export row (every field) as JSON");
  cmd->add_flag("--no-code", a->no_code, "Leave the code out");
  cmd->callback([a, exit_code] { *exit_code = Show(*a); });
}

}  // namespace cuco
