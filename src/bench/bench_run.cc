// RunBench (bench_run.h): the entries and the peers evaluated, then the table and the JSON.
#include "bench/bench_run.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "bench/bench_entries.h"
#include "bench/bench_json.h"
#include "bench/bench_peers.h"
#include "bench/bench_table.h"
#include "evaluate/cascade.h"
#include "evaluate/launcher_choice.h"
#include "evaluate/timing_precision.h"
#include "launch/provenance.h"
#include "store/candidate_store.h"
#include "store/run_dir.h"
#include "toolchain/device_peaks.h"
#include "toolchain/toolchain.h"
#include "util/files.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

std::string KnobsText(const std::map<std::string, std::string>& knobs) {
  std::string s;
  for (const auto& [k, v] : knobs) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// Where the bench ran: the selected GPUs, those the runs used, and the versions the harness saw.
struct Machine {
  nlohmann::json devices = nlohmann::json::array();  // [{index, name, memory_bytes, ...}] of the selected GPUs
  std::string device_names;                           // their distinct names, joined
  std::set<int> gpus_used;                            // by the entries' runs and the peers
  nlohmann::json runtime_versions = nullptr;          // as the harness saw them (rank 0 of the first run)
};

Machine MachineOf(const Toolchain& tc, const std::vector<int>& gpus, const std::vector<BenchEntry>& entries,
                  const PeerOutcome& peers) {
  Machine m;
  std::vector<int> selected = gpus;
  if (selected.empty())
    for (const auto& g : tc.gpus) selected.push_back(g.index);
  for (const auto& g : tc.gpus)
    if (std::find(selected.begin(), selected.end(), g.index) != selected.end()) {
      m.devices.push_back({{"index", g.index}, {"name", g.name}, {"memory_bytes", g.memory_bytes}, {"sm_count", g.sm_count},
                           {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                           {"pci_bus_id", g.pci_bus_id}});
      if (m.device_names.find(g.name) == std::string::npos) m.device_names += (m.device_names.empty() ? "" : ", ") + g.name;
    }
  for (const auto& e : entries) {
    m.gpus_used.insert(e.record.gpus.begin(), e.record.gpus.end());
    for (const auto& r : e.record.rank_metrics)
      if (m.runtime_versions.is_null() && r.is_object() && r.contains("versions")) m.runtime_versions = r["versions"];
  }
  if (peers.json.contains("gpus"))
    for (const auto& g : peers.json["gpus"]) m.gpus_used.insert(g.get<int>());
  return m;
}

// "n" or "fewest-most" of the timed iterations in `counts` (zeros left out); `fallback` when none.
std::string IterationRange(const std::vector<int>& counts, int fallback) {
  int fewest = 0, most = 0;
  for (const int n : counts)
    if (n > 0) {
      fewest = fewest == 0 ? n : std::min(fewest, n);
      most = std::max(most, n);
    }
  if (fewest == 0) return fmt::format("{}", fallback);
  return fewest == most ? fmt::format("{}", most) : fmt::format("{}-{}", fewest, most);
}

// What the table's rates and timing line need: the first selected GPU's peaks, the workload's
// [work] formulas, and how cuco's entries and the peers were timed.
BenchContext ContextOf(const WorkloadConfig& wl, const Machine& machine, const std::vector<BenchEntry>& entries,
                       const PeerOutcome& peers) {
  BenchContext c;
  if (!machine.devices.empty()) c.device = machine.devices[0].value("name", std::string());
  c.peak = DevicePeakFor(c.device);
  c.compute_flops = wl.work.compute_flops;
  c.comm_bytes = wl.work.comm_bytes;
  std::string method;
  std::vector<int> counts;  // timed iterations of the entries' records (sized per bench, or timed again)
  for (const auto& e : entries) {
    for (const auto& r : e.record.rank_metrics)
      if (method.empty() && r.is_object() && r.contains("timing") && r["timing"].is_object())
        method = r["timing"].value("method", std::string());
    counts.push_back(e.record.timing.iters);
  }
  const std::string count = IterationRange(counts, wl.iters);
  c.timing_note = fmt::format("cuco: {}, median of {} timed iterations (each entry's loop sized after its {} warm-up "
                              "to fill {} s), max over ranks",
                              method.empty() ? "the harness's windows" : method, count, wl.warmup,
                              kFirstBenchTimedSeconds);
  const nlohmann::json& out = peers.json.contains("output") ? peers.json["output"] : nlohmann::json();
  if (out.is_object() && out.contains("timing") && out["timing"].is_string()) {
    std::vector<int> peer_counts;  // each entry's own loop (sized after its warm-up, bench/peers/README.md)
    if (out.contains("entries") && out["entries"].is_array())
      for (const auto& e : out["entries"])
        if (e.is_object() && e.contains("iters") && e["iters"].is_number_integer()) peer_counts.push_back(e["iters"].get<int>());
    c.timing_note += fmt::format("; peers: {}, median of {} after {} warm-up", out["timing"].get<std::string>(),
                                 IterationRange(peer_counts, out.value("iters", 0)), out.value("warmup", 0));
  }
  return c;
}

// Each part's work per rank ([work] at the bench sizes and this world size): FLOPs or bytes.
void SetPartWork(const WorkloadConfig& wl, int world, std::vector<BenchRow>* rows) {
  for (BenchRow& r : *rows) {
    if (r.kind != "part" && r.kind != "peer-part") continue;
    const std::string& expr = r.part == "compute" ? wl.work.compute_flops : r.part == "comm" ? wl.work.comm_bytes : "";
    if (auto v = EvalWork(expr, wl.bench_sizes, world)) r.work = static_cast<double>(*v);
  }
}

// What a bench runs with, settled before any entry runs.
struct BenchSetup {
  WorkloadConfig wl;
  int world = 0;
  Toolchain tc;
  fs::path run_dir;
  std::vector<BenchEntry> entries;
  std::unique_ptr<CandidateStore> store;
  std::unique_ptr<Cascade> cascade;
  bool no_gpu = false;
};

Status SetUpBench(const BenchOptions& a, BenchSetup* b) {
  if (a.workload_config) {
    b->wl = *a.workload_config;
  } else {
    auto wl = LoadWorkloadWithOverrides(a.workload, a.sizes, a.verify_limit_s, a.bench_limit_s);
    if (!wl.ok()) return wl.status();
    b->wl = *std::move(wl);
  }
  b->world = a.world_size > 0 ? a.world_size : b->wl.world_size;
  if (std::find(b->wl.world_sizes.begin(), b->wl.world_sizes.end(), b->world) == b->wl.world_sizes.end())
    return Status::InvalidArgument(fmt::format("{}: world size {} is not among the workload's world_sizes",
                                               b->wl.toml_path.string(), b->world));
  b->tc = a.toolchain ? *a.toolchain : DetectToolchain();
  if (b->wl.language == "cuda" && b->tc.nvcc.empty())
    return Status::Unavailable("nvcc was not found, so CUDA entries cannot even be compiled. Run `cuco doctor`.");
  b->run_dir = a.run_dir.empty() ? fs::path("cuco-runs") / fmt::format("bench-{}-w{}", b->wl.name, b->world) : fs::path(a.run_dir);
  if (Status s = PrepareRunDir(b->run_dir); !s.ok() || !(s = MakeDirs(b->run_dir / "variants")).ok())
    return Status::InvalidArgument(s.message());
  auto collected = CollectBenchEntries(b->wl, a.candidates, a.only, b->run_dir);
  if (!collected.ok()) return collected.status();
  b->entries = std::move(*collected);
  auto store = CandidateStore::Open((b->run_dir / "cuco.db").string());
  if (!store.ok()) return Status::Internal(store.status().message());
  b->store = std::move(*store);
  CascadeOptions opts;
  opts.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : fs::path(a.cache_dir);
  opts.gpus = a.gpus;
  opts.world_size = b->world;
  opts.max_parallel_compiles = std::max(1, a.parallel_compiles);
  opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
  opts.unoptimized = true;  // applies only where no GPU is here: the compiles then only check that each entry builds
  if (Status s = ChooseLauncher(a.launcher, "local", SlurmOptions{}, b->run_dir, &opts); !s.ok()) return s;
  b->cascade = std::make_unique<Cascade>(b->wl, b->tc, opts);
  const bool cuda = b->wl.language == "cuda";
  b->no_gpu = cuda && !b->cascade->has_gpus();
  if (cuda && !b->no_gpu) std::cerr << "cuco bench: " << b->cascade->timing_plan().Line() << "\n";  // before anything runs
  if (b->no_gpu)
    std::cerr << "cuco bench: no GPU found on this machine: every entry is compiled (L1, device code unoptimised: does it build) and nothing is run or timed.\n"
                 "  On a GPU machine each entry would run: verify: " << b->cascade->DescribeRun("verify")
              << "\n                                          bench:  " << b->cascade->DescribeRun("bench")
              << "\n  (bound parts: bench only, with --timing-only)\n";
  return Status::Ok();
}

// The table's rows: cuco's entries, then the peers'.
std::vector<BenchRow> BenchRowsOf(const BenchSetup& b, const PeerOutcome& peers) {
  std::vector<BenchRow> rows;
  for (const auto& e : b.entries) {
    const EvalRecord& r = e.record;
    BenchRow row;
    row.name = e.name;
    row.kind = e.kind;
    row.status = EvalStatusName(r.status);
    row.part = e.part;
    if (r.status == EvalStatus::kOk || r.status == EvalStatus::kTimed) {
      row.median_ms = r.timing.median_ms;
      row.p10_ms = r.timing.p10_ms;
      row.p90_ms = r.timing.p90_ms;
      row.precision = r.timing.Precision();
    }
    row.reason = r.reason;
    row.detail = e.file;
    row.method = r.timing_method;
    for (const auto& v : b.wl.variants)
      if (v.name == e.variant) row.detail = v.file + (e.knobs.empty() ? "" : " with " + KnobsText(e.knobs));
    rows.push_back(row);
  }
  rows.insert(rows.end(), peers.rows.begin(), peers.rows.end());
  SetPartWork(b.wl, b.world, &rows);
  return rows;
}

// "cuco bench <workload>: world size N on <where>\n  bench sizes ...; <date> on <host>; cuco <commit>"
std::string BenchHead(const BenchSetup& b, const Machine& machine, const std::string& started,
                      const nlohmann::json& git, const std::string& label) {
  const Toolchain& tc = b.tc;
  std::string sizes_text;
  for (const auto& [k, v] : b.wl.bench_sizes) sizes_text += fmt::format("{}{}={}", sizes_text.empty() ? "" : " ", k, v);
  const std::string where =
      b.wl.language == "cuda"
          ? (machine.devices.empty() ? "no GPU (compiled only)"
                                     : fmt::format("{} x {}; NCCL {}, CUDA {}, driver {}", machine.devices.size(),
                                                   machine.device_names, tc.nccl.version.empty() ? "?" : tc.nccl.version,
                                                   tc.cuda_version.empty() ? "?" : tc.cuda_version,
                                                   tc.driver_version.empty() ? "?" : tc.driver_version))
          : "the CPU";
  return fmt::format("cuco bench {}: world size {} on {}\n  bench sizes {}; {} on {}; cuco {}{}{}\n", b.wl.name, b.world,
                     where, sizes_text, started, HostName(),
                     git["commit"].is_string() ? git["commit"].get<std::string>().substr(0, 12) : "(commit unknown)",
                     git["dirty"].is_boolean() && git["dirty"].get<bool>() ? " (modified tree)" : "",
                     label.empty() ? "" : "; label " + label);
}

// The JSON (bench_json.h has its schema).
nlohmann::json BenchDoc(const BenchSetup& b, const Machine& machine, const PeerOutcome& peers, const BenchSummary& summary,
                        const std::string& started, const nlohmann::json& git, const std::string& label) {
  const WorkloadConfig& wl = b.wl;
  const Toolchain& tc = b.tc;
  nlohmann::json doc;
  doc["schema"] = kBenchSchema;
  doc["workload"] = wl.name;
  doc["workload_dir"] = wl.dir.string();
  doc["label"] = label;
  doc["date_utc"] = started;
  doc["finished_utc"] = UtcNow();
  doc["hostname"] = HostName();
  doc["command_line"] = CommandLine();
  doc["cuco_version"] = "0.1.0";
  doc["cuco_commit"] = git["commit"];
  doc["cuco_tree_dirty"] = git["dirty"];
  doc["cuco_commit_source"] = git["source"];
  doc["language"] = wl.language;
  doc["world_size"] = b.world;
  doc["gpu_count"] = machine.devices.size();
  doc["gpus_used"] = std::vector<int>(machine.gpus_used.begin(), machine.gpus_used.end());
  doc["devices"] = machine.devices;
  doc["no_gpu"] = b.no_gpu;
  doc["versions"] = {{"nccl", tc.nccl.version},
                     {"nccl_code", tc.nccl.version_code},
                     {"cuda", tc.cuda_version},
                     {"driver", tc.driver_version},
                     {"driver_cuda", tc.driver_cuda_version},
                     {"torch", peers.json.contains("torch") ? peers.json["torch"] : nlohmann::json(nullptr)}};
  doc["work"] = {{"compute_flops", wl.work.compute_flops}, {"comm_bytes", wl.work.comm_bytes}};
  doc["runtime_versions"] = machine.runtime_versions;
  doc["sizes"] = {{"bench", wl.bench_sizes}, {"verify", wl.verify_sizes}};
  doc["timing"] = {{"warmup", wl.warmup}, {"iters", wl.iters}, {"verify_runs", wl.verify_runs},
                   {"verify_fraction", wl.verify_fraction}};
  doc["timing_plan"] = TimingPlanJson(b.cascade->timing_plan());
  doc["run_dir"] = fs::absolute(b.run_dir).string();
  doc["store"] = fs::absolute(b.run_dir / "cuco.db").string();
  doc["entries"] = BenchEntriesJson(b.entries);
  doc["peers"] = peers.json;
  doc["table"] = BenchSummaryJson(summary);
  return doc;
}

}  // namespace

Result<BenchResult> RunBench(const BenchOptions& a) {
  const std::string started = UtcNow();
  BenchSetup b;
  if (Status s = SetUpBench(a, &b); !s.ok()) return s;
  const bool want_peers = !a.no_peers && (a.only.empty() || std::count(a.only.begin(), a.only.end(), "peers") > 0);
  EvaluateBenchEntries(b.entries, *b.cascade, *b.store, b.run_dir, a.label.empty() ? b.run_dir.filename().string() : a.label,
                       a.parallel_compiles);
  PeerOutcome peers;
  if (want_peers) {
    peers = RunPeers({a.python, a.peers_dir, a.peer_limit_s}, b.wl, *b.cascade, b.world, b.run_dir);
  } else {
    peers.json = {{"status", "skipped"}, {"reason", a.no_peers ? "--no-peers" : "not in --only"}};
  }
  std::vector<BenchRow> rows = BenchRowsOf(b, peers);
  const Machine machine = MachineOf(b.tc, a.gpus, b.entries, peers);
  BenchSummary summary = Summarize(rows, ContextOf(b.wl, machine, b.entries, peers));

  BenchResult out;
  out.run_dir = b.run_dir;
  out.no_gpu = b.no_gpu;
  out.table = FormatBenchTable(summary);
  for (const auto& e : b.entries) {
    EvalStatus s = e.record.status;
    if (s != EvalStatus::kOk && s != EvalStatus::kTimed && s != EvalStatus::kSkipped) out.entry_failed = true;
  }
  const nlohmann::json git = GitInfo(b.wl.dir);
  out.head = BenchHead(b, machine, started, git, a.label);
  nlohmann::json doc = BenchDoc(b, machine, peers, summary, started, git, a.label);
  doc["table_text"] = out.head + out.table;
  doc["exit_code"] = out.entry_failed ? kBenchExitEntryFailed : kBenchExitOk;

  const std::string json_text = doc.dump(1) + "\n";
  out.written = WriteFileAtomic(b.run_dir / "bench.json", json_text);
  if (out.written.ok()) out.written = WriteFileAtomic(b.run_dir / "bench.txt", out.head + out.table);
  if (out.written.ok() && !a.json_path.empty()) out.written = WriteFileAtomic(a.json_path, json_text);
  return out;
}

}  // namespace cuco
