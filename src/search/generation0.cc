#include "search/generation0.h"

#include "edit/line_diff.h"

namespace cuco {

std::vector<SearchCandidate> Generation0Candidates(const WorkloadConfig& wl, const std::string& seed_code,
                                                   const std::string& gen0_code) {
  struct Entry {
    std::string code, role, file;
  };
  std::vector<Entry> entries;
  const bool same = gen0_code == seed_code;
  entries.push_back({gen0_code, same ? "seed" : "generation0", wl.generation0_file});
  if (!same) entries.push_back({seed_code, "seed", wl.seed_file});
  std::vector<SearchCandidate> out;
  for (size_t slot = 0; slot < entries.size(); ++slot) {
    const Entry& e = entries[slot];
    SearchCandidate c;
    c.rec.code = e.code;
    c.rec.mutation_kind = "seed";
    c.rec.proposer = "workload";
    c.rec.status = "pending";
    c.rec.feedback = e.role + ": " + e.file;
    if (e.role == "generation0")
      c.rec.diff_from_parent = UnifiedDiff(seed_code, gen0_code, wl.seed_file, wl.generation0_file);
    c.knobs = KnobsOf(e.code);
    c.search = {{"slot", static_cast<int>(slot)}, {"role", e.role}, {"file", e.file}};
    out.push_back(std::move(c));
  }
  return out;
}

const SearchCandidate* Generation0Reference(const Population& pop) {
  const SearchCandidate* seed = nullptr;
  const SearchCandidate* g0 = nullptr;
  for (const auto& [id, c] : pop.all()) {
    if (c.rec.generation != 0) continue;
    const std::string role = c.search.value("role", std::string());
    if (role == "seed") seed = &c;
    if (role == "generation0") g0 = &c;
  }
  return seed && seed->Ok() ? seed : (g0 && g0->Ok() ? g0 : nullptr);
}

Status RescoreGeneration0(Population& pop, double reference_ms, CandidateStore& store) {
  for (auto& [id, c] : pop.all()) {
    if (c.rec.generation != 0 || !c.Final()) continue;
    c.rec.speedup = c.Ok() && reference_ms > 0 ? reference_ms / c.rec.time_ms : 0;
    c.rec.feedback = pop.FeedbackText(c, reference_ms);
    auto full = store.Get(id);
    if (!full.ok()) return full.status();
    full->speedup = c.rec.speedup;
    full->feedback = c.rec.feedback;
    CUCO_RETURN_IF_ERROR(store.Update(*full));
  }
  return Status::Ok();
}

}  // namespace cuco
