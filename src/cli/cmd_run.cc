// cuco run <workload | program.cu...>: the main job. Given a program, makes its workload first (cuco
// init: scaffold/program_workload.h). Settles the world size and makes generation 0 when the workload has none
// (search/run_start.h: `cuco transform`, rule-based, or LLM-driven with --llm only), then searches
// from it (`cuco evolve`: search/session.h). --resume continues a search. The toolchain is detected
// once here and the workload read once, both passed down. This file parses flags and prints.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "bench/bench_run.h"
#include "bench/bound_bench.h"
#include "cli/commands.h"
#include "cli/launcher_option.h"
#include "cli/program_flags.h"
#include "cli/workload_options.h"
#include "scaffold/program_analysis.h"
#include "scaffold/program_workload.h"
#include "search/run_start.h"
#include "toolchain/toolchain.h"

namespace cuco {
namespace {

struct RunArgs {
  EvolveArgs evolve;
  bool llm = false;
  std::vector<std::string> targets;  // a workload folder, or a program's files (main's first)
  std::string out;                   // --out: the folder `cuco init` writes a program's workload to
  std::string loop;                  // --loop: the loop of a program the harness serves
  std::string args;                  // --args: the arguments a program is run with
  std::shared_ptr<ProgramFlagOptions> flags;
};

// The workload `cuco run` works on: a program's (cuco init makes it: 1/3), or the folder named.
// Sets a->evolve.workload (and, when init loaded it, a->evolve.workload_config); an exit code when
// there is none.
std::optional<int> ResolveWorkload(RunArgs* a, bool from_program) {
  if (from_program) {
    ProgramWorkloadRequest r;
    r.files = a->targets;
    if (const std::string moved = MainFileFirst(&r.files); !moved.empty()) std::cout << "cuco run: " << moved << "\n";
    r.dir = a->out;
    r.loop = a->loop;
    r.args = a->args;
    Result<CompileFlags> flags = ResolveProgramFlags(*a->flags, r.files.front());
    if (!flags.ok()) {
      std::cerr << "cuco run: " << flags.status().message() << "\n";
      return kExitUsage;
    }
    if (const std::string added = AddCommandSources(*flags, &r.files); !added.empty())
      std::cout << "cuco run: " << added << "\n";
    r.flags = std::move(*flags);
    Result<ProgramWorkload> made = ProgramWorkloadFor(r, *a->evolve.toolchain, [](const std::string& line) {
      std::cout << (line.starts_with("  ") ? "" : "cuco run: ") << line << "\n";
    });
    if (!made.ok()) {
      std::cerr << "cuco run: " << made.status().message() << "\n";
      return made.status().code() == Status::Code::kInvalidArgument ? kExitUsage : kExitInternal;
    }
    a->evolve.workload = made->dir;
    a->evolve.workload_config = std::move(made->workload);
  } else if (a->targets.size() > 1) {
    std::cerr << "cuco run: " << a->targets.front() << " is a workload folder; give one (more files are for a program: "
              << "cuco run main.cu more.cu -- <your compile command>)\n";
    return kExitUsage;
  } else if (!a->targets.empty()) {
    a->evolve.workload = a->targets.front();
  }
  return std::nullopt;
}

// The overlap bound beside the best, where generation 0 declares its parts (a user's program: the
// part knob of cuco/program/codesign.h): a `cuco bench` of the seed, the parts and the best, with
// the workload, world size, sizes and toolchain the search used (a resumed one's too). What it
// says is printed; it never changes the search's exit code.
void ReportBound(const EvolveArgs& evolve, const SessionSummary& summary) {
  BenchOptions base;
  base.toolchain = summary.toolchain;
  base.world_size = summary.workload.world_size;
  base.gpus = evolve.gpus;
  base.cache_dir = evolve.cache_dir;
  base.launcher = evolve.launcher;
  base.unsafe_no_sandbox = evolve.unsafe_no_sandbox;
  std::optional<BenchOptions> o = BoundBenchOptions(summary.workload, summary.best_path, base);
  if (!o) return;
  std::cout << "cuco run: the overlap bound beside the best (cuco bench of the seed, its parts alone and the best, "
               "in " << o->run_dir << ")\n";
  auto bench = RunBench(*o);
  if (!bench.ok()) {
    std::cout << "cuco run: no bound: " << bench.status().message() << "\n";
    return;
  }
  std::cout << bench->head << bench->table;
}

// The search and, when it ends well, the bound.
int SearchThenBound(const EvolveArgs& evolve) {
  SessionSummary summary;
  const int rc = RunEvolve(evolve, &summary);
  if (rc == kExitOk && !evolve.json) ReportBound(evolve, summary);
  return rc;
}

// How `--json` names a run's end before its search.
const char* EndName(RunStartEnd end) {
  switch (end) {
    case RunStartEnd::kSearch: return "search";
    case RunStartEnd::kCompiledOnly: return "compiled_only";
    case RunStartEnd::kNotAccepted: return "not_accepted";
    case RunStartEnd::kNoFit: return "no_fit";
  }
  return "unknown";
}

// While alive, what is written to std::cout goes to std::cerr: with --json, stdout holds the
// search's summary alone, and what init and generation 0 say is for the person watching.
class ProgressToStderr {
 public:
  explicit ProgressToStderr(bool on) : saved_(on ? std::cout.rdbuf(std::cerr.rdbuf()) : nullptr) {}
  ~ProgressToStderr() {
    if (saved_) std::cout.rdbuf(saved_);
  }
  ProgressToStderr(const ProgressToStderr&) = delete;
  ProgressToStderr& operator=(const ProgressToStderr&) = delete;

 private:
  std::streambuf* saved_;
};

int Run(const RunArgs& args) {
  if (!args.evolve.resume.empty()) return SearchThenBound(args.evolve);
  RunArgs a = args;
  auto progress = std::make_unique<ProgressToStderr>(a.evolve.json);
  std::error_code ec;  // a program's file, not a workload folder
  const bool from_program = !a.targets.empty() && std::filesystem::is_regular_file(a.targets.front(), ec);
  // Detected once for the whole command (init, generation 0, the search); for a workload folder,
  // StartRun detects it once the workload has loaded.
  if (from_program) a.evolve.toolchain = DetectToolchain();
  if (auto rc = ResolveWorkload(&a, from_program)) return *rc;
  RunStartOptions o;
  o.llm = a.llm;
  o.numbered = from_program;
  Result<RunStart> start = StartRun(o, &a.evolve);  // the world size, generation 0 (search/run_start.h)
  if (!start.ok()) {
    std::cerr << "cuco run: " << start.status().message() << "\n";
    return start.status().code() == Status::Code::kUnavailable ? kExitEnvironment : kExitUsage;
  }
  if (start->end != RunStartEnd::kSearch && a.evolve.json) {  // stdout's JSON says the run ended before its search
    progress.reset();
    nlohmann::json j = {{"end", EndName(start->end)},
                        {"why", start->why},
                        {"workload_dir", a.evolve.workload},
                        {"candidates", 0}};
    std::cout << j.dump(2) << "\n";
  }
  switch (start->end) {
    case RunStartEnd::kSearch: break;
    case RunStartEnd::kCompiledOnly: return kExitOk;
    case RunStartEnd::kNotAccepted: return kExitCandidateFailed;
    case RunStartEnd::kNoFit: return kExitEnvironment;
  }
  if (from_program) std::cout << "cuco run: 3/3 search\n";  // with --json, still to stderr
  progress.reset();
  const int rc = SearchThenBound(a.evolve);
  if (start->short_of_gpus && rc == kExitOk) {
    std::cerr << "cuco run: searched at world size " << a.evolve.world_size << ", not the workload's "
              << start->workload_world_size << " (too few GPUs here): exit " << kExitEnvironment << "\n";
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
  cmd->add_option("--args", a->args, "For a program: the arguments you run it with (as cuco init --args)");
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
