#include "search/evolution.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "llm/embedding_client.h"
#include "search/budget.h"
#include "search/evaluation_queue.h"
#include "search/generation0.h"
#include "search/migration.h"
#include "search/parent_sampling.h"
#include "search/population.h"
#include "search/proposal_intake.h"
#include "search/rng.h"
#include "search/run_binding.h"
#include "search/search_records.h"
#include "search/search_state.h"
#include "util/clock.h"
#include "util/files.h"
#include "util/sha256.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// What became of one proposal.
enum class Intake { kStored, kRetry };

struct SlotOutcome {
  bool stored = false;  // a candidate was stored (evaluated or a failed proposal)
  bool exhausted = false;
  std::string exhausted_why;
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
  std::string phase;  // of the current generation (for progress lines)

  SearchRecords records;  // shared with the workers (search_records.h)
  EvaluationQueue queue;
  std::map<int64_t, Proposal> proposals;  // in flight, this session (Run()'s thread only)
  SearchResult result;

  Impl(const WorkloadConfig& w, RunConfig c, CandidateStore* s, Proposer* p, EvaluateFn e, SearchOptions o)
      : wl(w),
        cfg(std::move(c)),
        store(s),
        proposer(p),
        evaluate(std::move(e)),
        opt(std::move(o)),
        records(store, opt.run_dir.filename().string(), cfg.shingle_tokens),
        queue(std::max(1, opt.evaluations), [this](int64_t id) { EvaluateOne(id); }) {}

  // ---- evaluating ---------------------------------------------------------------------------

  // A worker's job: writes the candidate under run_dir/candidates/<id>/ and evaluates it.
  void EvaluateOne(int64_t id) {
    std::string code;
    double best_hi_ms = 0;
    {
      std::lock_guard<std::mutex> lock(records.mu);
      code = records.pop.at(id).rec.code;
      best_hi_ms = records.pop.BestIntervalHiMs();
    }
    const fs::path dir = opt.run_dir / "candidates" / std::to_string(id);
    const fs::path file = dir / ("candidate" + opt.code_extension);
    if (Aborted()) return;
    MakeDirs(dir);
    WriteFileAtomic(file, code);
    EvalRecord er = evaluate(code, file.string(), dir, best_hi_ms);
    if (Aborted()) return;  // killed part-way: the record is not the candidate's
    if (er.interrupted) ++interrupted;  // stored pending, with why: --resume evaluates it again
    std::lock_guard<std::mutex> lock(records.mu);
    records.CompleteLocked(id, er);
  }
  std::atomic<int64_t> interrupted{0};

  // True (and counted) once the evaluations in flight are aborted: the candidate stays pending.
  bool Aborted() {
    if (!opt.abort || !opt.abort->load()) return false;
    ++aborted;
    return true;
  }
  std::atomic<int64_t> aborted{0};

  // Waits until every dispatched candidate is evaluated, reporting progress on the way.
  void WaitAll() { WaitUntilInFlightAtMost(0); }

  // Waits until at most `n` dispatched candidates are still being evaluated (WaitAll: n = 0).
  void WaitUntilInFlightAtMost(int n) {
    while (true) {
      bool settled = false;
      DeliverFeedback(queue.WaitForFinished(n, &settled));
      Report();
      if (settled) return;
    }
  }

  void DeliverFeedback(const std::vector<int64_t>& done) {
    for (int64_t id : done) {
      auto p = proposals.find(id);
      if (p == proposals.end()) continue;
      bool ok = false, improved = false, judged = true;
      {
        std::lock_guard<std::mutex> lock(records.mu);
        const SearchCandidate& c = records.pop.at(id);
        judged = c.rec.status != "pending";  // an interrupted evaluation: nothing to learn from
        ok = c.Ok();
        improved = records.pop.Improved(c);
      }
      if (judged) proposer->Feedback(p->second, improved, ok);
      proposals.erase(p);
    }
  }

  // ---- progress and results -----------------------------------------------------------------

  void Report() {
    if (!opt.on_progress) return;
    SearchProgress p;
    {
      std::lock_guard<std::mutex> lock(records.mu);
      records.FillLocked(&p);
      p.phase = phase;
      p.in_flight = queue.in_flight();
      p.session_done = queue.done();
      p.wall_s = records.WallS();
      if (opt.timings_available) {  // else the search stops after generation 0: no budget to estimate
        const BudgetEta eta = EstimateBudgetEta(
            cfg, {p.candidates, records.state.dollars, p.wall_s, records.state.generation,
                  std::max(0, records.state.per_generation - records.state.next_slot), records.state.per_generation,
                  p.session_done, p.session_minutes * 60});
        p.eta_s = eta.seconds;
        p.eta_limit = eta.limit;
      }
    }
    opt.on_progress(p);
  }

  void Finish() {
    std::lock_guard<std::mutex> lock(records.mu);
    records.FillLocked(&result);
    result.aborted = aborted.load();
    result.interrupted = interrupted.load();
  }

  std::string BudgetReason() {
    int64_t counted;
    {
      std::lock_guard<std::mutex> lock(records.mu);
      counted = records.pop.Counted();
    }
    return cuco::BudgetReason(cfg, opt.interrupt, counted, records.state.dollars, records.WallS());
  }

  // ---- generation 0 -------------------------------------------------------------------------

  // Stores and dispatches generation 0's candidates from the cursor on.
  Status DispatchGeneration0() {
    std::vector<SearchCandidate> g0 = Generation0Candidates(wl, seed_code, gen0_code);
    for (int slot = records.state.next_slot; slot < static_cast<int>(g0.size()); ++slot) {
      int64_t id;
      {
        std::lock_guard<std::mutex> lock(records.mu);
        auto r = records.InsertLocked(std::move(g0[slot]), slot + 1);
        if (!r.ok()) return r.status();
        id = *r;
      }
      queue.Push(id);
    }
    return Status::Ok();
  }

  Status RunGeneration0() {
    CUCO_RETURN_IF_ERROR(DispatchGeneration0());
    WaitAll();
    std::lock_guard<std::mutex> lock(records.mu);
    CUCO_RETURN_IF_ERROR(records.StoreErrorLocked());
    if (const SearchCandidate* ref = Generation0Reference(records.pop)) {
      records.state.reference_id = ref->rec.id;
      records.state.reference_ms = ref->rec.time_ms;
    }
    return RescoreGeneration0(records.pop, records.state.reference_ms, *store);
  }

  // ---- generations >= 1 ---------------------------------------------------------------------

  // What the proposal of `rng`'s slot and attempt is shown (parent_sampling.h).
  Result<ProposalContext> ContextFor(int g, int island, const GenerationPool& gp, Rng& rng) {
    std::unique_lock<std::mutex> lock(records.mu);
    auto ctx = ProposalContextFor(records.pop, gp, cfg, {&wl, seed_code, opt.hardware, opt.comm_api}, g, island, rng);
    lock.unlock();
    if (!ctx.ok()) return ctx;
    ctx->already_tried = [this](const std::string& code) {
      std::lock_guard<std::mutex> lock(records.mu);
      return records.pop.Knows(Sha256Hex(code));
    };
    return ctx;
  }

  // Stores what a proposal becomes (proposal_intake.h); kRetry when the slot is not used up.
  Result<Intake> TakeProposal(Proposal p, const ProposalContext& ctx, int slot, int attempt) {
    const CandidateView* parent = nullptr;
    SearchCandidate c = CandidateOf(p, ctx, proposer->Name(), slot, attempt, &parent);
    std::lock_guard<std::mutex> lock(records.mu);
    auto verdict = JudgeProposal(&c, p, *parent, records.pop, cfg, wl, records.state.reference_ms);
    if (!verdict.ok()) return verdict.status();
    if (*verdict == ProposalVerdict::kRepeat) {
      ++result.duplicates;
      return Intake::kRetry;
    }
    const bool not_evaluated = *verdict == ProposalVerdict::kTooSimilar || *verdict == ProposalVerdict::kExcluded;
    auto r = records.InsertLocked(std::move(c), not_evaluated ? slot : slot + 1);
    if (!r.ok()) return r.status();
    if (not_evaluated) return Intake::kRetry;
    if (*verdict == ProposalVerdict::kNew) {
      proposals[*r] = std::move(p);
      queue.Push(*r);
    }
    return Intake::kStored;
  }

  // Proposes for one slot of generation g: up to max_attempts proposals until one is new.
  Result<SlotOutcome> ProposeSlot(int g, int slot, const GenerationPool& gp) {
    SlotOutcome out;
    const int island = slot % cfg.islands;
    const uint64_t island_seed = cfg.seed + static_cast<uint64_t>(island) * cfg.island_seed_offset;
    for (int attempt = 0; attempt < cfg.max_attempts; ++attempt) {
      Rng rng(DeriveSeed(island_seed, {static_cast<uint64_t>(g), static_cast<uint64_t>(slot), static_cast<uint64_t>(attempt)}));
      auto ctx = ContextFor(g, island, gp, rng);
      if (!ctx.ok()) return ctx.status();
      auto proposed = proposer->Propose(*ctx);
      if (!proposed.ok()) return proposed.status();
      Proposal& p = *proposed;
      records.state.dollars += p.dollars;
      if (!p.exhausted && p.failure.empty() && p.code.empty()) p.failure = "the proposer returned no code";
      if (p.exhausted) {
        out.exhausted = true;
        out.exhausted_why = p.description;
        return out;
      }
      auto taken = TakeProposal(std::move(p), *ctx, slot, attempt);
      if (!taken.ok()) return taken.status();
      if (*taken == Intake::kStored) {
        out.stored = true;
        return out;
      }
    }
    // Every attempt was a repeat or too similar: the slot is given up.
    CUCO_RETURN_IF_ERROR(records.AdvanceCursor(slot + 1));
    return out;
  }

  Status Migrate(int g) {
    if (!MigrationDue(g, cfg.migration_interval, cfg.islands)) return Status::Ok();
    std::lock_guard<std::mutex> lock(records.mu);
    MigrationParams mp{cfg.migration_kind, cfg.migration_edges, cfg.migrants};
    records.state.Record(g, PlanMigration(IslandPopulations(records.pop, records.state, cfg.islands, g + 1), mp));
    return Status::Ok();
  }

  // What proposing generation g's slots came to.
  struct GenerationOutcome {
    std::string stop;              // a budget ran out (or an interrupt)
    std::set<int> exhausted;       // islands whose proposer has nothing new
    std::string exhausted_why;
  };

  // Proposes generation g's remaining slots, then waits for its evaluations (all of them, or
  // all but carry_over when overlapping generations).
  Result<GenerationOutcome> ProposeGeneration(int g, const GenerationPool& gp) {
    GenerationOutcome go;
    for (int slot = records.state.next_slot; slot < records.state.per_generation; ++slot) {
      go.stop = BudgetReason();
      if (!go.stop.empty()) break;
      const int island = slot % cfg.islands;
      if (go.exhausted.count(island)) {
        CUCO_RETURN_IF_ERROR(records.AdvanceCursor(slot + 1));
        continue;
      }
      auto o = ProposeSlot(g, slot, gp);
      if (!o.ok()) {
        WaitAll();
        return o.status();
      }
      if (o->exhausted) {
        go.exhausted.insert(island);
        go.exhausted_why = o->exhausted_why;
        CUCO_RETURN_IF_ERROR(records.AdvanceCursor(slot + 1));
      }
      Report();
    }
    // overlap_generations: the last runs of this generation go on while the next is proposed.
    if (go.stop.empty() && opt.carry_over > 0) WaitUntilInFlightAtMost(opt.carry_over);
    else WaitAll();
    std::lock_guard<std::mutex> lock(records.mu);
    CUCO_RETURN_IF_ERROR(records.StoreErrorLocked());
    return go;
  }

  // Why the search ends after generation g ("" to go on).
  std::string EndReason(int g, const GenerationOutcome& go) {
    if (!go.stop.empty()) return go.stop;
    std::map<int, int64_t> per_gen;
    {
      std::lock_guard<std::mutex> lock(records.mu);
      per_gen = records.pop.CountedPerGeneration();
    }
    const int islands_with_slots = std::min(cfg.islands, records.state.per_generation);
    if (per_gen[g] == 0 && static_cast<int>(go.exhausted.size()) >= islands_with_slots)
      return "the proposer has nothing new: " + go.exhausted_why;
    if (g >= 3 && per_gen[g] == 0 && per_gen[g - 1] == 0 && per_gen[g - 2] == 0)
      return "no new candidate in 3 generations (every proposal was a repeat or too similar)";
    return "";
  }

  Status RunGenerations() {
    while (true) {
      const int g = records.state.generation;
      if (cfg.max_generations > 0 && g > cfg.max_generations) {
        result.stop_reason = fmt::format("budget: max_generations ({}) done", cfg.max_generations);
        return Status::Ok();
      }
      GenerationPool gp;
      {
        std::lock_guard<std::mutex> lock(records.mu);
        gp = BuildGenerationPool(records.pop, records.state, cfg, wl, g);
        phase = gp.phase;
        CUCO_RETURN_IF_ERROR(store->PutMeta(kMetaSummary, gp.summary));
        CUCO_RETURN_IF_ERROR(store->PutMeta(kMetaSummaryOfGeneration + std::to_string(g), gp.summary));
      }
      Report();
      auto go = ProposeGeneration(g, gp);
      if (!go.ok()) return go.status();
      result.stop_reason = EndReason(g, *go);
      if (!result.stop_reason.empty()) return Status::Ok();
      CUCO_RETURN_IF_ERROR(Migrate(g));
      std::lock_guard<std::mutex> lock(records.mu);
      records.state.generation = g + 1;
      records.state.next_slot = 0;
      CUCO_RETURN_IF_ERROR(records.SaveLocked());
    }
  }

  // ---- a session ----------------------------------------------------------------------------

  Status ReadSources() {
    auto seed = ReadFile(wl.SeedPath());
    if (!seed.ok()) return seed.status();
    seed_code = *seed;
    auto g0 = ReadFile(wl.Generation0Path());
    if (!g0.ok()) return g0.status();
    gen0_code = *g0;
    if (cfg.novelty_measure == "embedding" && cfg.novelty_embedding) {  // before Open() indexes the store
      auto client = EmbeddingClient::Make(*cfg.novelty_embedding);
      if (!client.ok()) return client.status();
      std::shared_ptr<EmbeddingClient> shared(std::move(*client));
      records.pop.novelty().SetEmbedder([shared](const std::string& text) { return shared->Embed(text); });
    }
    return Status::Ok();
  }

  // Generation 0, then the cursor on generation 1; sets result.stop_reason when the search
  // cannot go on (no timings here, or nothing passed).
  Status StartFromGeneration0() {
    CUCO_RETURN_IF_ERROR(RunGeneration0());
    Finish();
    if (result.aborted > 0) {  // generation 0 is not complete: a resumed search finishes it
      result.stop_reason = cuco::BudgetReason(cfg, opt.interrupt, 0, 0, 0);
    } else if (!opt.timings_available) {
      result.compiled_only = true;
      result.stop_reason =
          "no GPU found on this machine: generation 0 was compiled only (L1); the search needs timings, so it stops "
          "here (resume it with --resume on a machine with GPUs)";
    } else if (result.best_id == 0) {
      result.generation0_failed = true;
      result.stop_reason = "generation 0 did not pass, so there is no parent to search from";
    }
    std::lock_guard<std::mutex> lock(records.mu);
    if (!result.stop_reason.empty()) {
      records.state.last_stop = result.stop_reason;
      return Status::Ok();
    }
    records.state.generation = 1;
    records.state.next_slot = 0;
    return records.SaveLocked();
  }

  // The run binding (run_binding.h): recorded now, or checked against a resumed run's.
  Status Bind() {
    if (result.resumed && !opt.config_path.empty())
      CUCO_RETURN_IF_ERROR(CheckResumedConfigText(opt.config_text, opt.config_path));
    auto binding = BindRun(wl, cfg);
    if (!binding.ok()) return binding.status();
    auto bound = BindStore(*store, *binding, result.resumed, opt.accept_changes);
    if (!bound.ok()) return bound.status();
    records.lineage = result.lineage = bound->lineage;
    if (bound->new_lineage) result.lineage_changes = bound->changes;
    return Status::Ok();
  }

  Result<SearchResult> Run() {
    CUCO_RETURN_IF_ERROR(ReadSources());
    // Default: one proposal per evaluation in flight (the GPU groups plus the compiles that
    // overlap their runs), at least one per island.
    auto resumed = records.Open(cfg.per_generation > 0 ? cfg.per_generation : std::max(std::max(1, opt.evaluations), cfg.islands),
                                wl.dir.string());
    if (!resumed.ok()) return resumed.status();
    result.resumed = *resumed;
    CUCO_RETURN_IF_ERROR(Bind());
    if (!opt.timings_available && records.state.generation > 0) {
      // A run past generation 0 needs timings: nothing can be done here.
      result.compiled_only = true;
      result.stop_reason = "no GPU found on this machine, and this run is past generation 0: resume it on a machine "
                           "with GPUs";
      Finish();
      return result;
    }
    queue.Start();
    // Candidates a killed session left in flight are evaluated again under their id; so are
    // those skipped for want of a GPU when this machine has one.
    const std::vector<int64_t> redo = records.MarkUnfinishedPending(opt.timings_available);
    for (int64_t id : redo) queue.Push(id);
    result.reevaluated = static_cast<int64_t>(redo.size());
    Report();
    if (records.state.generation == 0) {
      CUCO_RETURN_IF_ERROR(StartFromGeneration0());
      if (!result.stop_reason.empty()) {
        queue.Stop();
        std::lock_guard<std::mutex> lock(records.mu);
        CUCO_RETURN_IF_ERROR(records.SaveLocked());
        return result;
      }
    } else {
      WaitAll();  // the re-evaluated ones belong to the current generation; they finish with it
    }
    Status s = RunGenerations();
    WaitAll();
    queue.Stop();
    if (!s.ok()) return s;
    {
      std::lock_guard<std::mutex> lock(records.mu);
      records.state.last_stop = result.stop_reason;
      CUCO_RETURN_IF_ERROR(records.SaveLocked());
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
