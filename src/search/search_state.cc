#include "search/search_state.h"

#include "search/search_candidate.h"

namespace cuco {

using json = nlohmann::json;

std::string SearchState::ToJson(double wall_s) const {
  json j;
  j["version"] = 1;
  j["generation"] = generation;
  j["next_slot"] = next_slot;
  j["per_generation"] = per_generation;
  json im = json::object();
  for (const auto& [island, ids] : immigrants) im[std::to_string(island)] = std::vector<int64_t>(ids.begin(), ids.end());
  j["immigrants"] = im;
  j["migrations"] = migrations;
  j["dollars"] = dollars;
  j["wall_s"] = wall_s;
  j["reference_id"] = reference_id;
  j["reference_ms"] = reference_ms;
  j["stop_reason"] = last_stop;
  return j.dump();
}

Result<SearchState> SearchState::FromJson(const std::string& text, const std::string& store_path) {
  json s = ParseJsonOr(text, json());
  if (!s.is_object() || s.value("version", 0) != 1) return Status::InvalidArgument(store_path + ": unreadable search state");
  SearchState st;
  st.generation = s.value("generation", 0);
  st.next_slot = s.value("next_slot", 0);
  st.per_generation = s.value("per_generation", 1);
  const json immigrants = s.value("immigrants", json::object());  // named: items() of a temporary dangles
  for (const auto& [k, v] : immigrants.items())
    for (const auto& id : v) st.immigrants[std::stoi(k)].insert(id.get<int64_t>());
  st.migrations = s.value("migrations", json::array());
  st.dollars = s.value("dollars", 0.0);
  st.wall_prior_s = s.value("wall_s", 0.0);
  st.reference_id = s.value("reference_id", int64_t{0});
  st.reference_ms = s.value("reference_ms", -1.0);
  return st;
}

bool SearchState::InIsland(int64_t id, int generation_of, int home_island, int island) const {
  if (generation_of == 0 || home_island == island) return true;
  auto it = immigrants.find(island);
  return it != immigrants.end() && it->second.count(id);
}

void SearchState::Record(int at_generation, const std::vector<Migration>& moves) {
  for (const auto& m : moves) {
    immigrants[m.to].insert(m.id);
    migrations.push_back({at_generation, m.from, m.to, m.id});
  }
}

}  // namespace cuco
