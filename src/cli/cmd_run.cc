// cuco run <workload | program.cu...>: the main job. Given a program, makes its workload first (cuco
// init: run_program.h). Makes generation 0 when the workload has none (`cuco transform`: rule-based,
// or LLM-driven with --llm only: never switched to by itself; a harness made of the program itself
// gets the knobs of cuco/program/codesign.h), then searches from it (`cuco evolve`). --resume continues a
// search.
#include <iostream>
#include <memory>
#include <optional>
#include <variant>

#include "cli/commands.h"
#include "evaluate/gpu_session.h"
#include "cli/program_flags.h"
#include "cli/run_program.h"
#include "cli/workload_options.h"
#include "toolchain/toolchain.h"
#include "transform/generation0.h"
#include "transform/llm_generation0.h"
#include "cli/launcher_option.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

struct RunArgs {
  EvolveArgs evolve;
  bool llm = false;
  std::vector<std::string> targets;  // a workload folder, or a program's files (main's first)
  std::string out;                   // --out: the folder `cuco init` writes a program's workload to
  std::string loop;                  // --loop: the loop of a program the harness serves
  std::shared_ptr<ProgramFlagOptions> flags;
};

// When this machine has GPUs but fewer than the workload's world size: says so in one line (needed,
// found, what is done instead) and returns the world size to run at instead (the largest of the
// workload's world_sizes that fits), or 0 when none fits. -1: no shortfall.
int WorldSizeForThisMachine(const WorkloadConfig& wl, int requested, const std::vector<int>& gpu_ids,
                            const Toolchain& tc) {
  const int needed = requested > 0 ? requested : wl.world_size;
  const int found = gpu_ids.empty() ? static_cast<int>(tc.gpus.size()) : static_cast<int>(gpu_ids.size());
  if (found == 0 || found >= needed) return -1;
  const int fits = LargestWorldSizeWithin(wl, found);
  std::cerr << "cuco run: " << wl.name << " needs " << needed << " GPUs (world_size), this machine has " << found
            << ": "
            << (fits > 0 ? "searching at world size " + std::to_string(fits) + " instead (its world_sizes allow it)"
                         : "nothing runs here (its world_sizes are all larger)")
            << "; on a machine with " << needed << " GPUs: cuco run " << wl.dir.string() << "\n";
  return fits;
}

// The workload `cuco run` works on: a program's (cuco init makes it: 1/3), or the folder named.
// Sets a->evolve.workload; an exit code when there is none.
std::optional<int> ResolveWorkload(RunArgs* a, bool from_program) {
  if (from_program) {
    auto made = WorkloadOfProgram(a->targets, *a->flags, a->out, a->loop);
    if (std::holds_alternative<int>(made)) return std::get<int>(made);
    a->evolve.workload = std::get<std::string>(made);
  } else if (a->targets.size() > 1) {
    std::cerr << "cuco run: " << a->targets.front() << " is a workload folder; give one (more files are for a program: "
              << "cuco run main.cu more.cu -- <your compile command>)\n";
    return kExitUsage;
  } else if (!a->targets.empty()) {
    a->evolve.workload = a->targets.front();
  }
  return std::nullopt;
}

// A harness made of the user's program that the transform cannot rewrite starts from its seed (the
// program as it is): verified and timed; with no knobs the builtin proposer stops there.
void SeedOnly(const WorkloadConfig& wl, RunArgs* a, const std::string& why) {
  std::cout << "cuco run: " << why << "\n";
  if (wl.knobs.empty() && a->evolve.config.empty()) {
    std::cout << "cuco run: " << wl.name << " has no knobs, so the builtin proposer has nothing to vary: the seed is "
              << "verified and timed, and the search stops there. An LLM proposer (--config with [[llm.endpoints]], "
              << "docs/llm.md) edits its EVOLVE blocks.\n";
    if (!a->evolve.budget.max_candidates) a->evolve.budget.max_candidates = 1;
  }
}

// Generation 0 for a workload that declares none (cuco transform, 2/3): an exit code when the run
// ends here (no GPU, or not accepted), nothing when the search goes on.
std::optional<int> MakeGeneration0(const WorkloadConfig& wl, RunArgs* a, bool from_program) {
  const bool program = IsProgramHarness(wl);
  Toolchain tc = DetectToolchain();
  Generation0Options options;
  options.cascade.gpus = a->evolve.gpus;
  options.cascade.unsafe_no_sandbox = a->evolve.unsafe_no_sandbox;
  if (!a->evolve.cache_dir.empty()) options.cascade.cache_dir = a->evolve.cache_dir;
  const bool rules = !a->llm;  // never LLM-driven unless asked: the rules say what they need
  if (wl.language == "cuda" && !tc.gpus.empty())  // generation 0 is timed: how, in one line up front
    std::cerr << "cuco run: " << PlanTiming(tc, true, false).Line() << "\n";
  std::cout << "cuco run: " << (from_program ? "2/3 " : "") << wl.name << " declares no generation0: making it ("
            << (rules ? "rule-based" : "LLM-driven") << " transform"
            << (program && rules ? ": your program's NCCL calls get the knobs of cuco/program/codesign.h" : "") << ")\n";
  auto report = rules ? MakeRuleGeneration0(wl, tc, options) : MakeLlmGeneration0(wl, tc, options, a->evolve.config);
  if (!report.ok() && program && report.status().code() == Status::Code::kInvalidArgument) {
    SeedOnly(wl, a, "generation 0 is your program as it is: " + report.status().message());
    return std::nullopt;
  }
  if (!report.ok()) {
    std::cerr << "cuco run: " << report.status().message() << "\n";
    return report.status().code() == Status::Code::kUnavailable ? kExitEnvironment : kExitUsage;
  }
  std::cout << FormatGeneration0(*report);
  if (report->attempts.empty()) return kExitCandidateFailed;
  if (report->attempts.back().record.status == EvalStatus::kSkipped) {
    std::cout << "cuco run: no GPU here: generation 0 compiled; on a GPU machine `cuco run` verifies it, then "
                 "searches from it.\n";
    return kExitOk;
  }
  if (!report->accepted) {
    std::cerr << "cuco run: generation 0 was not accepted, so there is nothing to search from: " << report->note << "\n";
    return kExitCandidateFailed;
  }
  return std::nullopt;
}

int Run(const RunArgs& args) {
  if (!args.evolve.resume.empty()) return RunEvolve(args.evolve);
  RunArgs a = args;
  const bool from_program = !a.targets.empty() && IsProgramFile(a.targets.front());
  if (auto rc = ResolveWorkload(&a, from_program)) return *rc;
  auto wl = LoadWorkload(a.evolve.workload);
  if (!wl.ok()) {
    std::cerr << "cuco run: " << wl.status().message() << "\n";
    return kExitUsage;
  }
  if (!WorldSizeFlagListed("run", *wl, a.evolve.world_size)) return kExitUsage;
  if (a.evolve.world_size > 0) wl->world_size = a.evolve.world_size;  // generation 0 is verified at the search's size
  bool short_of_gpus = false;
  const int workload_world_size = wl->world_size;
  if (wl->language == "cuda") {
    const int fits = WorldSizeForThisMachine(*wl, a.evolve.world_size, a.evolve.gpus, DetectToolchain());
    if (fits == 0) return kExitEnvironment;
    if (fits > 0) {
      a.evolve.world_size = fits;
      wl->world_size = fits;  // generation 0 is verified at the size the search runs
      short_of_gpus = true;
    }
  }
  if (wl->generation0_file == wl->seed_file && !(wl->mode == "harness" && wl->language == "cpu")) {
    if (auto rc = MakeGeneration0(*wl, &a, from_program)) return *rc;
  } else if (IsProgramHarness(*wl)) {
    SeedOnly(*wl, &a, "generation 0: " + wl->generation0_file);  // declared: the transform ran before
  }
  if (from_program) std::cout << "cuco run: 3/3 search\n";
  const int rc = RunEvolve(a.evolve);
  if (short_of_gpus && rc == kExitOk) {
    std::cerr << "cuco run: searched at world size " << a.evolve.world_size << ", not the workload's " << workload_world_size
              << " (too few GPUs here): exit " << kExitEnvironment << "\n";
    return kExitEnvironment;
  }
  return rc;
}

}  // namespace

void AddRunCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("run", "The main job: make generation 0 when the workload has none (cuco transform), "
                                        "then search from it (cuco evolve); --resume continues a search");
  auto a = std::make_shared<RunArgs>();
  a->evolve.command = "run";
  cmd->add_option("workload", a->targets,
                  "Workload folder (holding workload.toml), or your program's files (main's first: cuco init makes "
                  "the workload, in --out); optional with --resume");
  cmd->add_option("--out", a->out, "For a program: the workload folder to write (default: cuco-runs/<program>)");
  cmd->add_option("--loop", a->loop, "For a program: FILE:LINE of the loop the harness serves (as cuco init --loop)");
  a->flags = AddProgramFlagOptions(cmd);
  cmd->add_option("--config", a->evolve.config, "Run config (TOML, docs/search.md; its LLM endpoints serve --llm)");
  cmd->add_option("--run-dir", a->evolve.run_dir, "The search's folder (default: cuco-runs/evolve-<workload>-<time>)");
  cmd->add_option("--resume", a->evolve.resume, "Continue the search in this directory");
  cmd->add_flag("--accept-changes", a->evolve.accept_changes,
                "With --resume: go on although the workload or the run config changed, as a new lineage");
  cmd->add_flag("--llm", a->llm, "Make generation 0 with the LLM-driven stages instead of the rules");
  cmd->add_option("--gpus", a->evolve.gpus, "GPU ids to use (default: all)")->delimiter(',');
  AddWorldSizeOption(cmd, &a->evolve.world_size, "Ranks per candidate, generation 0's check included (default: the "
                                                 "workload's world_size; one of its world_sizes)");
  AddLauncherOption(cmd, &a->evolve.launcher);
  cmd->add_option("--cache-dir", a->evolve.cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  AddBudgetOptions(cmd, &a->evolve.budget);
  cmd->add_flag("--json", a->evolve.json, "Print the search's summary as JSON");
  cmd->add_flag("--unsafe-no-sandbox", a->evolve.unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->callback([a, exit_code] {
    if (a->targets.empty() && a->evolve.resume.empty()) {
      std::cerr << "cuco run: give a workload folder, your program's files, or --resume <run-dir>\n";
      *exit_code = kExitUsage;
      return;
    }
    *exit_code = Run(*a);
  });
}

}  // namespace cuco
