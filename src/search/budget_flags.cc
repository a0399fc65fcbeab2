#include "search/budget_flags.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "util/clock.h"

namespace cuco {

namespace {

// A float as TOML writes one (always with a '.' or an exponent), exactly.
std::string TomlFloat(double v) {
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

namespace {

// A count limit given as a flag: it replaces its key; and, given alone with N > 0, it lifts the
// other count limit (`other`), so that the limit asked for is the one that binds.
void ApplyCountFlag(const char* flag, const char* key, std::optional<int> value, int* limit, bool other_given,
                    const char* other_flag, const char* other_key, int* other, BudgetChange* change) {
  if (!value) return;
  if (*value != *limit) {
    change->lines.push_back(fmt::format("{} {} replaces {} = {}", flag, *value, key, *limit));
    change->keys.emplace_back(key, std::to_string(*value));
    *limit = *value;
  }
  if (*value > 0 && !other_given && *other > 0) {
    change->lines.push_back(fmt::format("{} {} lifts {} = {} (give {} N as well to keep a limit there)", flag, *value,
                                        other_key, *other, other_flag));
    change->lifts.push_back(change->lines.back());
    change->keys.emplace_back(other_key, "0");
    *other = 0;
  }
}

}  // namespace

Result<BudgetChange> ApplyBudgetFlags(const BudgetFlags& flags, RunConfig* cfg) {
  BudgetChange change;
  ApplyCountFlag("--max-candidates", "max_candidates", flags.max_candidates, &cfg->max_candidates,
                 flags.max_generations.has_value(), "--max-generations", "max_generations", &cfg->max_generations, &change);
  ApplyCountFlag("--max-generations", "max_generations", flags.max_generations, &cfg->max_generations,
                 flags.max_candidates.has_value(), "--max-candidates", "max_candidates", &cfg->max_candidates, &change);
  if (!flags.time_budget.empty()) {
    auto seconds = ParseDuration(flags.time_budget);
    if (!seconds.ok()) return Status::InvalidArgument("--time-budget: " + seconds.status().message());
    if (*seconds != cfg->max_wall_s) {
      change.lines.push_back(fmt::format("--time-budget {} replaces max_wall_s = {:g}", flags.time_budget, cfg->max_wall_s));
      change.keys.emplace_back("max_wall_s", TomlFloat(*seconds));
      cfg->max_wall_s = *seconds;
    }
  }
  if (flags.max_cost && *flags.max_cost != cfg->max_dollars) {
    change.lines.push_back(fmt::format("--max-cost {:g} replaces max_dollars = {:g}", *flags.max_cost, cfg->max_dollars));
    change.keys.emplace_back("max_dollars", TomlFloat(*flags.max_cost));
    cfg->max_dollars = *flags.max_cost;
  }
  if (cfg->max_candidates == 0 && cfg->max_generations == 0)
    return Status::InvalidArgument(
        "the budget flags leave no count limit: max_candidates and max_generations are both 0 (give "
        "--max-candidates N or --max-generations N)");
  return change;
}

namespace {

// "[name]" (spaces allowed inside, a comment after) -> name; "" for any other line.
std::string TableHeader(const std::string& line) {
  const size_t open = line.find_first_not_of(" \t");
  if (open == std::string::npos || line[open] != '[' || line.compare(open, 2, "[[") == 0) return "";
  const size_t close = line.find(']', open);
  if (close == std::string::npos) return "";
  std::string name = line.substr(open + 1, close - open - 1);
  name.erase(0, name.find_first_not_of(" \t"));
  name.erase(name.find_last_not_of(" \t") + 1);
  return name;
}

bool SetsKey(const std::string& line, const std::string& key) {
  const size_t at = line.find_first_not_of(" \t");
  if (at == std::string::npos || line.compare(at, key.size(), key) != 0) return false;
  const size_t eq = line.find_first_not_of(" \t", at + key.size());
  return eq != std::string::npos && line[eq] == '=';
}

}  // namespace

Result<std::string> RecordBudgetChange(const std::string& toml, const std::string& path, const BudgetChange& change,
                                       const RunConfig& cfg) {
  std::vector<std::string> lines;
  std::istringstream in(toml);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::vector<bool> done(change.keys.size(), false);
  size_t header = lines.size(), end = lines.size();
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string table = TableHeader(lines[i]);
    const size_t first = lines[i].find_first_not_of(" \t");
    const bool any_header = first != std::string::npos && lines[i][first] == '[';  // [table] or [[array]]
    if (table == "budget") header = i, end = lines.size();
    else if (any_header && header < lines.size() && end == lines.size()) end = i;
  }
  for (size_t i = header + 1; header < lines.size() && i < end; ++i)
    for (size_t k = 0; k < change.keys.size(); ++k)
      if (SetsKey(lines[i], change.keys[k].first)) {
        lines[i] = change.keys[k].first + " = " + change.keys[k].second;
        done[k] = true;
      }
  std::vector<std::string> added;
  for (size_t k = 0; k < change.keys.size(); ++k)
    if (!done[k]) added.push_back(change.keys[k].first + " = " + change.keys[k].second);
  if (header == lines.size() && !added.empty()) {
    lines.push_back("");
    lines.push_back("[budget]");
    header = lines.size() - 1;
  }
  lines.insert(lines.begin() + static_cast<long>(header) + 1, added.begin(), added.end());
  std::string out;
  for (const std::string& line : lines) out += line + "\n";

  auto check = ParseRunConfig(out, path);
  if (!check.ok() || check->max_candidates != cfg.max_candidates || check->max_generations != cfg.max_generations ||
      check->max_wall_s != cfg.max_wall_s || check->max_dollars != cfg.max_dollars)
    return Status::InvalidArgument(path + ": could not record the budget flags in its [budget] table (" +
                                   (check.ok() ? "it sets them another way" : check.status().message()) +
                                   "): write them there by hand");
  return out;
}

std::string RaiseBudgetFlag(const std::string& spent_key, const RunConfig& cfg) {
  if (spent_key == "max_candidates") return fmt::format("--max-candidates {}", 2 * std::max(1, cfg.max_candidates));
  if (spent_key == "max_generations") return fmt::format("--max-generations {}", 2 * std::max(1, cfg.max_generations));
  if (spent_key == "max_dollars") return fmt::format("--max-cost {:g}", 2 * cfg.max_dollars);
  if (spent_key == "max_wall_s") return fmt::format("--time-budget {:.0f}", 2 * cfg.max_wall_s);
  return "";
}

}  // namespace cuco
