// RunBinding: what a search measures, recorded in its store (meta "search.binding") so that a
// resumed session measures the same thing (issue 28: a tolerance loosened between two sessions let
// a wrong candidate pass; an emptied config.toml resumed with every default).
//
// Bound:
//  - the workload's frozen files, by sha256: the seed, the reference, the generation 0 file and a
//    program's other sources;
//  - workload.toml's every key and value (tolerances, sizes, world sizes, timing, limits, knobs...),
//    so that a change is named field by field ("workload.toml tolerance.rel_l2: 0.0001 -> 0.01");
//    comments and layout are not bound;
//  - the run config's every key (as RunConfigToToml writes it, so defaults count) but those that
//    only say how much to spend or where to run: [budget], launcher, [slurm], and [parallelism]'s
//    evaluations and compiles.
// A resumed session whose binding differs is refused, naming what changed; with accept_changes it
// goes on as a new lineage, recorded in the store (meta "search.lineages") with its changes and the
// first candidate id it judges. A run recorded before bindings existed is bound when resumed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/run_config.h"
#include "store/candidate_store.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

inline constexpr const char* kMetaBinding = "search.binding";    // RunBinding::ToJson
inline constexpr const char* kMetaLineages = "search.lineages";  // [{lineage, from_id, time_ms, changes}]

struct RunBinding {
  std::map<std::string, std::string> files;     // file (relative to the workload folder) -> sha256
  std::map<std::string, std::string> workload;  // workload.toml key path -> value, as TOML
  std::map<std::string, std::string> config;    // bound run config key path -> value, as TOML

  nlohmann::json ToJson() const;
  static Result<RunBinding> FromJson(const std::string& text, const std::string& where);
};

// The binding of a search of `workload` under `config` (reads the workload's files).
Result<RunBinding> BindRun(const WorkloadConfig& workload, const RunConfig& config);

// What differs, one line each ("reference.cc changed (sha256 1a2b3c4d -> 5e6f7a8b)",
// "workload.toml tolerance.rel_l2: 0.0001 -> 0.01", "config.toml [workload] world_size: 2 -> 1",
// "config.toml selection.kind: removed"); empty when nothing does.
std::vector<std::string> BindingChanges(const RunBinding& recorded, const RunBinding& now);

// An empty config.toml (nothing but blanks and comments) on resume: cuco always writes every key,
// so an emptied file is a mistake that would resume with every default. InvalidArgument naming it.
Status CheckResumedConfigText(const std::string& text, const std::string& path);

struct BindingOutcome {
  int lineage = 1;                   // the lineage this session's candidates belong to
  bool new_lineage = false;          // accept_changes started one now
  bool bound_now = false;            // the run had no binding (a run from before them): recorded now
  std::vector<std::string> changes;  // what changed, when a lineage started now
};

// Records `now` in a new run's store, or checks it against a resumed run's: InvalidArgument (exit
// 2) listing every change and how to go on, unless accept_changes (then a new lineage, recorded
// with its changes, from the next candidate id on).
Result<BindingOutcome> BindStore(CandidateStore& store, const RunBinding& now, bool resuming, bool accept_changes);

}  // namespace cuco
