#include "search/eval_candidates.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>

#include "evaluate/stored_outcome.h"
#include "util/clock.h"

namespace cuco {

std::vector<EvaluatedCandidate> EvaluateAndStore(Cascade& cascade, CandidateStore& store,
                                                 const std::filesystem::path& run_dir,
                                                 const std::vector<EvalCandidate>& candidates,
                                                 const std::string& mutation_kind, int jobs) {
  std::vector<EvaluatedCandidate> done(candidates.size());
  std::mutex store_mu;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < candidates.size(); i = next++) {
      const EvalCandidate& c = candidates[i];
      EvaluatedCandidate& out = done[i];
      CandidateRecord cr;
      cr.run_id = run_dir.filename().string();
      cr.code = c.code;
      cr.mutation_kind = mutation_kind;
      cr.proposer = "manual";
      cr.status = "pending";
      cr.created_ms = NowMs();
      cr.feedback = c.label;
      {
        std::lock_guard<std::mutex> lock(store_mu);
        auto id = store.Insert(cr);
        out.store_id = id.ok() ? *id : 0;
      }
      out.record = cascade.Evaluate(c.code, c.label, run_dir / "candidates" / std::to_string(out.store_id));
      const EvalRecord& r = out.record;
      cr.id = out.store_id;
      FillOutcome(r, &cr);
      cr.feedback = r.reason.empty() ? c.label : c.label + ": " + r.reason;
      std::lock_guard<std::mutex> lock(store_mu);
      if (out.store_id > 0) store.Update(cr);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::max(1, jobs); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return done;
}

}  // namespace cuco
