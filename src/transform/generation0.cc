#include "transform/generation0.h"

#include <fmt/format.h>

#include <mutex>

#include "store/candidate_store.h"
#include "evaluate/stored_outcome.h"
#include "util/clock.h"
#include "util/files.h"

namespace cuco {
namespace fs = std::filesystem;

struct AttemptRecorder::State {
  WorkloadConfig workload;
  fs::path run_dir;
  fs::path store_path;
  std::unique_ptr<CandidateStore> store;
  std::unique_ptr<Cascade> cascade;
  std::mutex mu;
  int evaluations = 0;
};

AttemptRecorder::AttemptRecorder(std::unique_ptr<State> s) : s_(std::move(s)) {}
AttemptRecorder::~AttemptRecorder() = default;

Result<std::unique_ptr<AttemptRecorder>> AttemptRecorder::Open(const WorkloadConfig& workload,
                                                               const Toolchain& toolchain,
                                                               const Generation0Options& options) {
  auto s = std::make_unique<State>();
  s->workload = workload;
  s->run_dir = options.run_dir.empty() ? fs::path("cuco-runs") / ("transform-" + workload.name) : options.run_dir;
  if (Status st = MakeDirs(s->run_dir); !st.ok()) return st;
  s->store_path = s->run_dir / "cuco.db";
  auto store = CandidateStore::Open(s->store_path.string());
  if (!store.ok()) return store.status();
  s->store = std::move(*store);
  CascadeOptions cascade = options.cascade;
  if (cascade.cache_dir.empty()) cascade.cache_dir = DefaultCacheDir();
  s->cascade = std::make_unique<Cascade>(workload, toolchain, cascade);
  return std::unique_ptr<AttemptRecorder>(new AttemptRecorder(std::move(s)));
}

Generation0Attempt AttemptRecorder::Evaluate(const std::string& code, const std::string& label,
                                             const std::string& kind, const std::string& feedback) {
  Generation0Attempt a;
  a.label = label;
  a.record = EvaluateOnly(code, label);
  a.store_id = Store(code, kind, feedback, a.record);
  return a;
}

EvalRecord AttemptRecorder::EvaluateOnly(const std::string& code, const std::string& label) {
  int n = 0;
  {
    std::lock_guard<std::mutex> lock(s_->mu);
    n = ++s_->evaluations;
  }
  const std::string stamp = std::to_string(NowMs()) + "-" + std::to_string(n);
  return s_->cascade->Evaluate(code, label, s_->run_dir / "candidates" / stamp);
}

int64_t AttemptRecorder::Store(const std::string& code, const std::string& kind, const std::string& feedback,
                               const EvalRecord& record) {
  CandidateRecord cr;
  cr.run_id = s_->run_dir.filename().string();
  cr.code = code;
  cr.mutation_kind = kind;
  cr.proposer = kind == "seed" ? "manual" : kind;
  FillOutcome(record, &cr);
  cr.created_ms = cr.finished_ms;
  cr.feedback = feedback;
  if (!record.reason.empty())
    cr.feedback += (feedback.empty() ? "" : "\n") + record.candidate_path + ": " + record.reason;
  std::lock_guard<std::mutex> lock(s_->mu);
  auto id = s_->store->Insert(cr);
  return id.ok() ? *id : 0;
}

int64_t AttemptRecorder::StoreRejected(const std::string& code, const std::string& label, const std::string& kind,
                                       const std::string& reason) {
  CandidateRecord cr;
  cr.run_id = s_->run_dir.filename().string();
  cr.code = code;
  cr.mutation_kind = kind;
  cr.proposer = kind;
  cr.status = "rejected";
  cr.feedback = label + ": " + reason;
  cr.created_ms = cr.finished_ms = NowMs();
  std::lock_guard<std::mutex> lock(s_->mu);
  auto id = s_->store->Insert(cr);
  return id.ok() ? *id : 0;
}

bool AttemptRecorder::has_gpus() const { return s_->cascade->has_gpus(); }
std::string AttemptRecorder::DescribeRun(const std::string& stage) const { return s_->cascade->DescribeRun(stage); }
const fs::path& AttemptRecorder::store_path() const { return s_->store_path; }

fs::path Generation0File(const WorkloadConfig& workload, const Generation0Options& options) {
  return options.out_file.empty() ? workload.dir / "gen0_transformed.cu" : options.out_file;
}

Result<Generation0Report> MakeRuleGeneration0(const WorkloadConfig& workload, const Toolchain& toolchain,
                                              const Generation0Options& options, const RuleTransformOptions& rule) {
  if (workload.mode != "harness" || workload.language != "cuda")
    return Status::InvalidArgument(workload.toml_path.string() +
                                   ": the rule-based transform needs a harness-mode CUDA workload (this one is " +
                                   workload.mode + ", " + workload.language + "); use --llm");
  auto seed = ReadFile(workload.SeedPath());
  if (!seed.ok()) return seed.status();
  RuleTransformOptions with_flags = rule;  // where the program's includes resolve (included_calls.h)
  with_flags.build_flags = workload.build_flags;
  auto transformed = RuleTransform(*seed, workload.SeedPath().string(), with_flags);
  if (!transformed.ok()) return transformed.status();

  Generation0Report report;
  report.file = Generation0File(workload, options);
  report.transform_summary = FormatRuleTransform(*transformed, workload.SeedPath().string());
  report.knobs_toml = transformed->knobs_toml;
  if (Status s = WriteFileAtomic(report.file, transformed->code); !s.ok()) return s;
  report.written = true;

  auto recorder = AttemptRecorder::Open(workload, toolchain, options);
  if (!recorder.ok()) return recorder.status();
  report.store_path = (*recorder)->store_path();
  report.attempts.push_back((*recorder)->Evaluate(transformed->code, report.file.string(), "transform:rule",
                                                  report.transform_summary));
  const EvalRecord& r = report.attempts.back().record;
  report.verified = r.status == EvalStatus::kOk;
  if (report.verified && options.time_seed)
    report.seed = (*recorder)->Evaluate(*seed, workload.SeedPath().string(), "seed", "the seed, timed beside generation 0");
  if (!(*recorder)->has_gpus() && r.status == EvalStatus::kSkipped)
    report.note = "compiled; not accepted: generation 0 is accepted only after it verifies on GPUs (this machine has "
                  "none). On a GPU machine: verify: " + (*recorder)->DescribeRun("verify");
  if (Status s = AcceptGeneration0(workload, options, &report); !s.ok()) return s;
  return report;
}

Status AcceptGeneration0(const WorkloadConfig& workload, const Generation0Options& options, Generation0Report* report) {
  if (!report->verified) {
    if (report->note.empty())
      report->note = "not accepted: the last attempt did not verify (" +
                     (report->attempts.empty() ? std::string("no attempt")
                                               : std::string(EvalStatusName(report->attempts.back().record.status)) +
                                                     ": " + report->attempts.back().record.reason) + ")";
    return Status::Ok();
  }
  std::error_code ec;
  fs::path rel = fs::relative(report->file, workload.dir, ec);
  if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) {
    report->note = "verified; not named in workload.toml: " + report->file.string() + " lies outside the workload folder";
    return Status::Ok();
  }
  const bool declared = workload.generation0_file != workload.seed_file;
  if (declared && !options.set_generation0) {
    report->note = "verified; the workload keeps its generation0 = \"" + workload.generation0_file +
                   "\" (pass --set-generation0 to start the search from " + rel.string() + " instead)";
    return Status::Ok();
  }
  WorkloadConfig accepted;
  Status s = SetGeneration0(workload.toml_path, rel.string(), report->knobs_toml, &accepted);
  if (!s.ok()) {
    report->note = "verified; workload.toml unchanged: " + s.message();
    return Status::Ok();
  }
  report->accepted = true;
  report->accepted_workload = std::move(accepted);
  report->note = "accepted: workload.toml now says generation0 = \"" + rel.string() + "\"" +
                 (report->knobs_toml.empty() ? "" : " and declares its knobs");
  return Status::Ok();
}

Status SetGeneration0(const fs::path& toml_path, const std::string& file, const std::string& knobs_toml,
                      WorkloadConfig* loaded) {
  auto text = ReadFile(toml_path);
  if (!text.ok()) return text.status();
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= text->size()) {
    size_t nl = text->find('\n', start);
    if (nl == std::string::npos) {
      if (start < text->size()) lines.push_back(text->substr(start));
      break;
    }
    lines.push_back(text->substr(start, nl - start));
    start = nl + 1;
  }
  const std::string entry = "generation0 = \"" + file + "\"";
  auto key_of = [](const std::string& line) {
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#' || line[b] == '[') return std::string();
    size_t e = line.find_first_of(" \t=", b);
    return line.substr(b, e == std::string::npos ? std::string::npos : e - b);
  };
  int set_at = -1, after = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    size_t b = lines[i].find_first_not_of(" \t");
    if (b != std::string::npos && lines[i][b] == '[') break;  // top-level keys end at the first table
    const std::string key = key_of(lines[i]);
    if (key == "generation0") set_at = static_cast<int>(i);
    if (key == "reference" || key == "seed") after = static_cast<int>(i);
  }
  if (set_at >= 0) lines[static_cast<size_t>(set_at)] = entry;
  else if (after >= 0) lines.insert(lines.begin() + after + 1, entry);
  else return Status::InvalidArgument(toml_path.string() + ": no top-level `seed` key to put generation0 after");
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  if (!knobs_toml.empty()) out += "\n" + knobs_toml;
  auto checked = LoadWorkloadText(out, fs::absolute(toml_path));  // as the file will hold it, before it does
  if (!checked.ok()) return Status::InvalidArgument("with generation0 = \"" + file + "\" the workload does not load: " +
                                                    checked.status().message());
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(toml_path, out));
  if (loaded != nullptr) *loaded = std::move(*checked);
  return Status::Ok();
}

std::string FormatGeneration0(const Generation0Report& report) {
  std::string out = report.transform_summary;
  if (report.written) out += "generation 0 written to " + report.file.string() + "\n";
  for (const Generation0Attempt& a : report.attempts)
    out += fmt::format("  attempt {} (store id {}): {}{}{}\n", a.label, a.store_id, EvalStatusName(a.record.status),
                       a.record.timing.median_ms > 0 ? fmt::format(", {:.4f} ms", a.record.timing.median_ms) : "",
                       a.record.reason.empty() ? "" : " — " + a.record.reason);
  if (report.seed) {
    const double g = report.attempts.back().record.timing.median_ms, s = report.seed->record.timing.median_ms;
    out += fmt::format("  seed (store id {}): {}{}\n", report.seed->store_id, EvalStatusName(report.seed->record.status),
                       s > 0 ? fmt::format(", {:.4f} ms", s) : "");
    if (g > 0 && s > 0) out += fmt::format("  generation 0 / seed time: {:.3f} (correctness first: it may be slower)\n", g / s);
  }
  out += "  " + report.note + "\n";
  out += "  every attempt is stored in " + report.store_path.string() + "\n";
  return out;
}

}  // namespace cuco
