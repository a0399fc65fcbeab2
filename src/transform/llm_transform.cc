// The loop of the LLM transform (RunLlmTransform; llm_transform.h states its contract): each stage
// is a run of attempts (writer call, parse, checks, evaluation, judge round), then a final
// evaluation when the accepted code has none of its own. The pieces live beside it: the stages
// (llm_stage.h), the messages (llm_transform_messages.h), the answers (stage_answer.h), the
// budget (llm_budget.h).
#include "transform/llm_transform.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <utility>

#include "analyze/analysis.h"
#include "edit/block_edits.h"
#include "edit/line_diff.h"
#include "prompts/design_space_text.h"
#include "prompts/runtime_api_text.h"
#include "transform/llm_budget.h"
#include "transform/llm_transform_messages.h"
#include "util/files.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace fs = std::filesystem;
namespace {

using transform_internal::BudgetSpent;
using transform_internal::Charge;
using transform_internal::LlmSpending;
using transform_internal::Money;

// What `cuco analyze` says of the host program: of the file at code_path when it exists, else of
// the code written to a temporary file.
std::string AnalysisText(const LlmTransformInputs& r) {
  std::error_code ec;
  Result<Analysis> analysis = Status::NotFound("");
  if (!r.code_path.empty() && fs::is_regular_file(r.code_path, ec)) {
    analysis = AnalyzeFile(r.code_path);
  } else {
    static std::atomic<int> counter{0};
    const fs::path tmp = fs::temp_directory_path(ec) /
                         ("cuco-llm-transform-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + ".cu");
    if (WriteFileAtomic(tmp, r.code).ok()) {
      analysis = AnalyzeFile(tmp.string());
      fs::remove(tmp, ec);
    }
  }
  return analysis.ok() ? AnalysisPromptText(*analysis) : "(analysis unavailable: " + analysis.status().message() + ")";
}

// Fills the texts a caller left empty.
LlmTransformInputs Resolve(const LlmTransformInputs& in, const LlmTransformOptions& options) {
  LlmTransformInputs r = in;
  const bool cuda = r.workload.language != "cpu";
  if (r.stages.empty()) r.stages = DefaultLlmStages(r.workload, r.code);
  if (cuda && r.design_space_text.empty()) r.design_space_text = DesignSpaceText();
  if (cuda && r.api_text.empty()) r.api_text = LoadCodesignApiText(options.max_api_chars);
  if (r.workload.mode == "harness" && r.contract_text.empty()) {
    auto c = LoadCandidateContract(r.workload.language);
    if (c.ok()) r.contract_text = *c;
  }
  if (cuda && r.analysis_text.empty()) r.analysis_text = AnalysisText(r);
  return r;
}

// One run of the loop: its inputs (resolved), its callbacks, and what it has reached so far.
struct TransformRun {
  TransformRun(const LlmTransformInputs& in, LlmClient& w, LlmClient& j, const EvaluateFn& e, const RecordAttemptFn& r,
               const LlmTransformOptions& o, std::string p)
      : inputs(in), writer(w), judge(j), evaluate(e), record(r), options(o), path(std::move(p)),
        blocks(HasEvolveBlocks(in.code)), current(in.code) {}

  const LlmTransformInputs& inputs;
  LlmClient& writer;
  LlmClient& judge;
  const EvaluateFn& evaluate;
  const RecordAttemptFn& record;
  const LlmTransformOptions& options;
  const std::string path;  // names the code in messages
  const bool blocks;       // the code has EVOLVE blocks

  LlmTransformResult result;
  LlmSpending spent;
  std::string current;                       // the code so far
  std::optional<EvalRecord> current_record;  // the passing evaluation of `evaluated_code`
  std::string evaluated_code;
  bool stopped = false;

  void Progress(const std::string& line) const {
    if (options.progress) options.progress(line);
  }
};

// The attempt's rewrite through the stage's checks and, when they pass, the evaluation. Returns
// whether the judge should review the failure.
bool CheckAndEvaluate(TransformRun& run, const LlmStage& stage, const std::string& stage_input,
                      const std::string& attempt_title, LlmTransformAttempt& a) {
  Status check = stage.annotate ? CheckAnnotationOnly(stage_input, a.code, run.path) : Status::Ok();
  if (check.ok() && stage.check) check = stage.check(stage_input, a.code);
  if (!check.ok()) {
    a.failure_kind = "check";
    a.reason = check.message();
    return true;
  }
  if (!stage.evaluate) {
    a.passed = true;
    return false;
  }
  run.Progress(attempt_title + ": evaluating " + a.label);
  a.record = run.evaluate(a.code, a.label);
  if (run.options.passing.count(a.record->status)) {
    a.passed = true;
    return false;
  }
  a.failure_kind = "evaluation";
  a.reason = std::string(EvalStatusName(a.record->status)) + ": " + a.record->reason;
  return true;
}

// Asks the writer for attempt `it` of `stage` (editing `base`) and takes its answer through the
// parser, the checks and the evaluation. Returns whether the judge should review the failure.
bool TryWriter(TransformRun& run, const LlmStage& stage, const std::string& stage_input, const std::string& base,
               const std::vector<LlmTransformAttempt>& history, const std::string& attempt_title,
               LlmTransformAttempt& a) {
  const LlmTransformOptions& options = run.options;
  LlmTransformPromptState state;
  state.stage = &stage;
  state.stage_input = stage_input;
  state.base = base;
  state.iteration = a.iteration;
  for (const auto& h : history) state.history.push_back(&h);
  ChatRequest req;
  req.model = options.writer_model;
  req.messages = BuildWriterMessages(run.inputs, state, options);
  req.temperature = options.writer_temperature;
  req.max_tokens = options.writer_max_tokens;
  run.Progress(attempt_title + ": asking the writer");
  Result<ChatResponse> answer = run.writer.Complete(req);
  ++run.spent.calls;
  ++a.llm_calls;
  if (!answer.ok()) {
    a.failure_kind = "call";
    a.reason = "the writer's call failed: " + answer.status().message();
    return false;
  }
  Charge(*answer, &run.spent, &a);
  a.answer_excerpt = CapText(answer->text, options.max_excerpt_chars);
  a.answer_summary = AnswerSummary(answer->text);
  auto parsed = ParseStageAnswer(stage, run.blocks, run.inputs.code, base, answer->text, run.path);
  if (!parsed.ok()) {
    a.failure_kind = "format";
    a.reason = parsed.status().message();
    if (answer->CutOff())
      a.reason += " (the answer was cut off at the " + std::to_string(options.writer_max_tokens) + "-token limit)";
    return options.judge_format_errors;
  }
  a.code = parsed->code;
  a.diff = LineDiff(base, a.code, "current", "attempt " + std::to_string(a.iteration), 3, options.max_diff_chars);
  return CheckAndEvaluate(run, stage, stage_input, attempt_title, a);
}

// The judge's corrective feedback on the failed attempt `a` (or why it was not asked or failed).
void AskJudge(TransformRun& run, const LlmStage& stage, const std::string& base, const std::string& attempt_title,
              LlmTransformAttempt& a) {
  if (std::string b = BudgetSpent(run.spent, run.options); !b.empty()) {
    a.judge_error = "not asked: " + b;
    return;
  }
  ChatRequest jreq;
  jreq.model = run.options.judge_model;
  jreq.messages = BuildJudgeMessages(run.inputs, stage, base, a, run.options);
  jreq.temperature = run.options.judge_temperature;
  jreq.max_tokens = run.options.judge_max_tokens;
  run.Progress(attempt_title + ": " + a.failure_kind + " failure; asking the judge");
  Result<ChatResponse> verdict = run.judge.Complete(jreq);
  ++run.spent.calls;
  ++a.llm_calls;
  if (verdict.ok()) {
    Charge(*verdict, &run.spent, &a);
    a.judge_feedback = Trim(verdict->text);
  } else {
    a.judge_error = verdict.status().message();
  }
}

// Why `stage` is skipped for the current code ("" : it runs).
std::string SkipReason(const TransformRun& run, const LlmStage& stage) {
  std::string skip = stage.annotate && run.blocks ? "the file has EVOLVE blocks already" : "";
  if (skip.empty() && stage.skip) skip = stage.skip(run.current);
  return skip;
}

// The attempts of one stage, until one passes, the iterations run out or the budget is spent.
LlmStageOutcome RunStage(TransformRun& run, const LlmStage& stage) {
  const LlmTransformOptions& options = run.options;
  LlmStageOutcome outcome;
  outcome.id = stage.id;
  outcome.name = stage.name;
  outcome.status = "not_run";
  if (run.stopped) return outcome;
  const std::string stage_title = "stage " + stage.id + " (" + stage.name + ")";
  if (std::string skip = SkipReason(run, stage); !skip.empty()) {
    outcome.status = "skipped";
    outcome.reason = skip;
    outcome.code = run.current;
    run.Progress(stage_title + ": skipped: " + skip);
    return outcome;
  }

  const std::string stage_input = run.current;
  std::string base = run.current;
  std::vector<LlmTransformAttempt> history;
  history.reserve(static_cast<size_t>(options.max_iterations));
  bool passed = false;
  std::string last_failure;
  for (int it = 1; it <= options.max_iterations; ++it) {
    if (std::string b = BudgetSpent(run.spent, options); !b.empty()) {
      last_failure = b;
      run.result.stop_reason = b + " (" + stage_title + ", before attempt " + std::to_string(it) + ")";
      run.stopped = true;
      break;
    }
    LlmTransformAttempt a;
    a.stage = stage.name;
    a.stage_id = stage.id;
    a.iteration = it;
    a.label = options.label_prefix + "-" + stage.id + "-" + stage.name + "-" + std::to_string(it);
    const std::string attempt_title =
        stage_title + " attempt " + std::to_string(it) + "/" + std::to_string(options.max_iterations);
    const bool judge_it = TryWriter(run, stage, stage_input, base, history, attempt_title, a);
    if (!a.passed && judge_it && it < options.max_iterations) AskJudge(run, stage, base, attempt_title, a);
    run.Progress(attempt_title + ": " + (a.passed ? std::string("passed") : AttemptOutcomeText(a)));
    run.record(a);
    ++run.result.attempts;
    if (a.passed) {
      passed = true;
      run.current = a.code;
      if (a.record) {
        run.current_record = a.record;
        run.evaluated_code = a.code;
      }
      break;
    }
    last_failure = AttemptOutcomeText(a);
    if (!options.restart_each_attempt && !a.code.empty()) base = a.code;
    history.push_back(std::move(a));
  }

  outcome.attempts = static_cast<int>(history.size()) + (passed ? 1 : 0);
  if (passed) {
    outcome.status = "passed";
    outcome.code = run.current;
  } else {
    outcome.status = "failed";
    outcome.reason = last_failure;
    if (!run.stopped)
      run.result.stop_reason = stage_title + " did not pass in " + std::to_string(options.max_iterations) +
                               " attempt" + (options.max_iterations == 1 ? "" : "s") + "; the last: " + last_failure;
    run.stopped = true;
  }
  return outcome;
}

// The accepted code needs a passing evaluation: of itself, or of the code it annotates; when it
// has none, it is evaluated now (the "final" attempt).
void FinalCheck(TransformRun& run) {
  const bool covered =
      run.current_record && (run.evaluated_code == run.current ||
                             (HasEvolveBlocks(run.current) && !HasEvolveBlocks(run.evaluated_code) &&
                              CheckAnnotationOnly(run.evaluated_code, run.current, run.path).ok()));
  if (covered) return;
  LlmTransformAttempt a;
  a.stage = "final";
  a.stage_id = "final";
  a.iteration = 1;
  a.label = run.options.label_prefix + "-final";
  a.code = run.current;
  a.diff = LineDiff(run.inputs.code, run.current, "input", "final", 3, run.options.max_diff_chars);
  run.Progress("final check: evaluating " + a.label);
  a.record = run.evaluate(run.current, a.label);
  a.passed = run.options.passing.count(a.record->status) > 0;
  if (!a.passed) {
    a.failure_kind = "evaluation";
    a.reason = std::string(EvalStatusName(a.record->status)) + ": " + a.record->reason;
  }
  run.record(a);
  ++run.result.attempts;
  if (a.passed) {
    run.current_record = a.record;
  } else {
    run.result.stop_reason = "the final code did not pass its evaluation: " + a.reason;
    run.stopped = true;
  }
}

// Unusable inputs, as RunLlmTransform's error; Ok otherwise.
Status CheckInputs(const LlmTransformInputs& raw_inputs, const EvaluateFn& evaluate, const RecordAttemptFn& record,
                   const LlmTransformOptions& options, const std::string& path) {
  if (Trim(raw_inputs.code).empty()) return Status::InvalidArgument("llm transform: the code to transform is empty");
  if (!evaluate) return Status::InvalidArgument("llm transform: no evaluate callback");
  if (!record) return Status::InvalidArgument("llm transform: no record callback");
  if (options.max_iterations < 1) return Status::InvalidArgument("llm transform: max_iterations must be at least 1");
  if (raw_inputs.code.find(kEvolveMarker) != std::string::npos) {
    auto split = SplitEvolveBlocks(raw_inputs.code, path, /*require_blocks=*/false);
    if (!split.ok()) return Status::InvalidArgument("llm transform: " + split.status().message());
  }
  return Status::Ok();
}

}  // namespace

std::string LineDiff(const std::string& from, const std::string& to, const std::string& from_label,
                     const std::string& to_label, int context, size_t max_chars) {
  if (from == to) return "";
  DiffStyle style;
  style.context = context;
  style.mark_missing_newline = false;
  style.short_ranges = false;
  std::string diff = UnifiedDiff(NormalizeNewlines(from), NormalizeNewlines(to),
                                 from_label, to_label, style);
  if (diff.empty()) diff = "--- " + from_label + "\n+++ " + to_label + "\n";  // equal but for "\r\n": no hunk
  return CapText(diff, max_chars);
}

Result<LlmTransformResult> RunLlmTransform(const LlmTransformInputs& raw_inputs, LlmClient& writer, LlmClient& judge,
                                           const EvaluateFn& evaluate, const RecordAttemptFn& record,
                                           const LlmTransformOptions& options) {
  const std::string path = raw_inputs.code_path.empty() ? std::string("input") : raw_inputs.code_path;
  if (Status s = CheckInputs(raw_inputs, evaluate, record, options, path); !s.ok()) return s;
  const LlmTransformInputs inputs = Resolve(raw_inputs, options);
  if (inputs.stages.empty()) return Status::InvalidArgument("llm transform: no stages");
  TransformRun run(inputs, writer, judge, evaluate, record, options, path);
  for (const LlmStage& stage : inputs.stages) run.result.stages.push_back(RunStage(run, stage));
  if (!run.stopped) FinalCheck(run);

  LlmTransformResult& result = run.result;
  if (!run.stopped) {
    result.accepted = true;
    result.code = run.current;
    result.record = run.current_record;
  }
  result.llm_calls = run.spent.calls;
  result.input_tokens = run.spent.in;
  result.output_tokens = run.spent.out;
  result.dollars = run.spent.dollars;
  run.Progress(result.accepted ? "accepted after " + std::to_string(result.attempts) + " attempt(s), " +
                                     std::to_string(result.llm_calls) + " LLM call(s), " + Money(result.dollars)
                               : "gave up: " + result.stop_reason);
  return result;
}

}  // namespace cuco
