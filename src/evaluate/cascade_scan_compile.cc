// Cascade, L0 and L1: the frozen-text and deny-list scan, then the compile (cascade.h).
#include "evaluate/cascade.h"

#include <chrono>
#include <regex>
#include <set>

#include "evaluate/object_check.h"
#include "evaluate/stage_logs.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"

namespace cuco {
namespace {

// Marks the stage and the record rejected, both saying `why`; false: the cascade stops.
bool Reject(StageRecord* st, EvalRecord* rec, const std::string& why) {
  st->status = EvalStatus::kRejected;
  st->detail = why;
  rec->status = EvalStatus::kRejected;
  rec->reason = why;
  return false;
}

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

}  // namespace

void MarkUnjudged(StageRecord* st, EvalRecord* rec, const std::string& why) {
  if (st != nullptr) {
    st->status = EvalStatus::kPending;
    st->detail = why;
  }
  rec->status = EvalStatus::kPending;
  rec->interrupted = true;
  rec->reason = why + ": not judged (evaluated again on resume)";
}

Status Cascade::ScanPreprocessed(const std::string& code, const std::string& label, const fs::path& work_dir) {
  const fs::path dir = fs::absolute(work_dir) / "scan";
  CUCO_RETURN_IF_ERROR(MakeDirs(dir));
  const fs::path src = dir / (workload_.language == "cuda" ? "candidate.cu" : "candidate.cc");
  CUCO_RETURN_IF_ERROR(WriteFileAtomic(src, code));
  auto argv = builder_->PreprocessCommand(src);
  if (!argv.ok()) return Status::Ok();  // no compiler or no sandbox: the compile stage says so
  return CheckDenyListPreprocessed(code, label, *argv, std::max(60.0, workload_.compile_s));
}

bool Cascade::Scan(const std::string& code, const std::string& label, const fs::path& work_dir, EvalRecord* rec) {
  auto t = Clock::now();
  StageRecord* st = rec->Stage("scan");
  Status s = Status::Ok();
  const bool harness = workload_.mode == "harness";
  if (code != seed_code_ || harness) {
    if (harness || HasEvolveMarker(code))
      s = CheckFrozenCode(frozen_code_, frozen_path_, code, label);
    if (s.ok() && !options_.skip_deny_scan && harness) s = CheckDenyList(code, label);
    // The same scan again on what the compiler will see (splices, digraphs and macros resolved).
    if (s.ok() && !options_.skip_deny_scan && harness) s = ScanPreprocessed(code, label, work_dir);
  }
  st->seconds = SecondsSince(t);
  if (!s.ok()) {
    return Reject(st, rec, s.message());
  }
  st->status = EvalStatus::kOk;
  st->detail = options_.skip_deny_scan ? "frozen code intact (deny-list scan DISABLED)" : "frozen code intact, no denied API";
  return true;
}

bool Cascade::Compile(const std::string& code, EvalRecord* rec, BuildResult* out) {
  StageRecord* st = rec->Stage("compile");
  {
    std::unique_lock<std::mutex> lock(compile_mu_);
    compile_cv_.wait(lock, [&] { return compiles_running_ < std::max(1, options_.max_parallel_compiles); });
    ++compiles_running_;
  }
  auto built = builder_->Build(code, workload_.compile_s);
  {
    std::lock_guard<std::mutex> lock(compile_mu_);
    --compiles_running_;
  }
  compile_cv_.notify_one();
  if (built.ok() && built->interrupted) {
    st->seconds = built->seconds;
    st->log_path = built->log_path;
    st->log_tail = LastLines(built->log, 30);
    MarkUnjudged(st, rec, "the compile was stopped by a signal");
    return false;
  }
  if (!built.ok()) {
    st->status = EvalStatus::kCompileError;
    st->detail = built.status().message();
    rec->status = built.status().code() == Status::Code::kUnavailable ? EvalStatus::kSkipped : EvalStatus::kCompileError;
    rec->reason = built.status().message();
    return false;
  }
  st->seconds = built->seconds;
  st->log_path = built->log_path;
  st->log_tail = LastLines(built->log, 30);
  if (!built->ok) {
    st->status = EvalStatus::kCompileError;
    // The compiler cites the cache's copy of the candidate (<cache>/cand-<hash>/candidate.cu); the
    // record cites the candidate's own file (candidates/<id>/candidate.cu in a search, the file
    // given to `cuco eval`), the same text line for line, and keeps that log beside it.
    std::string log = built->log;
    if (!built->source.empty() && !rec->candidate_path.empty()) log = ReplaceAll(log, built->source, rec->candidate_path);
    if (!rec->run_dir.empty()) {
      const fs::path own = fs::path(rec->run_dir) / "compile.log";
      if (WriteFileAtomic(own, log).ok()) st->log_path = own.string();
    }
    st->log_tail = LastLines(log, 30);
    // The first compiler line that says error, never a command line the log records ("$ g++ ... -c
    // compile_error.cc").
    std::string first_error;
    static const std::regex kError("error|Error|fatal");
    for (const std::string& line : SplitLines(log))
      if (line.rfind("$ ", 0) != 0 && std::regex_search(line, kError)) {
        first_error = line;
        break;
      }
    st->detail = first_error.empty() ? "compiler failed" : first_error;
    rec->status = EvalStatus::kCompileError;
    rec->reason = st->detail;
    return false;
  }
  st->status = EvalStatus::kOk;
  // Hygiene on what was compiled: no symbol of someone else's, no code run at load or exit.
  if (workload_.mode == "harness" && !options_.skip_deny_scan) {
    // The user's program's own global names and frozen functions (its reference, trusted) are the
    // candidate's to define and run too.
    ProgramOwn program_own;
    if (!built->reference_object.empty() && fs::exists(built->reference_object)) {
      auto own = ProgramOwnOfReference(built->reference_object);
      if (!own.ok() && own.status().code() == Status::Code::kUnavailable) {
        MarkUnjudged(st, rec, "the object check could not run (" + own.status().message() + ")");
        return false;
      }
      if (own.ok()) program_own = *own;
    }
    program_own.candidate_lines = FrozenLinesOf(built->source);  // its file's frozen text, by its line table
    const Status obj = CheckCandidateObject(built->object, workload_.language, rec->candidate_path, program_own);
    // readelf or nm failing (stopped by a signal, missing) says nothing about the candidate.
    if (obj.code() == Status::Code::kUnavailable) {
      MarkUnjudged(st, rec, "the object check could not run (" + obj.message() + ")");
      return false;
    }
    if (!obj.ok()) {
      return Reject(st, rec, obj.message());
    }
  }
  st->detail = built->cached             ? "cached build (identical code compiled before)"
               : built->knob_values_only ? "its knob values compiled and linked (the rest compiled before)"
                                         : "compiled";
  *out = *built;
  return true;
}

Result<ProgramOwn> Cascade::ProgramOwnOfReference(const std::string& reference_object) {
  {
    std::lock_guard<std::mutex> lock(program_own_mu_);
    auto it = program_own_.find(reference_object);
    if (it != program_own_.end()) return it->second;
  }
  auto own = ProgramOwnOf(reference_object, workload_.ReferencePath().string());
  if (!own.ok()) return own.status();  // a failure is not kept: the next candidate asks again
  std::lock_guard<std::mutex> lock(program_own_mu_);
  program_own_[reference_object] = *own;
  return own;
}

}  // namespace cuco
