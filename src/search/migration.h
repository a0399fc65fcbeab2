// Migration between islands: every `interval` generations, good candidates are copied into
// other islands' populations (they become possible parents there; the candidate keeps its
// home island in the store).
//
//  - elitist: the `migrants` fastest candidates of the whole search go to every island that
//    lacks them.
//  - graph: along each edge [from, to], the `migrants` fastest of `from` that `to` lacks.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "search/selection.h"

namespace cuco {

struct Migration {
  int from = 0, to = 0;
  int64_t id = 0;
};

struct MigrationParams {
  std::string kind = "elitist";
  std::vector<std::pair<int, int>> edges;
  int migrants = 1;
};

// Whether generation `generation` (just finished) ends with a migration.
bool MigrationDue(int generation, int interval, int islands);

// populations[i]: island i's passing candidates (its own and earlier immigrants). Deterministic.
std::vector<Migration> PlanMigration(const std::vector<std::vector<Scored>>& populations, const MigrationParams& p);

}  // namespace cuco
