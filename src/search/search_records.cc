#include "search/search_records.h"

#include "util/clock.h"
#include "util/sha256.h"

namespace cuco {

Result<bool> SearchRecords::Open(int per_generation, const std::string& workload_dir) {
  auto stored = store->GetMeta(kMetaState);
  if (!stored.ok()) return stored.status();
  auto count = store->Count();
  if (!count.ok()) return count.status();
  if (!stored->has_value()) {
    if (*count > 0)
      return Status::InvalidArgument(store->path() + ": holds candidates but no search state (a `cuco eval` store?); use a new run directory");
    state.per_generation = per_generation;
    CUCO_RETURN_IF_ERROR(store->PutMeta(kMetaWorkload, workload_dir));
    CUCO_RETURN_IF_ERROR(SaveLocked());
    return false;
  }
  auto loaded = SearchState::FromJson(**stored, store->path());
  if (!loaded.ok()) return loaded.status();
  state = std::move(*loaded);
  CUCO_RETURN_IF_ERROR(pop.Load(*store));
  return true;
}

std::vector<int64_t> SearchRecords::MarkUnfinishedPending(bool timings_available) {
  std::lock_guard<std::mutex> lock(mu);
  std::vector<int64_t> redo;
  for (auto& [id, c] : pop.all())
    if (c.rec.status == "pending" || (timings_available && c.rec.status == "skipped" && !c.not_evaluated)) {
      c.rec.status = "pending";
      redo.push_back(id);
    }
  return redo;
}

double SearchRecords::WallS() const {
  return state.wall_prior_s + std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
}

double SearchRecords::SessionMinutes() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count() / 60;
}

Status SearchRecords::SaveLocked() { return store->PutMeta(kMetaState, state.ToJson(WallS())); }

Status SearchRecords::AdvanceCursor(int next_slot) {
  std::lock_guard<std::mutex> lock(mu);
  state.next_slot = next_slot;
  return SaveLocked();
}

Result<int64_t> SearchRecords::InsertLocked(SearchCandidate c, int cursor_after) {
  const int saved_cursor = state.next_slot;
  c.FillStoredJson();
  c.rec.code_hash = Sha256Hex(c.rec.code);
  c.rec.created_ms = NowMs();
  c.rec.run_id = run_id;
  int64_t id = 0;
  state.next_slot = cursor_after;
  Status s = store->Transaction([&](CandidateStore& st) -> Status {
    auto r = st.Insert(c.rec);
    if (!r.ok()) return r.status();
    id = *r;
    return st.PutMeta(kMetaState, state.ToJson(WallS()));
  });
  if (!s.ok()) {
    state.next_slot = saved_cursor;
    return s;
  }
  c.rec.id = id;
  CUCO_RETURN_IF_ERROR(pop.Add(std::move(c)));
  return id;
}

void SearchRecords::CompleteLocked(int64_t id, const EvalRecord& er) {
  SearchCandidate& c = pop.at(id);
  c.rec.status = EvalStatusName(er.status);
  c.rec.time_ms = er.status == EvalStatus::kOk ? er.timing.median_ms : -1;
  c.rec.speedup = c.Ok() && state.reference_ms > 0 ? state.reference_ms / c.rec.time_ms : 0;
  c.search["reason"] = er.reason;
  if (lineage > 1) c.search["lineage"] = lineage;  // judged after an accepted change (run_binding.h)
  nlohmann::json m = er.ToJson();
  m["search"] = c.search;
  c.rec.metrics_json = m.dump();
  c.rec.feedback = pop.FeedbackText(c, state.reference_ms);
  c.rec.finished_ms = NowMs();
  CandidateRecord full = c.rec;
  full.logs = CollectLogs(er);
  Status s = store->Update(full);
  if (!s.ok() && store_error.empty()) store_error = s.message();
}

namespace {

// What progress lines and the result both say: the count, the best, the dollars.
template <typename Out>
void FillShared(const PopulationTally& t, const SearchState& state, Out* out) {
  out->candidates = t.counted;
  out->best_id = t.best_id;
  out->best_ms = t.best_ms;
  out->best_speedup = t.best_ms > 0 && state.reference_ms > 0 ? state.reference_ms / t.best_ms : 0;
  out->dollars = state.dollars;
}

}  // namespace

void SearchRecords::FillLocked(SearchProgress* p) const {
  const PopulationTally t = pop.Tally();
  FillShared(t, state, p);
  p->failures = t.failures;
  p->generation = state.generation;
  p->session_minutes = SessionMinutes();
}

void SearchRecords::FillLocked(SearchResult* r) const {
  const PopulationTally t = pop.Tally();
  FillShared(t, state, r);
  r->by_status = t.by_status;
  r->not_evaluated = t.not_evaluated;
  r->generations = state.generation;
  r->reference_id = state.reference_id;
  r->reference_ms = state.reference_ms;
  const SearchCandidate* ref = pop.Find(state.reference_id);
  r->reference_is_seed = !ref || ref->search.value("role", std::string()) == "seed";
}

}  // namespace cuco
