// RunStart: what `cuco run` settles before its search (session.h searches), with the workload read
// once and the world size decided once:
//   - the workload: SessionOptions::workload_config when the caller has it (cuco init's), else its
//     workload.toml, loaded here once and handed to the session;
//   - the world size (the one place it is settled for a run): --world-size (one of the workload's
//     world_sizes), else the workload's; on a machine with GPUs but fewer than that, the largest of
//     its world_sizes that fits (said in one line: needed, found, what is done instead), or none;
//   - generation 0, when the workload declares none (harness-mode CUDA): the rule-based transform,
//     or the LLM-driven stages with `llm` (never switched to by itself), verified and timed at that
//     world size and, when it verifies, accepted into workload.toml (transform/generation0.h); the
//     workload as accepted goes to the session. A harness made of the user's program that the
//     transform cannot rewrite starts from its seed; with no knobs and no run config that is the
//     seed alone (a budget of one candidate).
// The toolchain is SessionOptions::toolchain, detected here only when the caller has none, and
// passed on. Messages go to stdout and stderr prefixed "cuco <command>: ", as the session's.
// Errors: kInvalidArgument / kNotFound for bad input (a workload that does not load, a world size it
// does not list, a transform that refuses it), kUnavailable for what this machine lacks.
#pragma once

#include <string>

#include "search/session.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

enum class RunStartEnd {
  kSearch,        // go on: Session::Open with the options StartRun returned
  kCompiledOnly,  // no GPU here: generation 0 compiled, nothing verified; the run ends well
  kNotAccepted,   // generation 0 made no attempt or did not verify: nothing to search from
  kNoFit,         // this machine has GPUs, too few for every world size of the workload
};

struct RunStartOptions {
  bool llm = false;       // generation 0 by the LLM-driven stages (the run config's endpoints)
  bool numbered = false;  // a run of a program: its steps say 2/3 (init was 1/3)
};

struct RunStart {
  RunStartEnd end = RunStartEnd::kSearch;
  bool short_of_gpus = false;   // the search runs at a smaller world size than the workload's
  int workload_world_size = 0;  // the workload's (or --world-size's) world size
  std::string why;              // where end is not kSearch: why, in a sentence (what stderr said)
};

// Settles `session` for Session::Open: toolchain, workload_config, world_size and, for a seed
// searched alone, budget.max_candidates.
Result<RunStart> StartRun(const RunStartOptions& options, SessionOptions* session);

// A harness made of the user's program itself (its seed includes cuco/program/candidate.h): its
// generation 0 is the seed as it is.
bool IsProgramHarness(const WorkloadConfig& wl);

}  // namespace cuco
