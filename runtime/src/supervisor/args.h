// The supervisor's command line (cuco's evaluator writes it; src/evaluate/cascade.cc):
//   supervisor --stage verify|bench --metrics-dir DIR --world W --candidate EXE --log-dir DIR
//              [--size NAME=VALUE]... [--warmup N] [--iters N] [--verify-runs N] [--verify-fraction F]
//              [--input-seed S] [--timing-only] [--iteration-limit S] [--sandbox-argv FILE]
//              [--timed-seconds S] [--max-iters N]
//              [--candidate-env NAME=VALUE]... [--setup-limit S] [--workload NAME]
// --timed-seconds S sizes the bench's timed loop after its warm-up: as many iterations as fill S
// seconds at the slowest rank's warm-up pace, from --iters up to --max-iters (timed_loop.h); without
// it the bench times exactly --iters.
// --sandbox-argv names a file of NUL-separated arguments (bwrap ... -- cuco-sandbox-exec ... --) put
// before the candidate's command; without it the ranks run unsandboxed (cuco's --unsafe-no-sandbox).
// The run nonce comes from CUCO_RUN_NONCE, which the supervisor reads and scrubs first thing; no
// candidate process ever has it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cuco::supervisor {

struct Args {
  std::string stage, metrics_dir, candidate, log_dir;
  std::string workload;  // for the metrics (CPU references do not name themselves)
  int world = 1;
  std::map<std::string, int64_t> sizes;
  int warmup = 5, iters = 20, verify_runs = 2;
  double timed_seconds = 0;  // 0: exactly `iters` timed iterations
  int max_iters = 0;         // the most a sized loop times (below `iters`: `iters`)
  double verify_fraction = 0.25;
  bool has_input_seed = false;
  uint64_t input_seed = 0;
  bool timing_only = false;
  double iteration_limit_s = 0;      // 0: none
  double setup_limit_s = 300;        // the candidate's start and setup
  std::vector<std::string> sandbox_argv;  // empty: unsandboxed
  std::string sandbox_argv_file;
  std::vector<std::string> candidate_env;
};

// Parses argv; on a bad argument returns false and sets *error.
bool ParseArgs(int argc, char** argv, Args* out, std::string* error);

}  // namespace cuco::supervisor
