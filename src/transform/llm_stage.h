// LLM stage: one stage of the LLM transform as data (what to ask, how to check the answer, when
// to skip it), and the default stages A "infrastructure", B "replace" and C "annotate" (their
// texts: prompts/transform_stages.h; their checks: host_calls.h, annotation_check.h).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

// A stage's own check of a rewrite, before it is evaluated: ok, or why the rewrite does not do
// what the stage asks (the message is shown to the judge and the writer).
using StageCheckFn = std::function<Status(const std::string& stage_input, const std::string& rewrite)>;
// "" : the stage is needed for this code; else why it is skipped (e.g. nothing left to replace).
using StageSkipFn = std::function<std::string(const std::string& stage_input)>;

struct LlmStage {
  std::string id;                  // "A", "B", "C": in labels and messages
  std::string name;                // "infrastructure", "replace", "annotate"
  std::string task;                // what the writer must do, one paragraph
  std::vector<std::string> rules;  // listed in the prompt under the task
  bool annotate = false;           // answers are whole files that only add EVOLVE marker lines
  bool evaluate = true;            // run the EvaluateFn on a rewrite that passes the checks
  StageCheckFn check;              // empty: no check of its own
  StageSkipFn skip;                // empty: always run
};

// The stages for `workload` and its file `code`: A and B, and C when `code` has no EVOLVE blocks.
// For language "cuda" A and B carry the NCCL checks (A: every host communication API of the
// input still called, more device-side set-up calls than before; B: no host communication call
// left inside the EVOLVE blocks, or in the file when it has none) and skips (A when there is no
// host communication or a device communicator is created already, B when no host communication
// call is left). For language "cpu" (cuco's own tests) they carry none: the loop mechanics run
// with the evaluation alone. C is not evaluated (flip `evaluate` to have it evaluated).
std::vector<LlmStage> DefaultLlmStages(const WorkloadConfig& workload, const std::string& code);

}  // namespace cuco
