#include "search/archive.h"

#include <algorithm>

namespace cuco {

std::string Archive::CellKey(const std::map<std::string, std::string>& features) const {
  std::string key;
  if (features_.empty()) {
    for (const auto& [k, v] : features) key += (key.empty() ? "" : ",") + k + "=" + v;
    return key;
  }
  for (const auto& f : features_) {
    auto it = features.find(f);
    key += (key.empty() ? "" : ",") + f + "=" + (it == features.end() ? "?" : it->second);
  }
  return key;
}

bool Archive::Offer(int64_t id, double time_ms, const std::map<std::string, std::string>& features) {
  ArchiveEntry e{id, time_ms, CellKey(features)};
  auto pos = std::lower_bound(all_.begin(), all_.end(), e, [](const ArchiveEntry& a, const ArchiveEntry& b) {
    return a.time_ms != b.time_ms ? a.time_ms < b.time_ms : a.id < b.id;
  });
  all_.insert(pos, e);
  auto it = cells_.find(e.cell);
  if (it == cells_.end()) {
    cells_[e.cell] = e;
    return true;
  }
  ArchiveEntry& elite = it->second;
  if (time_ms < elite.time_ms || (time_ms == elite.time_ms && id < elite.id)) {
    elite = e;
    return true;
  }
  return elite.id == id;
}

std::vector<int64_t> Archive::TopK(int k, const std::set<int64_t>& exclude) const {
  std::vector<int64_t> out;
  for (const auto& e : all_) {
    if (static_cast<int>(out.size()) >= k) break;
    if (!exclude.count(e.id)) out.push_back(e.id);
  }
  return out;
}

std::vector<int64_t> Archive::ElitePicks(int n, const std::set<int64_t>& exclude, Rng& rng) const {
  std::vector<int64_t> elites;
  for (const auto& [cell, e] : cells_)
    if (!exclude.count(e.id)) elites.push_back(e.id);
  rng.Shuffle(&elites);
  if (static_cast<int>(elites.size()) > n) elites.resize(std::max(0, n));
  return elites;
}

}  // namespace cuco
