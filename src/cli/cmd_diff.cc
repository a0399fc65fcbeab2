// cuco diff <run> <id> [<other-id>|seed] [--json]: the code change from id to other-id (default: id's parent
// to id).
#include <iostream>

#include "cli/commands.h"
#include "cli/view_common.h"
#include "edit/line_diff.h"

namespace cuco {

namespace {

struct DiffArgs {
  std::string run, a, b;
  bool json = false;
};

int Diff(const DiffArgs& args) {
  auto run = LoadRun(args.run);
  if (!run.ok()) return ViewFail("diff", run.status());
  auto a = ResolveCandidateId(*run, args.a);
  if (!a.ok()) return ViewFail("diff", a.status());
  const CandidateRecord* to = run->Find(*a);
  const CandidateRecord* from = nullptr;
  if (args.b.empty()) {
    from = to->parent_id ? run->Find(to->parent_id) : nullptr;
    if (!from) return ViewFail("diff", Status::InvalidArgument("candidate " + args.a + " has no parent: name another (or seed)"));
  } else {
    auto b = ResolveCandidateId(*run, args.b);
    if (!b.ok()) return ViewFail("diff", b.status());
    from = to;
    to = run->Find(*b);
  }
  const std::string diff = UnifiedDiff(from->code, to->code, "#" + std::to_string(from->id), "#" + std::to_string(to->id));
  if (args.json)
    std::cout << nlohmann::json{{"from", from->id}, {"to", to->id}, {"diff", diff}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    std::cout << diff;
  return kExitOk;
}

}  // namespace

void AddDiffCommand(CLI::App& app, int* exit_code) {
  auto a = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand("diff", "Unified diff of two candidates' code: id -> other-id, or id's parent -> id when other-id is left out");
  cmd->add_option("run", a->run, "Run directory (holds cuco.db)")->required();
  cmd->add_option("id", a->a, "Candidate id (or best, seed)")->required();
  cmd->add_option("other-id", a->b, "Candidate id, best or seed");
  cmd->add_flag("--json", a->json, "Print {from, to, diff} as JSON");
  cmd->callback([a, exit_code] { *exit_code = Diff(*a); });
}

}  // namespace cuco
