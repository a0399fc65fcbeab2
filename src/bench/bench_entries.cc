#include "bench/bench_entries.h"

#include <algorithm>
#include <atomic>
#include <iostream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "evaluate/judge.h"
#include "evaluate/stored_outcome.h"
#include "util/clock.h"
#include "util/files.h"

namespace cuco {

namespace fs = std::filesystem;

Result<std::vector<BenchEntry>> CollectBenchEntries(const WorkloadConfig& wl, const std::vector<std::string>& candidates,
                                                    const std::vector<std::string>& only, const fs::path& run_dir) {
  std::vector<BenchEntry> entries;
  std::set<std::string> names;
  auto unique = [&](std::string n) {
    std::string u = n;
    for (int k = 2; names.count(u) || u == "peers"; ++k) u = fmt::format("{}#{}", n, k);
    names.insert(u);
    return u;
  };
  {
    auto seed = ReadFile(wl.SeedPath());
    if (!seed.ok()) return Status::InvalidArgument(seed.status().message());
    BenchEntry e;
    e.name = unique("seed");
    e.kind = "seed";
    e.file = wl.SeedPath().string();
    e.code = *seed;
    e.description = "the workload's seed, as is";
    entries.push_back(std::move(e));
  }
  const std::string ext = wl.SeedPath().extension().string();
  for (const auto& v : wl.variants) {
    auto code = MaterializeVariant(wl, v);
    if (!code.ok()) return Status::InvalidArgument(code.status().message());
    BenchEntry e;
    e.name = unique(v.name);
    e.kind = v.part.empty() ? "variant" : "part";
    e.variant = v.name;
    e.part = v.part;
    e.knobs = v.knobs;
    e.description = v.description;
    e.code = *code;
    fs::path file = run_dir / "variants" / (v.name + ext);
    if (Status s = WriteFileAtomic(file, e.code); !s.ok()) return Status::IOError(s.message());
    e.file = file.string();
    entries.push_back(std::move(e));
  }
  for (const auto& c : candidates) {
    auto code = ReadFile(c);
    if (!code.ok()) return Status::InvalidArgument(code.status().message());
    BenchEntry e;
    e.name = unique(fs::path(c).filename().string());
    e.kind = "candidate";
    e.file = c;
    e.code = *code;
    entries.push_back(std::move(e));
  }
  // --only: entry names, or "peers".
  if (!only.empty()) {
    std::set<std::string> want(only.begin(), only.end());
    std::string known = "peers";
    for (const auto& e : entries) known += ", " + e.name;
    for (const auto& w : want)
      if (w != "peers" && !names.count(w))
        return Status::InvalidArgument(fmt::format("--only {}: no such entry (entries: {})", w, known));
    std::erase_if(entries, [&](const BenchEntry& e) { return !want.count(e.name); });
  }
  return entries;
}

void EvaluateBenchEntries(std::vector<BenchEntry>& entries, Cascade& cascade, CandidateStore& store,
                          const fs::path& run_dir, const std::string& run_id, int parallel_compiles) {
  // Compile everything up front, in parallel (the builder's cache makes the runs below reuse it).
  {
    std::atomic<size_t> next{0};
    auto worker = [&] {
      for (size_t i = next++; i < entries.size(); i = next++) {
        EvaluateOptions call;
        call.compile_only = true;
        cascade.Evaluate(entries[i].code, entries[i].file, run_dir / "entries" / entries[i].name, call);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < std::min<int>(std::max(1, parallel_compiles), std::max<size_t>(1, entries.size())); ++t)
      threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }

  // Then one entry at a time on the same GPUs: timings never overlap.
  for (size_t i = 0; i < entries.size(); ++i) {
    BenchEntry& e = entries[i];
    CandidateRecord cr;
    cr.run_id = run_id;
    cr.code = e.code;
    cr.mutation_kind = e.kind == "candidate" ? "manual" : e.kind;  // seed | variant | part | manual
    cr.proposer = "bench";
    cr.status = "pending";
    cr.created_ms = NowMs();
    cr.feedback = e.name;
    cr.features_json = nlohmann::json({{"bench_entry", e.name}, {"kind", e.kind}, {"variant", e.variant},
                                       {"part", e.part}, {"knobs", e.knobs}})
                           .dump();
    auto id = store.Insert(cr);
    e.store_id = id.ok() ? *id : 0;
    EvaluateOptions call;
    if (e.kind == "part") call.bound_part = e.variant;
    e.record = cascade.Evaluate(e.code, e.file, run_dir / "entries" / e.name, call);
    const EvalRecord& r = e.record;
    cr.id = e.store_id;
    FillOutcome(r, &cr);
    cr.feedback = fmt::format("{} ({}): {}{}", e.name, e.kind, EvalStatusText(r.status), r.reason.empty() ? "" : ": " + r.reason);
    if (e.store_id > 0) store.Update(cr);
    std::cerr << fmt::format("cuco bench: [{}/{}] {} ({}): {}{}\n", i + 1, entries.size(), e.name, e.kind,
                             EvalStatusText(r.status),
                             r.timing.median_ms > 0 ? fmt::format(", {:.4f} ms", r.timing.median_ms)
                             : r.reason.empty()     ? ""
                                                    : ": " + r.reason);
  }
}

nlohmann::json BenchEntriesJson(const std::vector<BenchEntry>& entries) {
  nlohmann::json ej = nlohmann::json::array();
  for (const auto& e : entries)
    ej.push_back({{"name", e.name},
                  {"kind", e.kind},
                  {"file", e.file},
                  {"variant", e.variant.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.variant)},
                  {"part", e.part.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.part)},
                  {"knobs", e.knobs},
                  {"description", e.description},
                  {"store_id", e.store_id},
                  {"record", e.record.ToJson()}});
  return ej;
}

}  // namespace cuco
