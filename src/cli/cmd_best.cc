// cuco best <run> [-o best.cc] [--json]: the fastest verified candidate's code, ready to use.
#include <iostream>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "util/files.h"

namespace cuco {

namespace {

struct BestArgs {
  std::string run, out;
  bool json = false;
};

int Best(const BestArgs& a) {
  auto run = LoadRun(a.run);
  if (!run.ok()) return ViewFail("best", run.status());
  const CandidateRecord* best = run->Best();
  if (!best) return ViewFail("best", Status::NotFound(a.run + ": no verified candidate (status ok with a time) yet"));
  if (!a.out.empty()) {
    if (Status s = WriteFileAtomic(a.out, best->code); !s.ok())
      return ViewFail("best", Status::InvalidArgument(a.out + ": cannot write: " + s.message()));
  }
  if (a.json) {
    nlohmann::json j = {{"id", best->id}, {"time_ms", best->time_ms}, {"speedup", best->speedup}, {"file", a.out}};
    if (a.out.empty()) j["code"] = best->code;
    std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (a.out.empty()) {
    std::cout << best->code;
  } else {
    std::cerr << "cuco best: candidate #" << best->id << " (" << best->time_ms << " ms, " << best->speedup
              << "x over the seed) written to " << a.out << "\n";
  }
  return kExitOk;
}

}  // namespace

void AddBestCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<BestArgs>();
  auto* cmd = app.add_subcommand("best", "The fastest verified candidate's code (stdout, or a file with -o)");
  cmd->add_option("run", a->run, "Run directory (holds cuco.db)")->required();
  cmd->add_option("-o,--output", a->out, "Write the code to this file");
  cmd->add_flag("--json", a->json, "Print id, time, speed-up (and the code without -o) as JSON");
  cmd->callback([a, exit_code] { *exit_code = Best(*a); });
}

}  // namespace cuco
