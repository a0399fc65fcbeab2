#include "search/proposer_factory.h"

#include <mutex>

#include "propose/builtin_proposer.h"
#include "propose/llm_proposer.h"
#include "search/run_config.h"

namespace cuco {
namespace {

Result<std::unique_ptr<Proposer>> MakeBuiltin(const ProposerSpec& spec) {
  BuiltinProposerOptions o;
  for (const auto& [key, value] : spec.options.items()) {
    const int line = spec.option_lines.count("builtin." + key) ? spec.option_lines.at("builtin." + key) : spec.line;
    int64_t* target = key == "enumerate_limit" ? &o.enumerate_limit : nullptr;
    int* itarget = key == "random_draws" ? &o.random_draws : key == "crossover_draws" ? &o.crossover_draws : nullptr;
    if (!target && !itarget)
      return Status::AtLine(spec.config_path, line,
                            "unknown key 'proposer.builtin." + key + "' (known: enumerate_limit, random_draws, crossover_draws)");
    if (!value.is_number_integer() || value.get<int64_t>() < 1)
      return Status::AtLine(spec.config_path, line, "'proposer.builtin." + key + "' must be an integer >= 1");
    if (target) *target = value.get<int64_t>();
    else *itarget = static_cast<int>(std::min<int64_t>(value.get<int64_t>(), 1 << 20));
  }
  return std::unique_ptr<Proposer>(std::make_unique<BuiltinProposer>(o));
}

// [proposer.llm]: endpoints and options (docs/llm.md); prompts and answers are logged under
// <run_dir>/llm unless log_dir says otherwise.
Result<std::unique_ptr<Proposer>> MakeLlm(const ProposerSpec& spec) {
  nlohmann::json options = spec.options;
  if (!options.contains("log_dir") && !spec.run_dir.empty()) options["log_dir"] = spec.run_dir + "/llm";
  const std::string where =
      spec.config_path.empty() ? std::string("run config") : spec.config_path + ":" + std::to_string(spec.line);
  return MakeLlmProposerFromJson(options, spec.seed, where);
}

// The factories every cuco has.
std::map<std::string, ProposerFactory> DefaultFactories() {
  return {{"builtin", MakeBuiltin}, {"llm", MakeLlm}};
}

std::mutex& RegistryMutex() {
  static std::mutex mu;
  return mu;
}

std::map<std::string, ProposerFactory>& Registry() {
  static std::map<std::string, ProposerFactory> r = DefaultFactories();
  return r;
}

}  // namespace

ProposerSpec SpecFromConfig(const RunConfig& config, const WorkloadConfig* workload, const std::string& run_dir) {
  ProposerSpec s;
  s.name = config.proposer;
  auto it = config.proposer_options.find(config.proposer);
  if (it != config.proposer_options.end()) s.options = it->second;
  s.option_lines = config.proposer_option_lines;
  s.config_path = config.path;
  s.line = config.proposer_line;
  s.workload = workload;
  s.seed = config.seed;
  s.run_dir = run_dir;
  return s;
}

void RegisterProposer(const std::string& name, ProposerFactory factory) {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  Registry()[name] = std::move(factory);
}

std::vector<std::string> ProposerNames() {
  std::lock_guard<std::mutex> lock(RegistryMutex());
  std::vector<std::string> names;
  for (const auto& [name, f] : Registry()) names.push_back(name);
  return names;
}

Result<std::unique_ptr<Proposer>> MakeProposer(const ProposerSpec& spec) {
  ProposerFactory f;
  std::string known;
  {
    std::lock_guard<std::mutex> lock(RegistryMutex());
    auto it = Registry().find(spec.name);
    if (it != Registry().end()) f = it->second;
    for (const auto& [name, fn] : Registry()) known += (known.empty() ? "" : ", ") + name;
  }
  if (!f) return Status::AtLine(spec.config_path, spec.line, "unknown proposer '" + spec.name + "' (known: " + known + ")");
  return f(spec);
}

}  // namespace cuco
