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
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "evaluate/outcome.h"
#include "llm/llm_client.h"
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

// The host communication calls stage B replaces (ncclAllReduce, ncclAllGather, ncclReduceScatter,
// ncclBroadcast, ncclBcast, ncclReduce, ncclAlltoAll, ncclGather, ncclScatter, ncclSend, ncclRecv).
const std::vector<std::string>& HostCommunicationApis();
// The device-side set-up stage A adds (ncclMemAlloc, ncclCommWindowRegister, ncclDevCommCreate,
// and the harness's alloc_symmetric / create_dev_comm and cuco/codesign's alloc_peers).
const std::vector<std::string>& DeviceSetupApis();

struct CallSite {
  std::string name;
  int line = 0;  // 1-based
};
// Calls of `names` in `code`: an identifier among them followed by '(' (after blanks), outside
// comments and string/character literals. With inside_blocks_only, only calls on lines strictly
// inside EVOLVE blocks (none when the markers are malformed or absent).
std::vector<CallSite> FindCalls(const std::string& code, const std::vector<std::string>& names,
                                bool inside_blocks_only = false);

// Stage C's check: `annotated` is `original` plus EVOLVE marker lines only. The markers balance
// (no nesting), each is a line of its own starting with `//`, at least one block holds code, and
// every other line equals the original's in order. Errors name the first offending line.
Status CheckAnnotationOnly(const std::string& original, const std::string& annotated,
                           const std::string& path = "file");

// The stages for `workload` and its file `code`: A and B, and C when `code` has no EVOLVE blocks.
// For language "cuda" A and B carry the NCCL checks (A: every host communication API of the
// input still called, more device-side set-up calls than before; B: no host communication call
// left inside the EVOLVE blocks, or in the file when it has none) and skips (A when there is no
// host communication or a device communicator is created already, B when no host communication
// call is left). For language "cpu" (cuco's own tests) they carry none: the loop mechanics run
// with the evaluation alone. C is not evaluated (flip `evaluate` to have it evaluated).
std::vector<LlmStage> DefaultLlmStages(const WorkloadConfig& workload, const std::string& code);

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

// The prompts, exposed for tests and dry runs. They use the inputs' texts as given
// (RunLlmTransform fills the empty ones first, as LlmTransformInputs describes).
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

// How RunLlmTransform reads a writer's answer for `stage` (exposed for tests and the fuzz target):
// the rewrite it gives, starting from `base`. With `blocks`, the answer goes through ApplyLlmAnswer
// (block_edits.h) and keeps `frozen_ref`'s frozen text; otherwise SEARCH/REPLACE diffs are applied
// to the whole file, or the longest fence is the new file. Any answer gives a result or an error
// whose message suits the writer's feedback; never throws.
struct StageAnswer {
  std::string code;
  std::string format;  // "diff" | "file"
};
Result<StageAnswer> ParseStageAnswer(const LlmStage& stage, bool blocks, const std::string& frozen_ref,
                                     const std::string& base, const std::string& answer, const std::string& path);

// A unified diff (`diff -u` style, `context` lines) of two texts, at most max_chars; "" when equal.
std::string LineDiff(const std::string& from, const std::string& to, const std::string& from_label,
                     const std::string& to_label, int context = 3, size_t max_chars = 12000);

}  // namespace cuco
