// SearchState: where a search stands, persisted as the store's meta "search.state" (JSON, version
// 1) in the same transaction as each new candidate, so a killed run resumes exactly where it
// stopped: the generation and its next slot, the islands' immigrants and the migrations made, the
// dollars and wall time spent (earlier sessions), the reference (the seed's time) and the last
// stop reason.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "search/migration.h"
#include "util/status.h"

namespace cuco {

struct SearchState {
  int generation = 0;
  int next_slot = 0;
  int per_generation = 0;
  std::map<int, std::set<int64_t>> immigrants;               // island -> ids copied in by migration
  nlohmann::json migrations = nlohmann::json::array();       // [generation, from, to, id]
  double dollars = 0;
  double wall_prior_s = 0;                                   // wall time of earlier sessions
  int64_t reference_id = 0;
  double reference_ms = -1;
  std::string last_stop;

  // The stored JSON; `wall_s`: wall time of all sessions so far.
  std::string ToJson(double wall_s) const;
  // Reads ToJson's text; an error names `store_path`.
  static Result<SearchState> FromJson(const std::string& text, const std::string& store_path);

  // Whether a candidate (its id, generation and home island) belongs to `island`'s population:
  // generation 0 belongs to every island, immigrants to the islands they moved to.
  bool InIsland(int64_t id, int generation, int home_island, int island) const;
  // Records migrations made at the end of `generation`.
  void Record(int generation, const std::vector<Migration>& moves);
};

}  // namespace cuco
