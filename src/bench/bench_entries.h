// The cuco entries of `cuco bench`, in order: the workload's seed, its [[variants]] (the bound
// parts among them, run timing-only), the candidates given; then their evaluation, each stored.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "evaluate/cascade.h"
#include "store/candidate_store.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

// One cuco entry: the seed, a variant, a bound part or a candidate.
struct BenchEntry {
  std::string name;  // unique; never "peers"
  std::string kind;  // seed | variant | part | candidate
  std::string file;  // the code's file (for a variant: its materialisation in the run folder)
  std::string code;
  std::string variant, part, description;
  std::map<std::string, std::string> knobs;
  EvalRecord record;
  int64_t store_id = 0;
};

// The entries, variants materialised under run_dir/variants/, kept to `only`'s names when given
// ("peers" names the peers). Bad input (an unreadable file, a variant that does not materialise,
// an unknown --only name) is kInvalidArgument; a failed write kIOError.
Result<std::vector<BenchEntry>> CollectBenchEntries(const WorkloadConfig& wl, const std::vector<std::string>& candidates,
                                                    const std::vector<std::string>& only,
                                                    const std::filesystem::path& run_dir);

// Compiles every entry up front (`parallel_compiles` at once), then evaluates them one at a time
// on the same GPUs (timings never overlap), each stored in `store` under `run_id` and reported on
// stderr as it finishes. Fills each entry's record and store_id.
void EvaluateBenchEntries(std::vector<BenchEntry>& entries, Cascade& cascade, CandidateStore& store,
                          const std::filesystem::path& run_dir, const std::string& run_id, int parallel_compiles);

// The entries for bench.json: [{name, kind, file, variant, part, knobs, description, store_id,
// record}] (variant and part null when empty).
nlohmann::json BenchEntriesJson(const std::vector<BenchEntry>& entries);

}  // namespace cuco
