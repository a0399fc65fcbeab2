// MakeProposer: the seam between the search and its proposers. A proposer is made by name
// from the run config's [proposer] table; each name maps to a factory.
//
// Built in: "builtin" (BuiltinProposer; [proposer.builtin] may set enumerate_limit,
// random_draws, crossover_draws) and "llm" (LlmProposer; [proposer.llm] names the endpoints
// and options, docs/llm.md). Another proposer registers its factory with
// RegisterProposer(name, ...) before the search starts.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "propose/proposer.h"
#include "util/status.h"
#include "workload/workload_config.h"

namespace cuco {

struct RunConfig;

struct ProposerSpec {
  std::string name;                        // [proposer] name
  nlohmann::json options = nlohmann::json::object();  // the [proposer.<name>] table ({} when absent)
  std::map<std::string, int> option_lines;  // "<name>" and "<name>.<key>" -> line in config_path
  std::string config_path;                 // for errors: config_path:line
  int line = 0;                            // of `name`
  const WorkloadConfig* workload = nullptr;
  uint64_t seed = 0;                       // the run's seed
  std::string run_dir;                     // where a proposer may keep its own logs (e.g. prompts)
};

// The spec of a run config's proposer.
ProposerSpec SpecFromConfig(const RunConfig& config, const WorkloadConfig* workload, const std::string& run_dir);

using ProposerFactory = std::function<Result<std::unique_ptr<Proposer>>(const ProposerSpec&)>;

// Adds or replaces the factory for `name`. Thread-safe.
void RegisterProposer(const std::string& name, ProposerFactory factory);
// The registered names, sorted.
std::vector<std::string> ProposerNames();
// A proposer from its factory; InvalidArgument naming config_path:line for an unknown name.
Result<std::unique_ptr<Proposer>> MakeProposer(const ProposerSpec& spec);

}  // namespace cuco
