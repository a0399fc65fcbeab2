#include "search/population.h"

#include <fmt/format.h>

namespace cuco {

Status Population::Load(CandidateStore& store) {
  ListQuery q;
  auto rows = store.List(q);
  if (!rows.ok()) return rows.status();
  for (auto& r : *rows) CUCO_RETURN_IF_ERROR(Add(SearchCandidate::FromRecord(std::move(r))));
  return Status::Ok();
}

Status Population::Add(SearchCandidate c) {
  const int64_t id = c.rec.id;
  hashes_.insert(c.rec.code_hash);
  if (!c.not_evaluated) CUCO_RETURN_IF_ERROR(novelty_.Add(id, c.rec.code));
  cands_[id] = std::move(c);
  return Status::Ok();
}

const SearchCandidate* Population::Find(int64_t id) const {
  auto it = cands_.find(id);
  return it == cands_.end() ? nullptr : &it->second;
}

int64_t Population::Counted(int below_generation) const {
  int64_t n = 0;
  for (const auto& [id, c] : cands_) n += !c.not_evaluated && c.rec.generation < below_generation;
  return n;
}

std::map<int, int64_t> Population::CountedPerGeneration() const {
  std::map<int, int64_t> per_gen;
  for (const auto& [id, c] : cands_)
    if (!c.not_evaluated) ++per_gen[c.rec.generation];
  return per_gen;
}

PopulationTally Population::Tally() const {
  PopulationTally t;
  for (const auto& [id, c] : cands_) {
    if (c.not_evaluated) {
      ++t.not_evaluated;
      continue;
    }
    ++t.counted;
    ++t.by_status[c.rec.status];
    if (c.Failed()) ++t.failures[c.rec.status];
    if (c.Ok() && (t.best_id == 0 || c.rec.time_ms < t.best_ms)) {
      t.best_id = id;
      t.best_ms = c.rec.time_ms;
    }
  }
  return t;
}

double Population::BestIntervalHiMs() const {
  const PopulationTally t = Tally();
  if (t.best_id == 0) return 0;
  const nlohmann::json m = ParseJsonOr(at(t.best_id).rec.metrics_json, nlohmann::json::object());
  static const nlohmann::json::json_pointer kHi("/timing/median_interval_ms/1");
  if (m.contains(kHi) && m[kHi].is_number() && m[kHi].get<double>() > 0) return m[kHi].get<double>();
  return t.best_ms;
}

bool Population::Improved(const SearchCandidate& c) const {
  const SearchCandidate* parent = Find(c.rec.parent_id);
  return c.Ok() && parent && parent->Ok() && c.rec.time_ms < parent->rec.time_ms;
}

std::string Population::FeedbackText(const SearchCandidate& c, double reference_ms) const {
  std::string s;
  if (c.Ok()) {
    s = fmt::format("ok {:.4g} ms", c.rec.time_ms);
    if (reference_ms > 0) s += fmt::format(", {:.2f}x over seed", reference_ms / c.rec.time_ms);
    const SearchCandidate* p = Find(c.rec.parent_id);
    if (p && p->Ok())
      s += fmt::format(", {:+.1f}% over parent #{} ({:.4g} ms)", (p->rec.time_ms / c.rec.time_ms - 1) * 100,
                       c.rec.parent_id, p->rec.time_ms);
  } else {
    const bool has_reason = !c.search.value("reason", std::string()).empty();
    s = c.rec.status + (has_reason ? ": " + c.ReasonLine() : "");
  }
  const std::string what = c.search.value("description", std::string());
  if (!what.empty()) s += " [change: " + what + "]";
  return s;
}

}  // namespace cuco
