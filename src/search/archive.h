// Archive: a MAP-Elites map of the design space. Each passing candidate falls into the cell
// named by its feature values (for knob-marked code: the values of the chosen feature knobs,
// e.g. backend=ce,chunks=4); a cell keeps its fastest candidate (its elite). The search shows
// the proposer the overall top-k and elites of other cells, so good ideas from different
// regions of the space stay in view.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "search/rng.h"

namespace cuco {

struct ArchiveEntry {
  int64_t id = 0;
  double time_ms = 0;
  std::string cell;
};

class Archive {
 public:
  // feature_knobs: the features that key a cell (in this order); empty = every feature given.
  explicit Archive(std::vector<std::string> feature_knobs = {}) : features_(std::move(feature_knobs)) {}

  // "k1=v1,k2=v2"; a missing feature reads "?".
  std::string CellKey(const std::map<std::string, std::string>& features) const;
  // Adds a passing candidate; true when it became (or stays) its cell's elite. Ties keep the
  // older (lower) id.
  bool Offer(int64_t id, double time_ms, const std::map<std::string, std::string>& features);

  const std::map<std::string, ArchiveEntry>& cells() const { return cells_; }
  size_t size() const { return all_.size(); }
  // The k fastest ids offered (ties: older first), without `exclude`.
  std::vector<int64_t> TopK(int k, const std::set<int64_t>& exclude = {}) const;
  // Up to n elites of distinct cells, drawn at random, none in `exclude`.
  std::vector<int64_t> ElitePicks(int n, const std::set<int64_t>& exclude, Rng& rng) const;

 private:
  std::vector<std::string> features_;
  std::map<std::string, ArchiveEntry> cells_;
  std::vector<ArchiveEntry> all_;  // kept sorted by (time, id)
};

}  // namespace cuco
