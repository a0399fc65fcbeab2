// cuco transform <workload>: the fast path. Makes generation 0 from the workload's seed (rule-based,
// offline, by default; --llm for the LLM-driven stages), evaluates it through the cascade with the
// seed timed beside it on GPUs, stores every attempt, and names it in workload.toml once verified.
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "evaluate/gpu_session.h"
#include "store/run_dir.h"
#include "transform/llm_generation0.h"
#include "toolchain/toolchain.h"
#include "transform/generation0.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

struct TransformArgs {
  std::string workload;
  std::string out;
  std::string run_dir;
  std::string config;   // --llm: the run config naming the LLM endpoint(s)
  bool llm = false;
  bool set_generation0 = false;
  int mailbox_mib = 256;
  std::vector<int> gpus;
  std::string cache_dir;
  bool json = false;
  bool unsafe_no_sandbox = false;
};

nlohmann::json ReportJson(const Generation0Report& r) {
  nlohmann::json j;
  j["schema"] = "cuco-transform/1";
  j["file"] = r.file.string();
  j["verified"] = r.verified;
  j["accepted"] = r.accepted;
  j["note"] = r.note;
  j["store"] = r.store_path.string();
  j["transform"] = r.transform_summary;
  j["attempts"] = nlohmann::json::array();
  for (const Generation0Attempt& a : r.attempts) {
    nlohmann::json x = a.record.ToJson();
    x["label"] = a.label;
    x["store_id"] = a.store_id;
    j["attempts"].push_back(x);
  }
  if (r.seed) {
    j["seed"] = r.seed->record.ToJson();
    j["seed"]["store_id"] = r.seed->store_id;
  }
  return j;
}

int Run(const TransformArgs& a) {
  auto wl = LoadWorkload(a.workload);
  if (!wl.ok()) {
    std::cerr << "cuco transform: " << wl.status().message() << "\n";
    return kExitUsage;
  }
  Toolchain tc = DetectToolchain();
  if (wl->language == "cuda" && tc.nvcc.empty()) {
    std::cerr << "cuco transform: nvcc was not found, so generation 0 cannot even be compiled. Run `cuco doctor`.\n";
    return kExitEnvironment;
  }
  if (Status s = PrepareRunDir(a.run_dir.empty() ? "cuco-runs" : a.run_dir); !s.ok()) {
    std::cerr << "cuco transform: " << s.message() << "\n";
    return kExitUsage;
  }
  Generation0Options options;
  options.out_file = a.out;
  options.run_dir = a.run_dir;
  options.set_generation0 = a.set_generation0;
  options.cascade.gpus = a.gpus;
  options.cascade.unsafe_no_sandbox = a.unsafe_no_sandbox;
  if (!a.cache_dir.empty()) options.cascade.cache_dir = a.cache_dir;
  if (wl->language == "cuda" && !tc.gpus.empty())  // generation 0 is timed: how, in one line up front
    std::cerr << "cuco transform: " << PlanTiming(tc, true, false).Line() << "\n";
  Result<Generation0Report> report = Status::Internal("no transform ran");
  if (a.llm) {
    report = MakeLlmGeneration0(*wl, tc, options, a.config);
  } else {
    RuleTransformOptions rule;
    rule.mailbox_mib = a.mailbox_mib;
    report = MakeRuleGeneration0(*wl, tc, options, rule);
  }
  if (!report.ok()) {
    std::cerr << "cuco transform: " << report.status().message() << "\n";
    return ExitCodeFor(report.status());
  }
  if (a.json) std::cout << ReportJson(*report).dump(2) << "\n";
  else std::cout << FormatGeneration0(*report);
  if (report->attempts.empty()) return kExitCandidateFailed;
  const EvalStatus last = report->attempts.back().record.status;
  return last == EvalStatus::kOk || last == EvalStatus::kSkipped ? kExitOk : kExitCandidateFailed;
}

}  // namespace

void AddTransformCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "transform", "Make generation 0 from the workload's host-driven seed: every host NCCL call inside the EVOLVE "
                   "blocks becomes device-initiated (rule-based, offline; --llm: the LLM-driven stages), evaluated "
                   "through the cascade, stored, and named in workload.toml once it verifies on GPUs");
  auto a = std::make_shared<TransformArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml)")->required();
  cmd->add_option("--out", a->out, "Where generation 0 goes (default: <workload>/gen0_transformed.cu)");
  cmd->add_option("--run-dir", a->run_dir, "Store and logs (default: cuco-runs/transform-<workload>)");
  cmd->add_flag("--llm", a->llm, "Use the LLM-driven stages (A: device infrastructure, B: replace collectives, "
                                 "C: EVOLVE blocks) with a judge, instead of the rules");
  cmd->add_option("--config", a->config, "--llm: run config whose [llm] section names the model(s) (docs/llm.md)");
  cmd->add_flag("--set-generation0", a->set_generation0,
                "Name the verified result in workload.toml even when the workload already declares a generation0");
  cmd->add_option("--mailbox-mib", a->mailbox_mib, "send/recv mailbox per peer, MiB (rule-based)")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  cmd->add_flag("--json", a->json, "Print the report as JSON");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->callback([a, exit_code] { *exit_code = Run(*a); });
}

}  // namespace cuco
