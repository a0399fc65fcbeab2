// cuco ls <runs-dir> [--json]: the runs under a folder (and the folder itself, when it is a run),
// each with its workload, candidates, verdict counts and best result; a run that cannot be read is a
// row saying why ({"run", "error"} in JSON), and the others are listed all the same (exit 0).
#include <filesystem>
#include <iostream>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/view_common.h"

namespace cuco {

namespace {

namespace fs = std::filesystem;

struct LsArgs {
  std::string dir;
  bool json = false;
};

nlohmann::json RunRow(const RunData& run) {
  int64_t ok = 0;
  for (const auto& c : run.candidates) ok += c.status == "ok";
  const CandidateRecord* best = run.Best();
  const CandidateRecord* seed = run.Seed();
  return {{"run", run.dir},
          {"workload", fs::path(run.workload_dir).filename().string()},
          {"candidates", run.candidates.size()},
          {"ok", ok},
          {"seed_ms", seed && seed->time_ms >= 0 ? nlohmann::json(seed->time_ms) : nlohmann::json(nullptr)},
          {"best_id", best ? nlohmann::json(best->id) : nlohmann::json(nullptr)},
          {"best_ms", best ? nlohmann::json(best->time_ms) : nlohmann::json(nullptr)},
          {"best_speedup", best && best->speedup > 0 ? nlohmann::json(best->speedup) : nlohmann::json(nullptr)}};
}

int Ls(const LsArgs& a) {
  if (!fs::is_directory(a.dir)) return ViewFail("ls", Status::InvalidArgument(a.dir + ": not a directory"));
  std::vector<std::string> dirs;
  if (fs::exists(fs::path(a.dir) / "cuco.db")) dirs.push_back(a.dir);
  for (const auto& e : fs::directory_iterator(a.dir))
    if (e.is_directory() && fs::exists(e.path() / "cuco.db")) dirs.push_back(e.path().string());
  std::sort(dirs.begin(), dirs.end());
  // A run that cannot be read (a damaged cuco.db) is one row saying why, and a line on stderr; the
  // others are listed all the same.
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& d : dirs) {
    auto run = LoadRun(d, /*summary_only=*/true);
    if (run.ok()) {
      rows.push_back(RunRow(*run));
    } else {
      std::cerr << "cuco ls: " << run.status().message() << "\n";
      rows.push_back({{"run", d}, {"error", run.status().message()}});
    }
  }
  if (a.json) {
    std::cout << rows.dump(2) << "\n";
    return kExitOk;
  }
  if (rows.empty()) std::cout << "no runs under " << a.dir << "\n";
  auto num = [](const nlohmann::json& v, const char* f) { return v.is_null() ? std::string("-") : fmt::format(fmt::runtime(f), v.get<double>()); };
  for (const auto& r : rows) {
    if (r.contains("error")) {
      std::cout << fmt::format("{:<40} unreadable: {}\n", r["run"].get<std::string>(), r["error"].get<std::string>());
      continue;
    }
    std::cout << fmt::format("{:<40} {:<22} {:>5} cand {:>5} ok  seed {:>10}  best {:>6} {:>10} {:>7}\n", r["run"].get<std::string>(),
                             r["workload"].get<std::string>(), r["candidates"].get<int64_t>(), r["ok"].get<int64_t>(),
                             num(r["seed_ms"], "{:.4f} ms"), r["best_id"].is_null() ? "-" : "#" + r["best_id"].dump(),
                             num(r["best_ms"], "{:.4f} ms"), num(r["best_speedup"], "{:.2f}x"));
  }
  return kExitOk;
}

}  // namespace

void AddLsCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<LsArgs>();
  auto* cmd = app.add_subcommand("ls", "The runs in a folder, each with its candidates and best result");
  cmd->add_option("runs-dir", a->dir, "A folder of run directories (or a run directory)")->required();
  cmd->add_flag("--json", a->json, "Print the rows as JSON");
  cmd->callback([a, exit_code] { *exit_code = Ls(*a); });
}

}  // namespace cuco
