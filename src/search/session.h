// Session: a search run opened or resumed in one call, as LevelDB's DB::Open opens a database.
//
//   SessionOptions o;
//   o.workload = "tests/workloads/cpu_matmul";
//   o.budget.max_candidates = 3;
//   auto session = Session::Open(o);           // or o.resume = "<run dir>" to continue one
//   if (session.ok()) auto summary = (*session)->Run();
//
// Open settles, once, everything a run needs before its first evaluation: the run config (--config,
// or the run's own config.toml on resume; the budget flags recorded in it), the store and the run
// directory (a new one is created and bound to the workload; a resumed one must hold a run of it),
// the workload and its world size and sizes, the toolchain, the evaluator (the cascade, its compile
// cache and GPUs), the launcher (local or Slurm, checked up front), the concurrency (evaluations in
// flight, generations overlapping) and the proposer. Run then searches (search/evolution.h) under
// Ctrl-C handling (stop_signals.h), writes best.<ext> and returns the summary the commands print.
// `cuco evolve` and `cuco run` are this plus flag parsing and printing (src/cli/); every
// evaluation goes from the search to the cascade here, never through the command layer.
//
// Why search/: the session needs the evaluator (evaluate/, layer 3), the launchers (launch/), the
// toolchain, the store and the proposers (propose/, layer 4) besides the loop itself, and search/
// (layer 5) is the lowest folder that may depend on all of them; nothing above it is needed.
//
// Messages go to stderr as "cuco <command>: ..." (the prefix every message of the command has);
// errors come back as a Status whose message takes the same prefix when printed (bad input:
// kInvalidArgument; a missing tool: kUnavailable; I/O: kIOError). One Session at a time per
// process (Ctrl-C's handler is process-wide).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/budget_flags.h"
#include "search/evolution.h"
#include "toolchain/toolchain.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct SessionOptions {
  std::string command = "evolve";  // the command searching ("run" for `cuco run`): messages and hints name it
  std::string workload;            // the workload folder; optional with `resume`
  std::string config;              // a run config (TOML, docs/search.md); "" = every key's default
  std::string run_dir;             // a new run's folder; "" = cuco-runs/evolve-<workload>-<time>
  std::string resume;              // continue the run in this folder
  bool accept_changes = false;     // with `resume`: a changed workload or config starts a new lineage
  std::vector<int> gpus;           // GPU ids; empty = every GPU found
  std::string cache_dir;           // compile cache; "" = $CUCO_CACHE_DIR or ~/.cache/cuco
  int world_size = 0;              // > 0: sets [workload] world_size of a new run
  std::vector<std::string> sizes;  // NAME=VALUE: sets [workload] sizes of a new run
  BudgetFlags budget;              // replaces [budget] keys, recorded in the run's config.toml
  std::string launcher;            // "local" or "slurm"; "" = the run config's
  bool unsafe_no_sandbox = false;  // run candidates without the sandbox (every record says so)
  bool live_output = true;         // the progress line and the "searching ..." line on stderr
  // Read once, decided once: what the caller has read already is passed on, not read again.
  std::optional<Toolchain> toolchain;             // this machine's (DetectToolchain); unset: Open detects it
  std::optional<WorkloadConfig> workload_config;  // `workload` as loaded (its workload.toml); unset: Open loads it
};

// How a session ended, for the commands' exit codes (cli/exit_code.h).
enum class SessionEnd {
  kDone,             // the search ended by itself or by its budget
  kCandidateFailed,  // generation 0 failed (or, compiled only, did not compile)
  kStopped,          // Ctrl-C (or SIGTERM): the evaluations in flight finished and were stored
  kAborted,          // a second Ctrl-C: the evaluations in flight were killed, left pending
  kLauncherFailed,   // Slurm failed past its retries: the search stopped, in-flight candidates pending
};

struct SessionSummary {
  SessionEnd end = SessionEnd::kDone;
  SearchResult result;
  std::string best_path;  // run_dir/best.<ext>, written; "" when nothing passed
  std::string text;       // the summary as `cuco evolve` prints it on stdout
  nlohmann::json json;    // the same as --json prints it
  WorkloadConfig workload;  // as the run saw it: its world size and bench sizes applied (a resumed run's too)
  Toolchain toolchain;      // the one the run's candidates were compiled with
};

class Session {
 public:
  // Opens a new run or resumes one. Errors before anything is evaluated (bad flags, a config or
  // workload that does not parse, a run folder that is not one, a missing nvcc or Slurm).
  static Result<std::unique_ptr<Session>> Open(const SessionOptions& options);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Searches until the budget, the search itself or a signal stops it. Call once.
  Result<SessionSummary> Run();

  const std::filesystem::path& run_dir() const;
  const WorkloadConfig& workload() const;  // as the cascade sees it: the run's world size and sizes

 private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuco
