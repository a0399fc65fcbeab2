// RunConfig: a search's run.toml (docs/search.md has every key, its default and an example).
// Every key has a default, so an empty file (or none) is a valid config. Unknown keys, wrong
// types and out-of-range values are errors naming run.toml:LINE.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "launch/slurm_commands.h"
#include "llm/llm_endpoint.h"
#include "util/status.h"

namespace cuco {

// [islands.N]: what is special about island N.
struct IslandSpec {
  std::map<std::string, std::vector<std::string>> knobs;  // knob -> allowed values (a restriction)
  std::string prompt;                                     // passed to the proposer as island_prompt
  std::map<std::string, int> knob_lines;                  // knob -> line, for messages
};

// [mutation.explore] / [mutation.exploit]: the weights of the mutation kinds and the temperature.
struct PhaseMix {
  double knobs = 0, diff = 0, rewrite = 0, crossover = 0;
  double temperature = 0.7;
};

struct RunConfig {
  std::string path;  // the file read ("" = defaults)
  uint64_t seed = 1;

  // [budget]: the search stops at the first limit reached; 0 = no limit (max_generations and
  // max_candidates must not both be 0). By default the candidates bound the search, whatever the
  // number of proposals a generation makes on this machine.
  int max_generations = 0;      // generations after generation 0
  int max_candidates = 50;      // candidates evaluated (generation 0 and proposal failures count)
  double max_wall_s = 0;        // wall-clock seconds, summed over resumed sessions
  double max_dollars = 10;      // proposer spending (LLM calls)
  // Before the summary claims a gain, the best and the seed are evaluated again, alternately, this
  // many times each (gain_check.h); 0: not re-timed.
  int gain_check_rounds = 3;

  // [islands]
  int islands = 2;
  uint64_t island_seed_offset = 7919;  // island i draws from seed + i * offset
  std::map<int, IslandSpec> island_specs;

  // [migration]
  int migration_interval = 4;          // generations; 0 = never
  std::string migration_kind = "elitist";  // elitist: global elites to every island; graph: along edges
  std::vector<std::pair<int, int>> migration_edges;  // graph: [from, to]; default a ring
  int migrants = 1;                    // per event (per island for elitist, per edge for graph)

  // [selection]
  std::string selection = "power_law";  // power_law | fitness_weighted | beam
  double exploitation = 1.0;            // power_law: p(rank r) ~ r^-exploitation
  double fitness_lambda = 10.0;         // fitness_weighted: sigmoid sharpness
  int beam_width = 4;                   // beam: parents drawn from the island's best `beam_width`

  // [archive]
  std::vector<std::string> feature_knobs;  // MAP-Elites cell key; empty = every declared knob
  int feature_knobs_line = 0;
  int top_k = 3;                           // best candidates shown to the proposer
  int cell_picks = 2;                      // elites of other archive cells shown too

  // [mutation]
  double exploit_from = 0.5;          // < 1: a fraction of the budget spent; >= 1: a generation number
  bool exploit_from_is_generation = false;
  PhaseMix explore{0.4, 0.3, 0.1, 0.2, 1.0};
  PhaseMix exploit{0.3, 0.5, 0.0, 0.2, 0.4};

  // [novelty]
  double novelty_threshold = 0.995;   // a proposal at least this similar to a known candidate is skipped
  std::string novelty_measure = "jaccard";  // jaccard | embedding (cosine of [novelty.embedding]'s vectors)
  std::optional<LlmEndpoint> novelty_embedding;  // [novelty.embedding]: an openai-compatible or gemini endpoint
  int shingle_tokens = 4;
  std::vector<std::string> novelty_kinds = {"diff", "rewrite"};  // which mutation kinds are filtered

  // [proposer]
  std::string proposer = "builtin";   // builtin | llm
  int proposer_line = 0;
  int max_attempts = 3;               // proposals tried per slot before giving it up
  std::map<std::string, nlohmann::json> proposer_options;  // [proposer.<name>] tables, for the factory
  std::map<std::string, int> proposer_option_lines;        // "<name>" and "<name>.<key>" -> line

  // [parallelism]
  int evaluations = 0;       // in flight at once; 0 = the disjoint GPU groups of world_size + compiles
  int per_generation = 0;    // proposals per generation; 0 = max(evaluations, islands)
  int compiles = 2;          // compiles at once
  // true: the next generation is proposed (and compiles) while the last GPU runs of this one
  // finish, from the results in so far; GPUs stay busy, but which results a generation sees then
  // depends on timing. false: every generation waits for the previous one (deterministic).
  bool overlap_generations = false;

  // [workload]: how the workload runs in this search (default: as its workload.toml says).
  int world_size = 0;                     // 0 = the workload's world_size; else one of its world_sizes
  int world_size_line = 0;
  std::map<std::string, int64_t> sizes;   // bench size overrides (as `--size NAME=VALUE`)
  int sizes_line = 0;

  // launcher = "local" | "slurm": where evaluations run; [slurm]: the Slurm launcher's settings.
  std::string launcher = "local";
  SlurmOptions slurm;

  // [meta]
  int summary_interval = 1;  // generations between meta-summaries
  int recent_failures = 3;   // failures shown to the proposer

  // "explore" or "exploit" for a generation that starts with `candidates_so_far` evaluated.
  // exploit_from as a fraction is compared with the larger of generation / max_generations and
  // candidates_so_far / max_candidates (the limits that are set).
  std::string PhaseAt(int generation, int64_t candidates_so_far) const;
  const PhaseMix& Mix(const std::string& phase) const { return phase == "exploit" ? exploit : explore; }
};

struct WorkloadConfig;
// Checks the knob names and values the config mentions against the workload's [[knobs]], and
// [workload]'s world size and size names against its world_sizes and bench sizes.
Status CheckRunConfigAgainst(const RunConfig& config, const WorkloadConfig& workload);

// [workload]'s size overrides as `--size` settings ("NAME=VALUE"), for OverrideBenchSizes.
std::vector<std::string> SizeSettings(const RunConfig& config);

// Parses TOML text as if read from `path`.
Result<RunConfig> ParseRunConfig(const std::string& text, const std::string& path);
// Reads and parses a file.
Result<RunConfig> LoadRunConfig(const std::string& path);
// The config as TOML with every key written out (ParseRunConfig of it gives the same config).
std::string RunConfigToToml(const RunConfig& config);

}  // namespace cuco
