#include "search/evolution.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "llm/embedding_client.h"
#include "search/novelty.h"
#include "search/archive.h"
#include "edit/line_diff.h"
#include "search/meta_summary.h"
#include "search/migration.h"
#include "search/rng.h"
#include "search/selection.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/sha256.h"
#include "workload/knob_marks.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using json = nlohmann::json;

json ParseOr(const std::string& text, json fallback) {
  if (text.empty()) return fallback;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? fallback : j;
}

std::map<std::string, std::string> KnobsOf(const std::string& code) {
  auto marks = FindKnobMarks(code, "candidate");
  return marks.ok() ? KnobValues(*marks) : std::map<std::string, std::string>{};
}

std::string FirstLine(const std::string& s) {
  size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

// One stored candidate as the search keeps it in memory (logs left out).
struct Cand {
  CandidateRecord rec;
  std::map<std::string, std::string> knobs;
  json search = json::object();  // the "search" object of metrics_json: slot, attempt, description, ...
  bool not_evaluated = false;    // skipped by the novelty filter: never counted, never evaluated
  bool Ok() const { return rec.status == "ok" && rec.time_ms > 0; }
  bool Final() const { return rec.status != "pending"; }
  bool Failed() const { return Final() && !not_evaluated && rec.status != "ok" && rec.status != "skipped"; }
};

}  // namespace

struct Evolution::Impl {
  const WorkloadConfig& wl;
  RunConfig cfg;
  CandidateStore* store;
  Proposer* proposer;
  EvaluateFn evaluate;
  SearchOptions opt;

  std::string seed_code, gen0_code;

  // The persisted state (meta "search.state").
  int generation = 0;
  int next_slot = 0;
  int per_generation = 0;
  std::map<int, std::set<int64_t>> immigrants;  // island -> ids copied in by migration
  json migrations = json::array();               // [generation, from, to, id]
  double dollars = 0;
  double wall_prior_s = 0;
  int64_t reference_id = 0;
  double reference_ms = -1;
  std::string last_stop;
  std::string phase;  // of the current generation (for progress lines)

  // Everything below is guarded by mu (workers update records and the store).
  std::mutex mu;
  std::condition_variable cv;
  std::map<int64_t, Cand> cands;
  std::set<std::string> hashes;  // every stored code
  NoveltyIndex novelty;
  std::deque<int64_t> queue;
  int in_flight = 0;
  bool shutting_down = false;
  std::deque<int64_t> finished;  // for Proposer::Feedback on the main thread
  std::string store_error;
  int64_t session_done = 0;

  std::vector<std::thread> workers;
  std::map<int64_t, Proposal> proposals;  // in flight, this session (main thread only)
  Clock::time_point session_start = Clock::now();
  SearchResult result;

  Impl(const WorkloadConfig& w, RunConfig c, CandidateStore* s, Proposer* p, EvaluateFn e, SearchOptions o)
      : wl(w), cfg(std::move(c)), store(s), proposer(p), evaluate(std::move(e)), opt(std::move(o)), novelty(cfg.shingle_tokens) {}

  ~Impl() { StopWorkers(); }

  double WallS() const { return wall_prior_s + std::chrono::duration<double>(Clock::now() - session_start).count(); }

  json StateJson() const {
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
    j["wall_s"] = WallS();
    j["reference_id"] = reference_id;
    j["reference_ms"] = reference_ms;
    j["stop_reason"] = last_stop;
    return j;
  }

  Status SaveState() { return store->PutMeta(kMetaState, StateJson().dump()); }

  // ---- loading ------------------------------------------------------------------------------

  Status Load() {
    auto state = store->GetMeta(kMetaState);
    if (!state.ok()) return state.status();
    auto count = store->Count();
    if (!count.ok()) return count.status();
    if (!state->has_value()) {
      if (*count > 0)
        return Status::InvalidArgument(store->path() + ": holds candidates but no search state (a `cuco eval` store?); use a new run directory");
      // Default: one proposal per evaluation in flight (the GPU groups plus the compiles that
      // overlap their runs), at least one per island.
      per_generation = cfg.per_generation > 0 ? cfg.per_generation : std::max(std::max(1, opt.evaluations), cfg.islands);
      CUCO_RETURN_IF_ERROR(store->PutMeta(kMetaWorkload, wl.dir.string()));
      return SaveState();
    }
    result.resumed = true;
    json s = ParseOr(**state, json());
    if (!s.is_object() || s.value("version", 0) != 1) return Status::InvalidArgument(store->path() + ": unreadable search state");
    generation = s.value("generation", 0);
    next_slot = s.value("next_slot", 0);
    per_generation = s.value("per_generation", 1);
    for (const auto& [k, v] : s.value("immigrants", json::object()).items())
      for (const auto& id : v) immigrants[std::stoi(k)].insert(id.get<int64_t>());
    migrations = s.value("migrations", json::array());
    dollars = s.value("dollars", 0.0);
    wall_prior_s = s.value("wall_s", 0.0);
    reference_id = s.value("reference_id", int64_t{0});
    reference_ms = s.value("reference_ms", -1.0);

    ListQuery q;
    auto rows = store->List(q);
    if (!rows.ok()) return rows.status();
    for (auto& r : *rows) {
      Cand c;
      r.logs.clear();
      c.rec = std::move(r);
      json m = ParseOr(c.rec.metrics_json, json::object());
      if (m.is_object() && m.contains("search")) c.search = m["search"];
      c.not_evaluated = c.search.is_object() && c.search.contains("not_evaluated");
      json f = ParseOr(c.rec.features_json, json::object());
      if (f.is_object())
        for (const auto& [k, v] : f.items())
          if (v.is_string()) c.knobs[k] = v.get<std::string>();
      hashes.insert(c.rec.code_hash);
      if (!c.not_evaluated) CUCO_RETURN_IF_ERROR(novelty.Add(c.rec.id, c.rec.code));
      cands[c.rec.id] = std::move(c);
    }
    return Status::Ok();
  }

  // ---- workers ------------------------------------------------------------------------------

  void StartWorkers() {
    for (int i = 0; i < std::max(1, opt.evaluations); ++i) workers.emplace_back([this] { WorkerLoop(); });
  }

  void StopWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu);
      shutting_down = true;
    }
    cv.notify_all();
    for (auto& t : workers)
      if (t.joinable()) t.join();
    workers.clear();
  }

  void WorkerLoop() {
    while (true) {
      int64_t id = 0;
      std::string code;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return shutting_down || !queue.empty(); });
        if (queue.empty()) return;
        id = queue.front();
        queue.pop_front();
        code = cands.at(id).rec.code;
      }
      const fs::path dir = opt.run_dir / "candidates" / std::to_string(id);
      const fs::path file = dir / ("candidate" + opt.code_extension);
      MakeDirs(dir);
      WriteFileAtomic(file, code);
      EvalRecord er = evaluate(code, file.string(), dir);
      {
        std::lock_guard<std::mutex> lock(mu);
        Complete(id, er);
        --in_flight;
        ++session_done;
        finished.push_back(id);
      }
      cv.notify_all();
    }
  }

  void Dispatch(int64_t id) {
    {
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(id);
      ++in_flight;
    }
    cv.notify_all();
  }

  // The evaluator's account of a candidate, for the store and later proposals. Caller holds mu.
  std::string FeedbackText(const Cand& c) const {
    std::string s;
    if (c.Ok()) {
      s = fmt::format("ok {:.4g} ms", c.rec.time_ms);
      if (reference_ms > 0) s += fmt::format(", {:.2f}x over seed", reference_ms / c.rec.time_ms);
      auto p = cands.find(c.rec.parent_id);
      if (p != cands.end() && p->second.Ok())
        s += fmt::format(", {:+.1f}% over parent #{} ({:.4g} ms)", (p->second.rec.time_ms / c.rec.time_ms - 1) * 100,
                         c.rec.parent_id, p->second.rec.time_ms);
    } else {
      std::string reason = c.search.value("reason", std::string());
      s = c.rec.status + (reason.empty() ? "" : ": " + FirstLine(reason));
    }
    const std::string what = c.search.value("description", std::string());
    if (!what.empty()) s += " [change: " + what + "]";
    return s;
  }

  // Records an evaluation. Caller holds mu.
  void Complete(int64_t id, const EvalRecord& er) {
    Cand& c = cands.at(id);
    c.rec.status = EvalStatusName(er.status);
    c.rec.time_ms = er.status == EvalStatus::kOk ? er.timing.median_ms : -1;
    c.rec.speedup = c.Ok() && reference_ms > 0 ? reference_ms / c.rec.time_ms : 0;
    c.search["reason"] = er.reason;
    json m = er.ToJson();
    m["search"] = c.search;
    c.rec.metrics_json = m.dump();
    c.rec.feedback = FeedbackText(c);
    c.rec.finished_ms = NowMs();
    CandidateRecord full = c.rec;
    full.logs = CollectLogs(er);
    Status s = store->Update(full);
    if (!s.ok() && store_error.empty()) store_error = s.message();
  }

  // Waits until every dispatched candidate is evaluated, reporting progress on the way.
  void WaitAll() { WaitUntilInFlightAtMost(0); }

  // Waits until at most `n` dispatched candidates are still being evaluated (WaitAll: n = 0).
  void WaitUntilInFlightAtMost(int n) {
    while (true) {
      std::vector<int64_t> done;
      bool enough = false;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait_for(lock, std::chrono::seconds(1), [&] { return !finished.empty() || in_flight <= n; });
        done.assign(finished.begin(), finished.end());
        finished.clear();
        enough = in_flight <= n;
      }
      DeliverFeedback(done);
      Report();
      if (enough) return;
    }
  }

  void DeliverFeedback(const std::vector<int64_t>& done) {
    for (int64_t id : done) {
      auto p = proposals.find(id);
      if (p == proposals.end()) continue;
      bool ok = false, improved = false;
      {
        std::lock_guard<std::mutex> lock(mu);
        const Cand& c = cands.at(id);
        ok = c.Ok();
        auto parent = cands.find(c.rec.parent_id);
        improved = ok && parent != cands.end() && parent->second.Ok() && c.rec.time_ms < parent->second.rec.time_ms;
      }
      proposer->Feedback(p->second, improved, ok);
      proposals.erase(p);
    }
  }

  // ---- progress and results -----------------------------------------------------------------

  SearchProgress Progress() {
    std::lock_guard<std::mutex> lock(mu);
    SearchProgress p;
    p.generation = generation;
    p.phase = phase;
    p.in_flight = in_flight;
    p.session_done = session_done;
    p.session_minutes = std::chrono::duration<double>(Clock::now() - session_start).count() / 60;
    p.dollars = dollars;
    for (const auto& [id, c] : cands) {
      if (c.not_evaluated) continue;
      ++p.candidates;
      if (c.Failed()) ++p.failures[c.rec.status];
      if (c.Ok() && (p.best_id == 0 || c.rec.time_ms < p.best_ms)) {
        p.best_id = id;
        p.best_ms = c.rec.time_ms;
      }
    }
    if (p.best_ms > 0 && reference_ms > 0) p.best_speedup = reference_ms / p.best_ms;
    return p;
  }

  void Report() {
    if (opt.on_progress) opt.on_progress(Progress());
  }

  void Finish() {
    std::lock_guard<std::mutex> lock(mu);
    result.generations = generation;
    result.reference_id = reference_id;
    result.reference_ms = reference_ms;
    auto ref = cands.find(reference_id);
    result.reference_is_seed = ref == cands.end() || ref->second.search.value("role", std::string()) == "seed";
    result.dollars = dollars;
    result.by_status.clear();
    result.candidates = result.not_evaluated = 0;
    result.best_id = 0;
    result.best_ms = -1;
    result.best_speedup = 0;
    for (const auto& [id, c] : cands) {
      if (c.not_evaluated) {
        ++result.not_evaluated;
        continue;
      }
      ++result.candidates;
      ++result.by_status[c.rec.status];
      if (c.Ok() && (result.best_id == 0 || c.rec.time_ms < result.best_ms)) {
        result.best_id = id;
        result.best_ms = c.rec.time_ms;
      }
    }
    if (result.best_ms > 0 && reference_ms > 0) result.best_speedup = reference_ms / result.best_ms;
  }

  // ---- inserting ----------------------------------------------------------------------------

  // Stores a new candidate and moves the cursor past `slot_done_after` in one transaction.
  // Caller holds mu.
  Result<int64_t> InsertLocked(Cand c, int cursor_after) {
    const int saved_cursor = next_slot;
    json m = json::object();
    m["search"] = c.search;
    c.rec.metrics_json = m.dump();
    c.rec.code_hash = Sha256Hex(c.rec.code);
    c.rec.created_ms = NowMs();
    c.rec.run_id = opt.run_dir.filename().string();
    json f = json::object();
    for (const auto& [k, v] : c.knobs) f[k] = v;
    c.rec.features_json = f.dump();
    int64_t id = 0;
    next_slot = cursor_after;
    Status s = store->Transaction([&](CandidateStore& st) -> Status {
      auto r = st.Insert(c.rec);
      if (!r.ok()) return r.status();
      id = *r;
      return st.PutMeta(kMetaState, StateJson().dump());
    });
    if (!s.ok()) {
      next_slot = saved_cursor;
      return s;
    }
    c.rec.id = id;
    hashes.insert(c.rec.code_hash);
    if (!c.not_evaluated) {
      Status n = novelty.Add(id, c.rec.code);
      if (!n.ok()) return n;
    }
    cands[id] = std::move(c);
    return id;
  }

  int64_t CountedLocked(int below_generation = INT32_MAX) const {
    int64_t n = 0;
    for (const auto& [id, c] : cands) n += !c.not_evaluated && c.rec.generation < below_generation;
    return n;
  }

  // ---- budget -------------------------------------------------------------------------------

  std::string BudgetReason() {
    if (opt.interrupt && opt.interrupt->load()) return "interrupted (continue with --resume)";
    int64_t counted;
    {
      std::lock_guard<std::mutex> lock(mu);
      counted = CountedLocked();
    }
    if (cfg.max_candidates > 0 && counted >= cfg.max_candidates)
      return fmt::format("budget: max_candidates ({}) reached", cfg.max_candidates);
    if (cfg.max_dollars > 0 && dollars >= cfg.max_dollars)
      return fmt::format("budget: max_dollars (${:.2f}) reached (${:.2f} spent)", cfg.max_dollars, dollars);
    if (cfg.max_wall_s > 0 && WallS() >= cfg.max_wall_s) return fmt::format("budget: max_wall_s ({:.0f} s) reached", cfg.max_wall_s);
    return "";
  }

  // ---- generation 0 -------------------------------------------------------------------------

  Status RunGeneration0() {
    struct Entry {
      std::string code, role, file;
    };
    std::vector<Entry> entries;
    const bool same = gen0_code == seed_code;
    entries.push_back({gen0_code, same ? "seed" : "generation0", wl.generation0_file});
    if (!same) entries.push_back({seed_code, "seed", wl.seed_file});
    for (int slot = next_slot; slot < static_cast<int>(entries.size()); ++slot) {
      const Entry& e = entries[slot];
      Cand c;
      c.rec.code = e.code;
      c.rec.mutation_kind = "seed";
      c.rec.proposer = "workload";
      c.rec.status = "pending";
      c.rec.feedback = e.role + ": " + e.file;
      if (e.role == "generation0")
        c.rec.diff_from_parent = UnifiedDiff(seed_code, gen0_code, wl.seed_file, wl.generation0_file);
      c.knobs = KnobsOf(e.code);
      c.search = {{"slot", slot}, {"role", e.role}, {"file", e.file}};
      int64_t id;
      {
        std::lock_guard<std::mutex> lock(mu);
        auto r = InsertLocked(std::move(c), slot + 1);
        if (!r.ok()) return r.status();
        id = *r;
      }
      Dispatch(id);
    }
    WaitAll();
    std::lock_guard<std::mutex> lock(mu);
    if (!store_error.empty()) return Status::IOError(store_error);
    // The reference: the seed's time; the generation0 file's when the seed has none.
    const Cand* seed = nullptr;
    const Cand* g0 = nullptr;
    for (const auto& [id, c] : cands) {
      if (c.rec.generation != 0) continue;
      const std::string role = c.search.value("role", std::string());
      if (role == "seed") seed = &c;
      if (role == "generation0") g0 = &c;
    }
    const Cand* ref = seed && seed->Ok() ? seed : (g0 && g0->Ok() ? g0 : nullptr);
    if (ref) {
      reference_id = ref->rec.id;
      reference_ms = ref->rec.time_ms;
    }
    for (auto& [id, c] : cands) {
      if (c.rec.generation != 0 || !c.Final()) continue;
      c.rec.speedup = c.Ok() && reference_ms > 0 ? reference_ms / c.rec.time_ms : 0;
      c.rec.feedback = FeedbackText(c);
      auto full = store->Get(id);
      if (!full.ok()) return full.status();
      full->speedup = c.rec.speedup;
      full->feedback = c.rec.feedback;
      CUCO_RETURN_IF_ERROR(store->Update(*full));
    }
    return Status::Ok();
  }

  // ---- generations >= 1 ---------------------------------------------------------------------

  struct GenContext {
    std::string phase;
    Archive archive;
    std::string summary;
    std::vector<std::vector<Scored>> populations;  // per island: passing candidates (generation < G)
    std::vector<Scored> everyone;                  // every passing candidate
    std::vector<int64_t> failures_by_recency;      // failed candidates, newest first
  };

  bool InIsland(const Cand& c, int island) const {
    if (c.rec.generation == 0 || c.rec.island == island) return true;
    auto it = immigrants.find(island);
    return it != immigrants.end() && it->second.count(c.rec.id);
  }

  GenContext BuildContext(int g) {
    std::lock_guard<std::mutex> lock(mu);
    GenContext ctx{cfg.PhaseAt(g, CountedLocked(g)), Archive(cfg.feature_knobs), "", {}, {}, {}};
    phase = ctx.phase;
    ctx.populations.resize(cfg.islands);
    for (const auto& [id, c] : cands) {
      if (c.rec.generation >= g || c.not_evaluated) continue;
      if (c.Ok()) {
        std::map<std::string, std::string> features = c.knobs;
        ctx.archive.Offer(id, c.rec.time_ms, features);
        ctx.everyone.push_back({id, c.rec.time_ms, 0});
        for (int i = 0; i < cfg.islands; ++i)
          if (InIsland(c, i)) ctx.populations[i].push_back({id, c.rec.time_ms, 0});
      }
    }
    for (auto it = cands.rbegin(); it != cands.rend(); ++it)
      if (it->second.rec.generation < g && it->second.Failed()) ctx.failures_by_recency.push_back(it->first);
    // The meta-summary is refreshed every summary_interval generations.
    const int gs = g - ((g - 1) % cfg.summary_interval);
    std::vector<SummaryItem> items;
    for (const auto& [id, c] : cands) {
      if (c.rec.generation >= gs || c.not_evaluated || !c.Final()) continue;
      items.push_back({id, c.rec.status, c.rec.time_ms, c.knobs, c.rec.mutation_kind,
                       c.Ok() ? "" : FirstLine(c.search.value("reason", c.rec.feedback))});
    }
    ctx.summary = MetaSummary(items, wl.knobs, reference_ms, gs - 1);
    return ctx;
  }

  CandidateView View(const Cand& c) const {
    CandidateView v;
    v.id = c.rec.id;
    v.code = c.rec.code;
    v.status = c.rec.status;
    v.time_ms = c.rec.time_ms;
    v.speedup = c.rec.speedup;
    v.feedback = c.rec.feedback;
    v.knobs = c.knobs;
    v.mutation_kind = c.rec.mutation_kind;
    return v;
  }

  std::string DrawKind(const PhaseMix& mix, bool crossover_possible, Rng& rng) const {
    std::vector<double> w = {mix.knobs, mix.diff, mix.rewrite, crossover_possible ? mix.crossover : 0.0};
    static const char* const kNames[] = {"knobs", "diff", "rewrite", "crossover"};
    if (!(w[0] + w[1] + w[2] + w[3] > 0)) return "knobs";
    return kNames[rng.Weighted(w)];
  }

  struct SlotOutcome {
    bool stored = false;     // a candidate was stored (evaluated or a failed proposal)
    bool exhausted = false;
    std::string exhausted_why;
  };

  // Proposes for one slot of generation g: up to max_attempts proposals until one is new.
  Result<SlotOutcome> ProposeSlot(int g, int slot, const GenContext& gc) {
    SlotOutcome out;
    const int island = slot % cfg.islands;
    const PhaseMix& mix = cfg.Mix(gc.phase);
    SelectionParams sel{cfg.selection, cfg.exploitation, cfg.fitness_lambda, cfg.beam_width};
    const uint64_t island_seed = cfg.seed + static_cast<uint64_t>(island) * cfg.island_seed_offset;
    for (int attempt = 0; attempt < cfg.max_attempts; ++attempt) {
      Rng rng(DeriveSeed(island_seed, {static_cast<uint64_t>(g), static_cast<uint64_t>(slot), static_cast<uint64_t>(attempt)}));
      ProposalContext ctx;
      ctx.workload = &wl;
      ctx.seed_code = seed_code;
      ctx.island = island;
      ctx.generation = g;
      ctx.phase = gc.phase;
      ctx.temperature = mix.temperature;
      ctx.meta_summary = gc.summary;
      ctx.hardware = opt.hardware;
      ctx.comm_api = opt.comm_api;
      auto spec = cfg.island_specs.find(island);
      if (spec != cfg.island_specs.end()) {
        ctx.allowed_knobs = spec->second.knobs;
        ctx.island_prompt = spec->second.prompt;
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        // Parent: from the island's passing candidates (children counted so far), else anyone's.
        std::vector<Scored> pool = gc.populations[island].empty() ? gc.everyone : gc.populations[island];
        for (auto& s : pool)
          for (const auto& [id, c] : cands) s.children += !c.not_evaluated && c.rec.parent_id == s.id;
        const int64_t parent_id = SelectParent(pool, sel, rng);
        if (parent_id == 0) return Status::Internal("no passing candidate to select a parent from");
        ctx.mutation_kind = DrawKind(mix, gc.archive.size() >= 2, rng);
        ctx.parent = View(cands.at(parent_id));
        // Inspirations: crossover partners first, then the top-k, then elites of other cells.
        std::vector<int64_t> top = gc.archive.TopK(cfg.top_k, {parent_id});
        std::set<int64_t> exclude(top.begin(), top.end());
        exclude.insert(parent_id);
        std::vector<int64_t> picks = gc.archive.ElitePicks(cfg.cell_picks, exclude, rng);
        std::vector<int64_t> order;
        if (ctx.mutation_kind == "crossover") {
          std::vector<int64_t> partners = top;
          partners.insert(partners.end(), picks.begin(), picks.end());
          if (partners.empty())
            for (const auto& s : gc.everyone)
              if (s.id != parent_id) partners.push_back(s.id);
          rng.Shuffle(&partners);
          if (partners.size() > 2) partners.resize(2);
          order = partners;
        }
        for (int64_t id : top) order.push_back(id);
        for (int64_t id : picks) order.push_back(id);
        std::set<int64_t> seen;
        for (int64_t id : order)
          if (seen.insert(id).second) ctx.inspirations.push_back(View(cands.at(id)));
        // Recent failures, this island's first.
        std::vector<int64_t> fails;
        for (int64_t id : gc.failures_by_recency)
          if (cands.at(id).rec.island == island && static_cast<int>(fails.size()) < cfg.recent_failures) fails.push_back(id);
        for (int64_t id : gc.failures_by_recency)
          if (static_cast<int>(fails.size()) < cfg.recent_failures && std::find(fails.begin(), fails.end(), id) == fails.end())
            fails.push_back(id);
        for (int64_t id : fails) ctx.failures.push_back(View(cands.at(id)));
      }
      ctx.rng_seed = rng.Next();
      ctx.already_tried = [this](const std::string& code) {
        std::lock_guard<std::mutex> lock(mu);
        return hashes.count(Sha256Hex(code)) > 0;
      };

      auto proposed = proposer->Propose(ctx);
      if (!proposed.ok()) return proposed.status();
      Proposal& p = *proposed;
      dollars += p.dollars;
      if (!p.exhausted && p.failure.empty() && p.code.empty()) p.failure = "the proposer returned no code";
      if (p.exhausted) {
        out.exhausted = true;
        out.exhausted_why = p.description;
        return out;
      }
      // The proposer may have mutated one of the inspirations instead of the selected parent.
      const CandidateView* parent = &ctx.parent;
      for (const auto& v : ctx.inspirations)
        if (p.parent_id > 0 && v.id == p.parent_id) parent = &v;
      Cand c;
      c.rec.code = p.code;
      c.rec.parent_id = parent->id;
      c.rec.extra_parent_ids = p.extra_parent_ids;
      c.rec.mutation_kind = p.mutation_kind.empty() ? ctx.mutation_kind : p.mutation_kind;
      c.rec.proposer = proposer->Name();
      c.rec.island = island;
      c.rec.generation = g;
      c.knobs = KnobsOf(p.code);
      c.search = {{"slot", slot},          {"attempt", attempt},        {"phase", gc.phase},
                  {"requested", ctx.mutation_kind}, {"description", p.description}, {"dollars", p.dollars},
                  {"input_tokens", p.input_tokens}, {"output_tokens", p.output_tokens}, {"model", p.model}};
      const std::string hash = Sha256Hex(p.code);
      std::lock_guard<std::mutex> lock(mu);
      if (!p.failure.empty()) {
        // An unusable answer: stored as a failed candidate, never evaluated.
        c.rec.status = "rejected";
        c.search["reason"] = "proposal failed: " + p.failure;
        c.rec.feedback = FeedbackText(c);
        c.rec.finished_ms = NowMs();
        auto r = InsertLocked(std::move(c), slot + 1);
        if (!r.ok()) return r.status();
        out.stored = true;
        return out;
      }
      if (hashes.count(hash)) {  // an exact repeat: dropped, never stored or evaluated again
        ++result.duplicates;
        continue;
      }
      if (std::find(cfg.novelty_kinds.begin(), cfg.novelty_kinds.end(), c.rec.mutation_kind) != cfg.novelty_kinds.end()) {
        auto near = novelty.Query(p.code);
        if (!near.ok()) return near.status();
        if (near->id != 0 && near->similarity >= cfg.novelty_threshold) {
          c.not_evaluated = true;
          c.rec.status = "skipped";
          c.search["not_evaluated"] = "novelty";
          c.search["similar_to"] = near->id;
          c.search["similarity"] = near->similarity;
          c.search["reason"] = fmt::format("not evaluated: {:.3f} similar to #{} (novelty.threshold {})", near->similarity,
                                           near->id, cfg.novelty_threshold);
          c.rec.feedback = FeedbackText(c);
          c.rec.finished_ms = NowMs();
          auto r = InsertLocked(std::move(c), slot);  // the slot is not used up: try again
          if (!r.ok()) return r.status();
          continue;
        }
      }
      c.rec.diff_from_parent = UnifiedDiff(parent->code, p.code, fmt::format("#{} (parent)", parent->id), "new candidate");
      c.rec.status = "pending";
      c.rec.feedback = p.description;
      auto r = InsertLocked(std::move(c), slot + 1);
      if (!r.ok()) return r.status();
      proposals[*r] = std::move(p);
      {
        queue.push_back(*r);
        ++in_flight;
      }
      cv.notify_all();
      out.stored = true;
      return out;
    }
    // Every attempt was a repeat or too similar: the slot is given up.
    std::lock_guard<std::mutex> lock(mu);
    next_slot = slot + 1;
    CUCO_RETURN_IF_ERROR(SaveState());
    return out;
  }

  Status Migrate(int g) {
    if (!MigrationDue(g, cfg.migration_interval, cfg.islands)) return Status::Ok();
    std::lock_guard<std::mutex> lock(mu);
    std::vector<std::vector<Scored>> pops(cfg.islands);
    for (const auto& [id, c] : cands)
      if (c.Ok() && c.rec.generation <= g)
        for (int i = 0; i < cfg.islands; ++i)
          if (InIsland(c, i)) pops[i].push_back({id, c.rec.time_ms, 0});
    MigrationParams mp{cfg.migration_kind, cfg.migration_edges, cfg.migrants};
    for (const auto& m : PlanMigration(pops, mp)) {
      immigrants[m.to].insert(m.id);
      migrations.push_back({g, m.from, m.to, m.id});
    }
    return Status::Ok();
  }

  Status RunGenerations() {
    while (true) {
      const int g = generation;
      if (cfg.max_generations > 0 && g > cfg.max_generations) {
        result.stop_reason = fmt::format("budget: max_generations ({}) done", cfg.max_generations);
        return Status::Ok();
      }
      GenContext gc = BuildContext(g);
      {
        std::lock_guard<std::mutex> lock(mu);
        CUCO_RETURN_IF_ERROR(store->PutMeta(kMetaSummary, gc.summary));
      }
      Report();
      std::string stop;
      std::set<int> exhausted;
      std::string exhausted_why;
      for (int slot = next_slot; slot < per_generation; ++slot) {
        stop = BudgetReason();
        if (!stop.empty()) break;
        const int island = slot % cfg.islands;
        if (exhausted.count(island)) {
          std::lock_guard<std::mutex> lock(mu);
          next_slot = slot + 1;
          CUCO_RETURN_IF_ERROR(SaveState());
          continue;
        }
        auto o = ProposeSlot(g, slot, gc);
        if (!o.ok()) {
          WaitAll();
          return o.status();
        }
        if (o->exhausted) {
          exhausted.insert(island);
          exhausted_why = o->exhausted_why;
          std::lock_guard<std::mutex> lock(mu);
          next_slot = slot + 1;
          CUCO_RETURN_IF_ERROR(SaveState());
        }
        Report();
      }
      // overlap_generations: the last runs of this generation go on while the next is proposed.
      if (stop.empty() && opt.carry_over > 0) WaitUntilInFlightAtMost(opt.carry_over);
      else WaitAll();
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!store_error.empty()) return Status::IOError(store_error);
      }
      if (!stop.empty()) {
        result.stop_reason = stop;
        return Status::Ok();
      }
      int64_t stored_in_g = 0;
      std::map<int, int64_t> per_gen;
      {
        std::lock_guard<std::mutex> lock(mu);
        for (const auto& [id, c] : cands)
          if (!c.not_evaluated) ++per_gen[c.rec.generation];
        stored_in_g = per_gen[g];
      }
      const int islands_with_slots = std::min(cfg.islands, per_generation);
      if (stored_in_g == 0 && static_cast<int>(exhausted.size()) >= islands_with_slots) {
        result.stop_reason = "the proposer has nothing new: " + exhausted_why;
        return Status::Ok();
      }
      if (g >= 3 && per_gen[g] == 0 && per_gen[g - 1] == 0 && per_gen[g - 2] == 0) {
        result.stop_reason = "no new candidate in 3 generations (every proposal was a repeat or too similar)";
        return Status::Ok();
      }
      CUCO_RETURN_IF_ERROR(Migrate(g));
      std::lock_guard<std::mutex> lock(mu);
      generation = g + 1;
      next_slot = 0;
      CUCO_RETURN_IF_ERROR(SaveState());
    }
  }

  Result<SearchResult> Run() {
    auto seed = ReadFile(wl.SeedPath());
    if (!seed.ok()) return seed.status();
    seed_code = *seed;
    auto g0 = ReadFile(wl.Generation0Path());
    if (!g0.ok()) return g0.status();
    gen0_code = *g0;
    if (cfg.novelty_measure == "embedding" && cfg.novelty_embedding) {  // before Load() indexes the store
      auto client = EmbeddingClient::Make(*cfg.novelty_embedding);
      if (!client.ok()) return client.status();
      std::shared_ptr<EmbeddingClient> shared(std::move(*client));
      novelty.SetEmbedder([shared](const std::string& text) { return shared->Embed(text); });
    }
    CUCO_RETURN_IF_ERROR(Load());
    if (!opt.timings_available && generation > 0) {
      // A run past generation 0 needs timings: nothing can be done here.
      result.compiled_only = true;
      result.stop_reason = "no GPU found on this machine, and this run is past generation 0: resume it on a machine "
                           "with GPUs";
      Finish();
      return result;
    }
    StartWorkers();
    // Candidates a killed session left in flight are evaluated again under their id; so are
    // those skipped for want of a GPU when this machine has one.
    std::vector<int64_t> redo;
    for (const auto& [id, c] : cands)
      if (c.rec.status == "pending" || (opt.timings_available && c.rec.status == "skipped" && !c.not_evaluated))
        redo.push_back(id);
    for (int64_t id : redo) {
      {
        std::lock_guard<std::mutex> lock(mu);
        cands.at(id).rec.status = "pending";
      }
      Dispatch(id);
    }
    result.reevaluated = static_cast<int64_t>(redo.size());
    Report();

    if (generation == 0) {
      CUCO_RETURN_IF_ERROR(RunGeneration0());
      Finish();
      if (!opt.timings_available) {
        result.compiled_only = true;
        result.stop_reason =
            "no GPU found on this machine: generation 0 was compiled only (L1); the search needs timings, so it stops "
            "here (resume it with --resume on a machine with GPUs)";
      } else if (result.best_id == 0) {
        result.generation0_failed = true;
        result.stop_reason = "generation 0 did not pass, so there is no parent to search from";
      }
      if (!result.stop_reason.empty()) {
        last_stop = result.stop_reason;
        StopWorkers();
        std::lock_guard<std::mutex> lock(mu);
        CUCO_RETURN_IF_ERROR(SaveState());
        return result;
      }
      std::lock_guard<std::mutex> lock(mu);
      generation = 1;
      next_slot = 0;
      CUCO_RETURN_IF_ERROR(SaveState());
    } else {
      WaitAll();  // the re-evaluated ones belong to the current generation; they finish with it
    }
    Status s = RunGenerations();
    WaitAll();
    StopWorkers();
    if (!s.ok()) return s;
    last_stop = result.stop_reason;
    {
      std::lock_guard<std::mutex> lock(mu);
      CUCO_RETURN_IF_ERROR(SaveState());
    }
    Finish();
    Report();
    return result;
  }
};

Evolution::Evolution(const WorkloadConfig& workload, RunConfig config, CandidateStore* store, Proposer* proposer,
                     EvaluateFn evaluate, SearchOptions options)
    : impl_(std::make_unique<Impl>(workload, std::move(config), store, proposer, std::move(evaluate), std::move(options))) {}

Evolution::~Evolution() = default;

Result<SearchResult> Evolution::Run() { return impl_->Run(); }

}  // namespace cuco
