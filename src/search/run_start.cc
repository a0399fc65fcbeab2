#include "search/run_start.h"

#include <iostream>
#include <string>

#include "evaluate/gpu_session.h"
#include "transform/generation0.h"
#include "transform/llm_generation0.h"
#include "util/files.h"
#include "workload/program_seed.h"

namespace cuco {
namespace {

// When this machine has GPUs but fewer than the workload's world size: says so in one line (needed,
// found, what is done instead) and returns the world size to run at instead (the largest of the
// workload's world_sizes that fits), or 0 when none fits. -1: no shortfall.
int WorldSizeForThisMachine(const std::string& me, const WorkloadConfig& wl, int requested,
                            const std::vector<int>& gpu_ids, const Toolchain& tc) {
  const int needed = requested > 0 ? requested : wl.world_size;
  const int found = gpu_ids.empty() ? static_cast<int>(tc.gpus.size()) : static_cast<int>(gpu_ids.size());
  if (found == 0 || found >= needed) return -1;
  const int fits = LargestWorldSizeWithin(wl, found);
  std::cerr << me << wl.name << " needs " << needed << " GPUs (world_size), this machine has " << found << ": "
            << (fits > 0 ? "searching at world size " + std::to_string(fits) + " instead (its world_sizes allow it)"
                         : "nothing runs here (its world_sizes are all larger)")
            << "; on a machine with " << needed << " GPUs: cuco run " << wl.dir.string() << "\n";
  return fits;
}

// The world size the run searches at, settled once: *wl gets it (generation 0 is verified at the
// search's size) and so does s->world_size when it differs from the workload's.
Status SettleWorldSize(const std::string& me, WorkloadConfig* wl, SessionOptions* s, RunStart* r) {
  CUCO_RETURN_IF_ERROR(CheckWorldSizeListed(*wl, s->world_size));
  if (s->world_size > 0) wl->world_size = s->world_size;
  r->workload_world_size = wl->world_size;
  if (wl->language != "cuda") return Status::Ok();
  const int fits = WorldSizeForThisMachine(me, *wl, s->world_size, s->gpus, *s->toolchain);
  if (fits == 0) {
    r->end = RunStartEnd::kNoFit;
    r->why = "this machine has fewer GPUs than every world size of " + wl->name;
  }
  if (fits > 0) {
    s->world_size = fits;
    wl->world_size = fits;
    r->short_of_gpus = true;
  }
  return Status::Ok();
}

// A harness made of the user's program that the transform cannot rewrite starts from its seed (the
// program as it is): verified and timed; with no knobs the builtin proposer stops there.
void SeedOnly(const std::string& me, const WorkloadConfig& wl, SessionOptions* s, const std::string& why) {
  std::cout << me << why << "\n";
  if (wl.knobs.empty() && s->config.empty()) {
    std::cout << me << wl.name << " has no knobs, so the builtin proposer has nothing to vary: the seed is "
              << "verified and timed, and the search stops there. An LLM proposer (--config with [[llm.endpoints]], "
              << "docs/llm.md) edits its EVOLVE blocks.\n";
    if (!s->budget.max_candidates) s->budget.max_candidates = 1;
  }
}

// Generation 0 for a workload that declares none (cuco transform, 2/3).
Status MakeGeneration0(const std::string& me, const WorkloadConfig& wl, const RunStartOptions& o, SessionOptions* s,
                       RunStart* r) {
  const bool program = IsProgramHarness(wl);
  const Toolchain& tc = *s->toolchain;
  Generation0Options options;
  options.cascade.gpus = s->gpus;
  options.cascade.unsafe_no_sandbox = s->unsafe_no_sandbox;
  if (!s->cache_dir.empty()) options.cascade.cache_dir = s->cache_dir;
  const bool rules = !o.llm;  // never LLM-driven unless asked: the rules say what they need
  if (wl.language == "cuda" && !tc.gpus.empty())  // generation 0 is timed: how, in one line up front
    std::cerr << me << PlanTiming(tc, true, false).Line() << "\n";
  std::cout << me << (o.numbered ? "2/3 " : "") << wl.name << " declares no generation0: making it ("
            << (rules ? "rule-based" : "LLM-driven") << " transform"
            << (program && rules ? ": your program's NCCL calls get the knobs of cuco/program/codesign.h" : "") << ")\n";
  auto report = rules ? MakeRuleGeneration0(wl, tc, options) : MakeLlmGeneration0(wl, tc, options, s->config);
  if (!report.ok() && program && report.status().code() == Status::Code::kInvalidArgument) {
    SeedOnly(me, wl, s, "generation 0 is your program as it is: " + report.status().message());
    return Status::Ok();
  }
  if (!report.ok()) return report.status();
  std::cout << FormatGeneration0(*report);
  if (report->attempts.empty()) {
    r->end = RunStartEnd::kNotAccepted;
    r->why = "generation 0 made no attempt";
  } else if (report->attempts.back().record.status == EvalStatus::kSkipped) {
    std::cout << me << "no GPU here: generation 0 compiled; on a GPU machine `cuco run` verifies it, then "
                 "searches from it.\n";
    r->end = RunStartEnd::kCompiledOnly;
    r->why = "no GPU here: generation 0 compiled, not verified";
  } else if (!report->accepted) {
    std::cerr << me << "generation 0 was not accepted, so there is nothing to search from: " << report->note << "\n";
    r->end = RunStartEnd::kNotAccepted;
    r->why = "generation 0 was not accepted: " + report->note;
  } else if (report->accepted_workload) {
    s->workload_config = std::move(*report->accepted_workload);  // workload.toml as it now reads: not read again
  } else {
    s->workload_config.reset();
  }
  return Status::Ok();
}

}  // namespace

Result<RunStart> StartRun(const RunStartOptions& options, SessionOptions* s) {
  const std::string me = "cuco " + s->command + ": ";
  if (!s->workload_config) {
    auto loaded = LoadWorkload(s->workload);
    if (!loaded.ok()) return loaded.status();
    s->workload_config = std::move(*loaded);
  }
  if (!s->toolchain) s->toolchain = DetectToolchain();
  WorkloadConfig wl = *s->workload_config;  // as the run sees it; the session applies the world size itself
  RunStart r;
  CUCO_RETURN_IF_ERROR(SettleWorldSize(me, &wl, s, &r));
  if (r.end != RunStartEnd::kSearch) return r;
  if (wl.generation0_file == wl.seed_file && !(wl.mode == "harness" && wl.language == "cpu")) {
    CUCO_RETURN_IF_ERROR(MakeGeneration0(me, wl, options, s, &r));
  } else if (IsProgramHarness(wl)) {
    SeedOnly(me, wl, s, "generation 0: " + wl.generation0_file);  // declared: the transform ran before
  }
  return r;
}

bool IsProgramHarness(const WorkloadConfig& wl) {
  Result<std::string> seed = ReadFile(wl.dir / wl.seed_file);
  return seed.ok() && IsProgramSeed(*seed);
}

}  // namespace cuco
