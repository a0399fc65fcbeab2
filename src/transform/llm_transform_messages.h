// LLM transform messages: the chat messages the LLM transform sends, exposed for tests and dry
// runs. The writer is asked for one stage's rewrite of the current code (the stage's task and
// rules, the frozen-code rule, the host program's analysis, the calls left, its own failed
// attempts with the reviewer's feedback, the answer format); the judge is asked to review one
// failed attempt (the failure with its log tails, the lines involved, the diff) and write
// corrective feedback. Both use the inputs' texts as given (RunLlmTransform fills the empty ones
// first, as LlmTransformInputs describes). Pure functions of their arguments.
#pragma once

#include <string>
#include <vector>

#include "llm/llm_client.h"
#include "transform/llm_transform.h"

namespace cuco {

struct LlmTransformPromptState {
  const LlmStage* stage = nullptr;
  std::string stage_input;     // the code the stage started from
  std::string base;            // the code this attempt edits
  int iteration = 1;
  std::vector<const LlmTransformAttempt*> history;  // failed attempts of the stage, oldest first
};
std::vector<ChatMessage> BuildWriterMessages(const LlmTransformInputs& inputs, const LlmTransformPromptState& state,
                                             const LlmTransformOptions& options);
std::vector<ChatMessage> BuildJudgeMessages(const LlmTransformInputs& inputs, const LlmStage& stage,
                                            const std::string& base, const LlmTransformAttempt& failed,
                                            const LlmTransformOptions& options);

// One line on how an attempt ended: "passed", or "<kind> failure (<status>): <reason>".
std::string AttemptOutcomeText(const LlmTransformAttempt& a);

}  // namespace cuco
