#include "transform/llm_transform_messages.h"

#include <algorithm>
#include <cstdio>
#include <regex>

#include "prompts/design_space_text.h"
#include "prompts/key_lines.h"
#include "prompts/prompt_text.h"
#include "prompts/transform_stages.h"
#include "transform/host_calls.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

using prompt_text::Fence;

std::string FenceLanguage(const WorkloadConfig& w) { return w.language == "cpu" ? "cpp" : "cuda"; }

// What went wrong, for the judge: the record's stages that failed, with their log tails.
std::string FailureDetails(const LlmTransformAttempt& a, size_t max_log_chars) {
  std::string s = "Failure kind: " + a.failure_kind + "\n";
  if (a.record) s += "Status: " + std::string(EvalStatusName(a.record->status)) + "\n";
  s += "Reason: " + a.reason + "\n";
  if (a.record) {
    for (const StageRecord& st : a.record->stages) {
      if (st.status == EvalStatus::kOk || st.status == EvalStatus::kPending) continue;
      s += "\nStage " + st.name + ": " + EvalStatusName(st.status);
      if (!st.detail.empty()) s += ": " + st.detail;
      s += "\n";
      if (!Trim(st.log_tail).empty()) s += "Log tail:\n" + Fence("", TailChars(st.log_tail, max_log_chars));
    }
    const ErrorFigures& e = a.record->verify_errors;
    if (a.record->status == EvalStatus::kWrongResult && e.checks > 0) {
      char buf[256];
      std::snprintf(buf, sizeof buf,
                    "Verify errors (worst over ranks): rel L2 %.3g, max abs %.3g, non-finite %lld, poison left %lld of "
                    "%lld elements\n",
                    e.rel_l2, e.max_abs, e.nonfinite, e.poison_left, e.elements);
      s += buf;
    }
  }
  return s;
}

std::string WorkloadHeader(const WorkloadConfig& w) {
  std::string s = "Workload: " + (w.name.empty() ? std::string("(unnamed)") : w.name);
  if (!w.description.empty()) s += " — " + w.description;
  s += "\nMode: " + w.mode + " (" +
       (w.mode == "harness" ? std::string("the trusted harness calls the candidate's functions")
                            : std::string("a whole program that checks and times itself")) +
       "); language: " + w.language + "; ranks: " + std::to_string(w.world_size) + "\n";
  return s;
}

std::string StageText(const LlmStage& stage, size_t index, size_t count) {
  std::string s = "## Stage " + stage.id + " (" + stage.name + ")";
  if (count > 0) s += ", " + std::to_string(index) + " of " + std::to_string(count);
  s += "\n" + stage.task + "\nRules:\n";
  for (size_t i = 0; i < stage.rules.size(); ++i) s += std::to_string(i + 1) + ". " + stage.rules[i] + "\n";
  return s;
}

}  // namespace

std::string AttemptOutcomeText(const LlmTransformAttempt& a) {
  std::string s = a.failure_kind.empty() ? std::string("passed") : a.failure_kind + " failure";
  if (a.record) s += " (" + std::string(EvalStatusName(a.record->status)) + ")";
  if (!a.reason.empty()) s += ": " + a.reason;
  return s;
}

std::vector<ChatMessage> BuildWriterMessages(const LlmTransformInputs& inputs, const LlmTransformPromptState& state,
                                             const LlmTransformOptions& options) {
  static const LlmStage kNoStage;
  const LlmStage& stage = state.stage ? *state.stage : kNoStage;
  const WorkloadConfig& w = inputs.workload;
  const bool cuda = w.language != "cpu";
  const bool blocks = HasEvolveBlocks(inputs.code);
  const std::string lang = FenceLanguage(w);

  std::string sys =
      "You are an expert in CUDA, NCCL (its host API and its device API: symmetric memory, windows, LSA, GIN) and "
      "multi-GPU programming. You turn a host-driven program into one whose communication is device-initiated, in "
      "verified stages. Every answer is compiled, run and verified against a reference; a failing answer comes back "
      "to you with the failure and a reviewer's feedback.\n";
  if (!cuda) sys += "This workload runs on the CPU (cuco's own tests): there is no GPU or NCCL in it.\n";
  auto section = [](const std::string& title, const std::string& body) {
    return Trim(body).empty() ? std::string() : "\n## " + title + "\n" + body + (body.back() == '\n' ? "" : "\n");
  };
  if (cuda && w.mode == "harness") sys += section("Harness rules", HarnessRulesText());
  sys += section("The candidate interface (frozen)", inputs.contract_text);
  sys += section("Design space", inputs.design_space_text);
  sys += section("Building blocks (cuco/codesign)", CapText(inputs.api_text, options.max_api_chars));
  sys += section("Hardware", inputs.hardware_text);

  std::string user = WorkloadHeader(w) + "\n" + StageText(stage, 0, 0);
  if (blocks)
    user += std::string("\n## Frozen code\nOnly the code between ") + kEvolveBlockStart + " and " + kEvolveBlockEnd +
            " lines may change; everything outside them (the marker lines included) is frozen interface and must stay "
            "byte for byte.\n";
  user += section("What the original host program does (cuco analyze)", inputs.analysis_text);
  if (cuda) {
    auto host = FindCalls(state.base, HostCommunicationApis(), blocks);
    auto setup = FindCalls(state.base, DeviceSetupApis());
    user += "\n## In the current code\nHost communication calls" + std::string(blocks ? " inside the EVOLVE blocks" : "") +
            ": " + (host.empty() ? std::string("none") : CallListText(host, 16)) +
            "\nDevice-side set-up calls: " + (setup.empty() ? std::string("none") : CallListText(setup, 16)) + "\n";
  }
  if (state.base != state.stage_input) {
    user += "\n## Your previous attempt\nThe current code below is your previous attempt at this stage, which failed "
            "(see below); edit it. Its change from the code the stage started from:\n" +
            Fence("diff", LineDiff(state.stage_input, state.base, "stage input", "previous attempt", 3,
                                   options.max_diff_chars));
  }
  user += "\n## The current code\n" + Fence(lang, state.base);
  if (!state.history.empty()) {
    user += "\n## Failed attempts of this stage (fix what they got wrong)\n";
    const size_t first = state.history.size() > static_cast<size_t>(std::max(0, options.history))
                             ? state.history.size() - static_cast<size_t>(std::max(0, options.history))
                             : 0;
    for (size_t i = first; i < state.history.size(); ++i) {
      const LlmTransformAttempt& a = *state.history[i];
      user += "### Attempt " + std::to_string(a.iteration) + ": " + CapText(AttemptOutcomeText(a), 2000) + "\n";
      if (!a.judge_feedback.empty()) user += "Reviewer's feedback:\n" + CapText(a.judge_feedback, 4000) + "\n";
    }
  }
  user += "\n## Answer format\n" + StageAnswerFormatText(stage.annotate, blocks, lang);
  return {{"system", sys}, {"user", user}};
}

std::vector<ChatMessage> BuildJudgeMessages(const LlmTransformInputs& inputs, const LlmStage& stage,
                                            const std::string& base, const LlmTransformAttempt& failed,
                                            const LlmTransformOptions& options) {
  const std::string sys =
      "You review a failed step of a code transformation. A writer model rewrote a program for the stage described "
      "below and the rewrite failed. Read the failure and write corrective feedback for the writer's next attempt: "
      "the root cause (quote the offending line), the exact fix, and what to keep. Be specific and brief (at most "
      "15 lines). Do not write the whole file.\n";
  std::string user = WorkloadHeader(inputs.workload) + "\n" + StageText(stage, 0, 0);
  user += "\n## The failure\n" + FailureDetails(failed, options.max_log_chars);
  if (!failed.code.empty()) {
    // KeyLines reads "file:LINE:"; nvcc writes "file(LINE): ".
    const std::string named = std::regex_replace(failed.reason + "\n" + FailureDetails(failed, options.max_log_chars),
                                                 std::regex(R"(\(([0-9]+)\): )"), ":$1: ");
    const std::string key = KeyLines(failed.code, named, base, 4000);
    if (!Trim(key).empty()) user += "\n## Lines of the rewrite involved\n" + key;
    user += "\n## The rewrite, as a diff from the code it started from\n" +
            Fence("diff", failed.diff.empty() ? std::string("(no change)") : failed.diff);
  }
  if (!failed.answer_summary.empty()) user += "\nThe writer's summary: " + failed.answer_summary + "\n";
  user += "\nAnswer with the feedback only.\n";
  return {{"system", sys}, {"user", user}};
}

}  // namespace cuco
