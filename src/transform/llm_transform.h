// The LLM-driven fast path (`cuco transform --llm`): a host-driven CUDA+NCCL file -> a correct,
// device-initiated generation 0, as in the CUCo paper.
//
// Stages are data (LlmStage): A "infrastructure" adds symmetric memory, windows and the device
// communicator while the host collectives stay; B "replace" turns the host collectives into
// device-initiated code from cuco/codesign (sequential: correctness first); C "annotate" (only
// for a file without EVOLVE blocks) adds EVOLVE-BLOCK-START/END marker lines and nothing else.
// Each stage is a loop of at most `max_iterations` attempts:
//
//   prompt -> writer answer -> parse (SEARCH/REPLACE diffs or a whole file in a fence)
//          -> local checks (frozen code outside the EVOLVE blocks, the stage's own check)
//          -> evaluate (the injected EvaluateFn: compile -> run -> verify)
//          -> on failure, the judge reads it and writes corrective feedback for the next prompt.
//
// Contract of RunLlmTransform:
//  - never throws; malformed answers, diffs that do not apply, edits outside the EVOLVE blocks,
//    failed checks, failed evaluations and client errors are failed attempts with a reason;
//  - every attempt is handed to the RecordAttemptFn once, after its judge round;
//  - the code is accepted only with a passing evaluation of it (or of the same code less
//    comment-only marker lines, for stage C); otherwise `accepted` is false and `stop_reason`
//    says why (a stage's iteration limit, the call or dollar budget);
//  - nothing it records carries an API key: the clients hold the keys and redact them.
// The returned Status is an error only for unusable inputs (empty code, unbalanced markers, no
// stages, a missing callback).
//
// The pieces, one file each: the stages (llm_stage.h, their texts in prompts/transform_stages.h),
// the call finder (host_calls.h), stage C's check (annotation_check.h), the answer reader
// (stage_answer.h), the messages (llm_transform_messages.h), the budget (llm_budget.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/outcome.h"
#include "llm/llm_client.h"
#include "transform/annotation_check.h"
#include "transform/host_calls.h"
#include "transform/llm_stage.h"
#include "transform/stage_answer.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

// One try of one stage, handed to the RecordAttemptFn.
struct LlmTransformAttempt {
  std::string stage;            // the stage's name ("infrastructure", ...; "final" for the closing check)
  std::string stage_id;         // "A", "B", "C", "final"
  int iteration = 0;            // 1-based within the stage
  std::string label;            // e.g. "llm-A-infrastructure-2" (the EvaluateFn's label)
  bool passed = false;
  std::string failure_kind;     // "" when passed; "call" (writer unreachable), "format" (answer
                                // unusable: no code, diff not applying, edit outside the EVOLVE
                                // blocks), "check" (the stage's check), "evaluation"
  std::string reason;           // why it failed: the parser's, the check's or the record's reason
  std::string code;             // the whole file tried ("" when the answer gave none)
  std::string diff;             // unified diff from the code the attempt started from
  std::optional<EvalRecord> record;  // when evaluated
  std::string answer_summary;   // the writer's SUMMARY line
  std::string answer_excerpt;   // the writer's answer, at most options.max_excerpt_chars
  std::string judge_feedback;   // the judge's corrective feedback ("" : none asked or none given)
  std::string judge_error;      // the judge's call failed: why (the failure text was used instead)
  int llm_calls = 0;            // writer + judge
  int64_t input_tokens = 0, output_tokens = 0;
  double dollars = 0;
};

// Evaluates a whole candidate file (e.g. Cascade::Evaluate into a work folder of the caller's).
using EvaluateFn = std::function<EvalRecord(const std::string& code, const std::string& label)>;
using RecordAttemptFn = std::function<void(const LlmTransformAttempt&)>;

struct LlmTransformInputs {
  WorkloadConfig workload;        // mode, language, name, description
  std::string code;               // the file to transform (usually the workload's seed)
  std::string code_path;          // names it in messages; the analysis reads it when it exists
  std::string analysis_text;      // AnalysisPromptText of the host program; "" : computed (CUDA only)
  std::string design_space_text;  // "" : DesignSpaceText() for CUDA, none for CPU
  std::string api_text;           // cuco/codesign API; "" : LoadCodesignApiText() for CUDA
  std::string contract_text;      // the candidate interface; "" : LoadCandidateContract() in harness mode
  std::string hardware_text;      // optional (HardwareFactsText)
  std::vector<LlmStage> stages;   // empty: DefaultLlmStages(workload, code)
};

struct LlmTransformOptions {
  int max_iterations = 4;           // attempts per stage
  int max_llm_calls = 40;           // writer + judge calls in all; 0 = no limit
  double max_dollars = 10.0;        // spent by both clients (their accounting); 0 = no limit
  std::string writer_model, judge_model;  // ChatRequest::model; "" : each client's own
  double writer_temperature = 0.2, judge_temperature = 0.2;
  int writer_max_tokens = 32768, judge_max_tokens = 2048;
  bool restart_each_attempt = false;  // false: a retry edits the failed attempt's code (when it
                                      // parsed); true: every attempt edits the stage's input
  bool judge_format_errors = false;   // false: an unusable answer's parser message is the feedback
  int history = 3;                    // failed attempts of the stage shown in the prompt
  std::set<EvalStatus> passing = {EvalStatus::kOk};  // records that pass a stage
  std::string label_prefix = "llm";
  size_t max_excerpt_chars = 4000;    // answer_excerpt
  size_t max_log_chars = 3000;        // each log tail shown to the judge
  size_t max_diff_chars = 12000;      // the diff shown to the judge and the writer
  size_t max_api_chars = 12000;       // the codesign API text
  std::function<void(const std::string&)> progress;  // one line per event; may be empty
};

struct LlmStageOutcome {
  std::string id, name;
  std::string status;   // "passed" | "failed" | "skipped" | "not_run"
  int attempts = 0;
  std::string reason;   // skipped: why; failed: the last failure
  std::string code;     // the stage's output when passed
};

struct LlmTransformResult {
  bool accepted = false;
  std::string code;                  // the accepted file ("" when not accepted)
  std::optional<EvalRecord> record;  // the passing evaluation behind `code`
  std::vector<LlmStageOutcome> stages;
  int attempts = 0, llm_calls = 0;
  int64_t input_tokens = 0, output_tokens = 0;
  double dollars = 0;
  std::string stop_reason;           // "" when accepted; else why it gave up
};

Result<LlmTransformResult> RunLlmTransform(const LlmTransformInputs& inputs, LlmClient& writer, LlmClient& judge,
                                           const EvaluateFn& evaluate, const RecordAttemptFn& record,
                                           const LlmTransformOptions& options = {});

// A unified diff of two texts (edit/line_diff.h's, in a style with looser line ends: "\r\n" reads
// as "\n", a missing final newline is neither compared nor marked, ranges always "N,COUNT"),
// `context` lines, at most max_chars; "" when equal.
std::string LineDiff(const std::string& from, const std::string& to, const std::string& from_label,
                     const std::string& to_label, int context = 3, size_t max_chars = 12000);

}  // namespace cuco
