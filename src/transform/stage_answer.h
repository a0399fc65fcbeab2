// Stage answer: how the LLM transform reads a writer's answer for a stage (exposed for tests and
// the fuzz target). Never throws; any answer gives a rewrite or an error whose message suits the
// writer's feedback (it speaks of "the current code").
#pragma once

#include <string>

#include "transform/llm_stage.h"
#include "util/status.h"

namespace cuco {

// The rewrite an answer gives for `stage`, starting from `base`. With `blocks`, the answer goes
// through ApplyLlmAnswer (block_edits.h) and keeps `frozen_ref`'s frozen text; otherwise
// SEARCH/REPLACE diffs are applied to the whole file, or the longest fence is the new file. An
// annotating stage takes the longest fence holding an EVOLVE-BLOCK-START line.
struct StageAnswer {
  std::string code;
  std::string format;  // "diff" | "file"
};
Result<StageAnswer> ParseStageAnswer(const LlmStage& stage, bool blocks, const std::string& frozen_ref,
                                     const std::string& base, const std::string& answer, const std::string& path);

}  // namespace cuco
