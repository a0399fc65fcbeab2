#include "search/migration.h"

#include <set>

namespace cuco {

bool MigrationDue(int generation, int interval, int islands) {
  return islands > 1 && interval > 0 && generation > 0 && generation % interval == 0;
}

std::vector<Migration> PlanMigration(const std::vector<std::vector<Scored>>& populations, const MigrationParams& p) {
  std::vector<Migration> out;
  const int n = static_cast<int>(populations.size());
  std::vector<std::set<int64_t>> has(n);
  for (int i = 0; i < n; ++i)
    for (const auto& s : populations[i]) has[i].insert(s.id);
  if (p.kind == "graph") {
    for (const auto& [from, to] : p.edges) {
      if (from < 0 || to < 0 || from >= n || to >= n || from == to) continue;
      int sent = 0;
      for (const auto& s : RankByTime(populations[from])) {
        if (sent >= p.migrants) break;
        if (has[to].count(s.id)) continue;
        out.push_back({from, to, s.id});
        ++sent;
      }
    }
    return out;
  }
  // elitist: the global elites, each from the first island that holds it.
  std::vector<Scored> all;
  std::set<int64_t> seen;
  for (int i = 0; i < n; ++i)
    for (const auto& s : populations[i])
      if (seen.insert(s.id).second) all.push_back(s);
  int taken = 0;
  for (const auto& s : RankByTime(all)) {
    if (taken++ >= p.migrants) break;
    int from = 0;
    for (int i = 0; i < n; ++i)
      if (has[i].count(s.id)) {
        from = i;
        break;
      }
    for (int to = 0; to < n; ++to)
      if (!has[to].count(s.id)) out.push_back({from, to, s.id});
  }
  return out;
}

}  // namespace cuco
