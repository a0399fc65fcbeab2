// Prompt builder: the system and user messages an LLM proposer sends for one mutation.
//
// System message (stable within a run, so providers can cache it): the role, the design space,
// the harness rules, the frozen candidate interface, the installed communication API, the
// hardware, the workload and its knobs. User message: the island's instructions, the
// meta-summary, the parent (code, status, time, speedup, feedback), the inspirations (top-k with
// their times), the failures as negative examples (status, feedback, key lines), and the task:
// the mutation kind (diff, rewrite, crossover) with the exact answer format. The pieces both
// paths share (answer formats, candidate contract, codesign API, a failure's key lines) live in
// prompts/. The whole prompt is capped; inspirations are shortened first (code dropped, then
// whole entries), then failures, the meta-summary and the communication API. The parent's code
// is never cut (diffs must quote it exactly).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "propose/proposer.h"
#include "util/status.h"

namespace cuco {

struct PromptLimits {
  size_t max_total_chars = 240000;      // system + user (~60k tokens); the parent is never cut
  size_t max_code_chars = 60000;        // one inspiration's or failure's code
  size_t max_inspirations = 4;          // shown with code (crossover: the partners come first)
  size_t max_failures = 4;
  size_t max_feedback_chars = 4000;     // the parent's evaluator feedback
  size_t max_failure_chars = 1500;      // one failure: status, feedback, key lines
  size_t max_meta_chars = 6000;
  size_t max_comm_api_chars = 16000;
};

struct PromptOptions {
  PromptLimits limits;
  std::string design_space;   // "" : DesignSpaceText() (CUDA workloads only)
  std::string harness_rules;  // "" : HarnessRulesText() (CUDA workloads only)
  std::string contract;       // the frozen interface; "" : a built-in summary of cuco/harness.h
  std::string extra_api;      // further API text (e.g. cuco/codesign headers); "" : none
};

struct Prompt {
  std::string system;
  std::string user;
  std::vector<int64_t> inspiration_ids;  // inspirations shown (with or without code)
  std::vector<int64_t> partner_ids;      // crossover partners shown (a subset of the above)
  bool truncated = false;                // something was shortened or left out to fit the cap
  size_t size() const { return system.size() + user.size(); }
};

// Builds the prompt for `ctx`.
Prompt BuildPrompt(const ProposalContext& ctx, const PromptOptions& options = {});

// The meta-summary request: given the search's statistics (e.g. search/meta_summary.h's text),
// asks for what was tried, what worked and what to try next. `stats_text` is cut to max_chars.
Prompt BuildSummaryPrompt(const std::string& stats_text, size_t max_chars = 60000);

}  // namespace cuco
