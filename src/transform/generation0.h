// Generation 0, made and accepted (`cuco transform`): a transform's output is written beside the
// workload, evaluated through the cascade (compile; on GPUs also verify and benchmark, with the
// seed timed next to it), every attempt stored in the run's SQLite store, and, once it verified
// on GPUs, named as the workload's `generation0` in workload.toml so `cuco evolve` starts there.
//
// Acceptance rule: only a record with status ok (verified at both sizes on GPUs) is accepted. A
// workload that already declares a generation0 keeps it unless `set_generation0` is given (the
// hand-written generation 0 of the suite's GEMM workloads is faster than a sequential transform);
// the new file must then also load as the workload's generation0 (its knob marks), or nothing
// changes and the report says why.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "evaluate/cascade.h"
#include "evaluate/outcome.h"
#include "toolchain/toolchain.h"
#include "transform/rule_transform.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct Generation0Options {
  std::filesystem::path out_file;  // default <workload>/gen0_transformed.cu
  std::filesystem::path run_dir;   // store and logs; default cuco-runs/transform-<name>
  bool set_generation0 = false;    // replace a declared generation0 too
  bool time_seed = true;           // with GPUs: evaluate the seed as well, for the comparison
  CascadeOptions cascade;
};

// One evaluated attempt, as stored.
struct Generation0Attempt {
  std::string label;        // e.g. "rule" or "llm stage B #2"
  EvalRecord record;
  int64_t store_id = 0;
};

struct Generation0Report {
  std::filesystem::path file;                  // where generation 0 goes
  bool written = false;                        // `file` holds it (an LLM transform not accepted writes none)
  std::string transform_summary;               // what the transform did (FormatRuleTransform, LLM stages)
  std::string knobs_toml;                      // [[knobs]] to declare with it (RuleTransformResult::knobs_toml)
  std::vector<Generation0Attempt> attempts;    // every evaluation, in order (the last is the verdict)
  std::optional<Generation0Attempt> seed;      // the seed's evaluation on GPUs
  bool verified = false;                       // the final attempt passed verification on GPUs
  bool accepted = false;                       // workload.toml names it now
  std::optional<WorkloadConfig> accepted_workload;  // accepted: the workload as workload.toml now says
  std::string note;                            // why it was not accepted, or what to do next
  std::filesystem::path store_path;
};

// Evaluates attempts through one cascade and stores each (failures included) in one store.
class AttemptRecorder {
 public:
  static Result<std::unique_ptr<AttemptRecorder>> Open(const WorkloadConfig& workload, const Toolchain& toolchain,
                                                       const Generation0Options& options);
  ~AttemptRecorder();
  // Evaluates `code` and stores it with `kind` ("transform:rule", "transform:llm", "seed") and
  // `feedback` (what made it); returns the attempt.
  Generation0Attempt Evaluate(const std::string& code, const std::string& label, const std::string& kind,
                              const std::string& feedback);
  // The two halves of Evaluate, for loops that store attempts themselves (the LLM stages).
  EvalRecord EvaluateOnly(const std::string& code, const std::string& label);
  int64_t Store(const std::string& code, const std::string& kind, const std::string& feedback,
                const EvalRecord& record);
  // Stores an attempt that never reached the cascade (a malformed LLM answer, a failed check).
  int64_t StoreRejected(const std::string& code, const std::string& label, const std::string& kind,
                        const std::string& reason);
  bool has_gpus() const;
  std::string DescribeRun(const std::string& stage) const;
  const std::filesystem::path& store_path() const;

 private:
  struct State;
  explicit AttemptRecorder(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

// The rule-based fast path for `workload` (harness mode, CUDA): transform, write, evaluate (and the
// seed on GPUs), accept.
Result<Generation0Report> MakeRuleGeneration0(const WorkloadConfig& workload, const Toolchain& toolchain,
                                              const Generation0Options& options,
                                              const RuleTransformOptions& rule = {});

// Where generation 0 goes: options.out_file, else <workload>/gen0_transformed.cu.
std::filesystem::path Generation0File(const WorkloadConfig& workload, const Generation0Options& options);

// Applies the acceptance rule above to report->file when report->verified; fills accepted / note.
Status AcceptGeneration0(const WorkloadConfig& workload, const Generation0Options& options,
                         Generation0Report* report);

// Sets the top-level `generation0 = "<file>"` of a workload.toml in place (comments kept; added
// after `reference` / `seed` when absent), and appends `knobs_toml` (the [[knobs]] the file marks).
// Fails, changing nothing, when the result does not load; *loaded (when given) gets it as loaded.
Status SetGeneration0(const std::filesystem::path& toml_path, const std::string& file,
                      const std::string& knobs_toml = "", WorkloadConfig* loaded = nullptr);

// The report as text (the CLI's output).
std::string FormatGeneration0(const Generation0Report& report);

}  // namespace cuco
