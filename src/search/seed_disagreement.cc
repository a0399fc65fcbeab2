#include "search/seed_disagreement.h"

#include <fmt/format.h>

#include "util/files.h"
#include "workload/program_seed.h"

namespace cuco {

std::string SeedDisagreementNote(const WorkloadConfig& wl, const std::string& code, EvalStatus status,
                                 const std::string& run_dir) {
  if (status != EvalStatus::kWrongResult || wl.mode != "harness" || !IsProgramSeed(code)) return "";
  const Result<std::string> seed = ReadFile(wl.SeedPath());
  if (!seed.ok() || *seed != code) return "";
  return fmt::format(
      "note: this is your program as written ({}), and it disagrees with its own frozen copy ({}) on the same inputs, with no "
      "candidate's change in it. Either its outputs depend on more than its inputs (a kernel writing past the end "
      "of a buffer, a read of memory nothing wrote, a race between kernels or streams, the layout of its "
      "allocations), or cuco's stand-in for its communication differs from NCCL's (a cuco bug: report it with {}). "
      "To tell, run your program under `compute-sanitizer --tool memcheck`, then `--tool initcheck` and `--tool racecheck`.",
      wl.SeedPath().string(), wl.ReferencePath().string(),
      run_dir.empty() ? std::string("the run folder") : run_dir);
}

}  // namespace cuco
