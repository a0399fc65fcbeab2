#include "transform/llm_generation0.h"

#include <toml++/toml.h>

#include "llm/llm_client.h"
#include "llm/llm_endpoint.h"
#include "transform/llm_transform.h"
#include "util/files.h"
#include "util/toml_reader.h"

namespace cuco {
namespace {

struct LlmSetup {
  std::vector<LlmEndpoint> endpoints;
  std::string writer, judge;
  LlmTransformOptions options;
};

Result<LlmSetup> ReadSetup(const std::string& path) {
  if (path.empty())
    return Status::Unavailable("--llm needs --config <run.toml> naming an LLM endpoint (docs/llm.md); no LLM is "
                               "configured. The rule-based transform (without --llm) needs none.");
  auto text = ReadFile(path);
  if (!text.ok()) return text.status();
  Result<toml::table> parsed = ParseToml(*text, path);
  if (!parsed.ok()) return parsed.status();
  const toml::table& t = *parsed;
  LlmSetup s;
  const toml::node* list = t.at_path("proposer.llm.endpoints").node();
  if (list == nullptr) list = t.at_path("llm.endpoints").node();
  if (list == nullptr)
    return Status::Unavailable(path + ": no [[proposer.llm.endpoints]] or [[llm.endpoints]] table: no LLM is configured");
  auto endpoints = LlmEndpointsFromToml(*list, path);
  if (!endpoints.ok()) return endpoints.status();
  s.endpoints = *endpoints;
  if (s.endpoints.empty()) return Status::Unavailable(path + ": the endpoint list is empty");
  s.writer = s.endpoints.front().name;
  if (const toml::table* tr = t["transform"].as_table()) {
    for (const auto& [key, node] : *tr) {
      const int line = TomlReader::LineOf(node);
      const std::string k(key.str());
      if (k == "writer" || k == "judge") {
        auto v = node.value<std::string>();
        if (!v) return Status::AtLine(path, line, "transform." + k + " must be an endpoint name");
        bool known = false;
        for (const LlmEndpoint& e : s.endpoints) known = known || e.name == *v;
        if (!known) return Status::AtLine(path, line, "transform." + k + ": no endpoint is named '" + *v + "'");
        (k == "writer" ? s.writer : s.judge) = *v;
      } else if (k == "max_iterations" || k == "max_llm_calls") {
        auto v = node.value<int64_t>();
        if (!v || *v < 1) return Status::AtLine(path, line, "transform." + k + " must be a positive integer");
        (k == "max_iterations" ? s.options.max_iterations : s.options.max_llm_calls) = static_cast<int>(*v);
      } else if (k == "max_dollars") {
        auto v = node.value<double>();
        if (!v || *v < 0) return Status::AtLine(path, line, "transform.max_dollars must be a number >= 0");
        s.options.max_dollars = *v;
      } else {
        return Status::AtLine(path, line, "unknown key transform." + k +
                                              " (writer, judge, max_iterations, max_llm_calls, max_dollars)");
      }
    }
  }
  if (s.judge.empty()) s.judge = s.writer;
  return s;
}

const LlmEndpoint& Named(const std::vector<LlmEndpoint>& all, const std::string& name) {
  for (const LlmEndpoint& e : all)
    if (e.name == name) return e;
  return all.front();
}

}  // namespace

Result<Generation0Report> MakeLlmGeneration0(const WorkloadConfig& workload, const Toolchain& toolchain,
                                             const Generation0Options& options, const std::string& config_path) {
  auto setup = ReadSetup(config_path);
  if (!setup.ok()) return setup.status();
  const LlmEndpoint& writer_endpoint = Named(setup->endpoints, setup->writer);
  const LlmEndpoint& judge_endpoint = Named(setup->endpoints, setup->judge);
  auto writer = MakeLlmClient(writer_endpoint);
  if (!writer.ok()) return writer.status();
  auto judge = MakeLlmClient(judge_endpoint);
  if (!judge.ok()) return judge.status();
  auto seed = ReadFile(workload.SeedPath());
  if (!seed.ok()) return seed.status();
  auto recorder = AttemptRecorder::Open(workload, toolchain, options);
  if (!recorder.ok()) return recorder.status();

  Generation0Report report;
  report.file = Generation0File(workload, options);
  report.store_path = (*recorder)->store_path();
  LlmTransformInputs inputs;
  inputs.workload = workload;
  inputs.code = *seed;
  inputs.code_path = workload.SeedPath().string();
  LlmTransformOptions o = setup->options;
  o.writer_model = writer_endpoint.model;
  o.judge_model = judge_endpoint.model;
  // Without GPUs a compiled stage lets the loop go on; acceptance still needs a verified record.
  if (!(*recorder)->has_gpus()) o.passing.insert(EvalStatus::kSkipped);
  auto evaluate = [&](const std::string& code, const std::string& label) {
    return (*recorder)->EvaluateOnly(code, label);
  };
  auto record = [&](const LlmTransformAttempt& a) {
    const std::string feedback = "stage " + a.stage + " attempt " + std::to_string(a.iteration) +
                                 (a.reason.empty() ? "" : ": " + a.reason) +
                                 (a.judge_feedback.empty() ? "" : "\njudge: " + a.judge_feedback);
    Generation0Attempt stored;
    stored.label = a.label;
    if (a.record) {
      stored.record = *a.record;
      stored.store_id = (*recorder)->Store(a.code, "transform:llm", feedback, *a.record);
    } else {
      stored.record.status = EvalStatus::kRejected;
      stored.record.reason = a.failure_kind + ": " + a.reason;
      stored.store_id = (*recorder)->StoreRejected(a.code, a.label, "transform:llm", a.failure_kind + ": " + a.reason);
    }
    report.attempts.push_back(stored);
  };
  auto result = RunLlmTransform(inputs, **writer, **judge, evaluate, record, o);
  if (!result.ok()) return result.status();
  report.transform_summary = "LLM-driven transform of " + inputs.code_path + " (writer " + writer_endpoint.name +
                             ", judge " + judge_endpoint.name + "): " + std::to_string(result->attempts) +
                             " attempt(s), " + std::to_string(result->llm_calls) + " LLM call(s), $" +
                             std::to_string(result->dollars) + "\n";
  for (const LlmStageOutcome& s : result->stages)
    report.transform_summary += "  stage " + s.id + " (" + s.name + "): " + s.status + ", " +
                                std::to_string(s.attempts) + " attempt(s)" + (s.reason.empty() ? "" : ": " + s.reason) +
                                "\n";
  if (!result->accepted) {
    report.note = "not accepted: " + result->stop_reason;
    return report;
  }
  if (Status s = WriteFileAtomic(report.file, result->code); !s.ok()) return s;
  report.written = true;
  report.verified = result->record && result->record->status == EvalStatus::kOk;
  if (!report.verified && !(*recorder)->has_gpus())
    report.note = "compiled; not accepted: generation 0 is accepted only after it verifies on GPUs (this machine has "
                  "none)";
  if (report.verified && options.time_seed)
    report.seed = (*recorder)->Evaluate(*seed, workload.SeedPath().string(), "seed", "the seed, timed beside generation 0");
  if (Status s = AcceptGeneration0(workload, options, &report); !s.ok()) return s;
  return report;
}

}  // namespace cuco
