#include "report/run_data.h"

#include <filesystem>

#include "search/evolution.h"
#include "search/gain_check.h"
#include "search/run_binding.h"
#include "util/files.h"

namespace cuco {
namespace fs = std::filesystem;

namespace {

const char* const kMetaKeys[] = {kMetaWorkload, kMetaConfig, kMetaState, kMetaSummary, kMetaProvenance, kMetaLineages,
                                 kMetaGainCheck};

std::string DbPath(const std::string& run_dir) {
  if (fs::is_regular_file(run_dir)) return run_dir;
  return (fs::path(run_dir) / "cuco.db").string();
}

}  // namespace

const CandidateRecord* RunData::Find(int64_t id) const {
  auto it = std::lower_bound(candidates.begin(), candidates.end(), id,
                             [](const CandidateRecord& c, int64_t v) { return c.id < v; });
  return it != candidates.end() && it->id == id ? &*it : nullptr;
}

const CandidateRecord* RunData::Seed() const {
  for (const auto& c : candidates)
    if (c.generation == 0) return &c;
  return candidates.empty() ? nullptr : &candidates.front();
}

const CandidateRecord* RunData::Best() const {
  const CandidateRecord* best = nullptr;
  for (const auto& c : candidates)
    if (c.status == "ok" && c.time_ms >= 0 && (!best || c.time_ms < best->time_ms)) best = &c;
  return best;
}

Result<std::unique_ptr<CandidateStore>> OpenRunStore(const std::string& run_dir) {
  const std::string db = DbPath(run_dir);
  if (!fs::exists(db))
    return Status::InvalidArgument(run_dir + ": not a run directory (no cuco.db; `cuco evolve --run-dir` makes one)");
  return CandidateStore::OpenReadOnly(db);  // viewers never write the store
}

Result<RunData> LoadRun(const std::string& run_dir, bool summary_only) {
  auto store = OpenRunStore(run_dir);
  if (!store.ok()) return store.status();
  RunData run;
  run.dir = run_dir;
  run.label = fs::path(run_dir).lexically_normal().filename().string();
  if (run.label.empty()) run.label = fs::path(run_dir).lexically_normal().parent_path().filename().string();
  for (const char* key : kMetaKeys) {
    auto v = (*store)->GetMeta(key);
    if (!v.ok()) return v.status();
    if (*v) run.meta[key] = **v;
  }
  run.workload_dir = run.meta.count("search.workload") ? run.meta["search.workload"] : "";
  ListQuery q;
  q.summary_only = summary_only;
  auto list = (*store)->List(q);
  if (!list.ok()) return list.status();
  run.candidates = std::move(*list);
  for (const auto& c : run.candidates) {
    if (c.generation == 0 || run.summaries.count(c.generation)) continue;
    auto s = (*store)->GetMeta(kMetaSummaryOfGeneration + std::to_string(c.generation));
    if (!s.ok()) return s.status();
    if (*s) run.summaries[c.generation] = **s;
  }
  const fs::path cfg = fs::path(run_dir) / "config.toml";
  if (auto text = fs::is_regular_file(cfg) ? ReadFile(cfg) : Result<std::string>(Status::NotFound("")); text.ok())
    run.config_text = *text;
  else if (run.meta.count("search.config"))
    run.config_text = run.meta["search.config"];
  return run;
}

Result<std::vector<CandidateRecord>> LoadCandidatesAfter(const std::string& run_dir, int64_t after_id) {
  auto store = OpenRunStore(run_dir);
  if (!store.ok()) return store.status();
  ListQuery q;
  q.after_id = after_id;
  return (*store)->List(q);
}

Result<int64_t> ResolveCandidateId(const RunData& run, const std::string& word) {
  const CandidateRecord* c = nullptr;
  if (word == "best") {
    c = run.Best();
    if (!c) return Status::NotFound(run.dir + ": no verified candidate yet");
  } else if (word == "seed") {
    c = run.Seed();
    if (!c) return Status::NotFound(run.dir + ": the run has no candidates");
  } else {
    char* end = nullptr;
    const long long id = std::strtoll(word.c_str(), &end, 10);
    if (word.empty() || *end != '\0' || id <= 0)
      return Status::InvalidArgument("'" + word + "': expected a candidate id (a positive integer), best or seed");
    c = run.Find(id);
    if (!c) return Status::NotFound(run.dir + ": no candidate " + word + " (ids 1.." +
                                    std::to_string(run.candidates.empty() ? 0 : run.candidates.back().id) + ")");
  }
  return c->id;
}

}  // namespace cuco
