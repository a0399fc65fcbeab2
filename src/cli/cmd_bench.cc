// cuco bench <workload> [candidate...]: the seed, every [[variants]] entry of the workload (the
// bound parts timing-only), the given candidates and the PyTorch peers, one after another on the
// same GPUs; then a table of times, speed-ups and the share of the way to the overlap bound, and a
// JSON file with every record and the machine it ran on.
//
// The JSON ("schema": "cuco-bench/2"; <run-dir>/bench.json, and --json FILE):
//   workload, workload_dir, label, date_utc, finished_utc, hostname, command_line (argv joined),
//   cuco_version, cuco_commit (null when unknown), cuco_tree_dirty, cuco_commit_source,
//   language, world_size, gpu_count, gpus_used, devices [{index, name, memory_bytes, sm_count,
//   compute_capability, pci_bus_id}], no_gpu,
//   versions {nccl, nccl_code, cuda, driver, driver_cuda, torch}, runtime_versions (as the harness
//   saw them: {nccl, cuda_runtime, cuda_driver}), sizes {bench, verify}, timing {warmup, iters,
//   verify_runs, verify_fraction}, work {compute_flops, comm_bytes} (workload.toml [work]), run_dir, store,
//   timing_plan {method, mps, control, why, comparable_with_peers}: decided up front
//   (evaluate/gpu_session.h; each record says how it was timed itself),
//   entries [{name, kind: seed|variant|part|candidate, file, variant, part, knobs, description,
//             store_id, record: the EvalRecord's ToJson (stages, errors, timing, rank metrics,
//             timing_method, gpu_session)}],
//   peers {script, status: ok|failed|skipped, reason, torch, python, argv, log_dir, gpus, seconds,
//          timing_method, gpu_session, output: the peer's own result file},
//   table {rows [{name, kind, status, status_text, verified, part, median_ms, p10_ms, p90_ms,
//                 speedup_vs_seed, speedup_vs_best_peer, to_bound, bound_over_t, reason, detail,
//                 method, comparable_with_peers, peer_checked, work, rate, rate_unit, of_peak}],
//          seed {entry, ms}, best_peer {entry, ms},
//          bound {known, ms, compute_ms, compute_entry, compute_kind, comm_ms, comm_entry,
//                 comm_kind, why_unknown}: the honest bound, over every part timed (cuco's and
//                 the peers'); own_bound {...}: cuco's parts only; peer_bound {...},
//          rates {device, peak {model, bf16_dense_tflops, nvlink_gbps_per_dir, source} | null,
//                 compute_flops, comm_bytes}, timing_note},
//   table_text (what was printed), exit_code.
// cuco-bench/1 (before the honest bound) had no own_bound, rates or timing_note, and its `bound`
// was cuco's own parts.
#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "cli/bench_entries.h"
#include "cli/bench_peers.h"
#include "launch/provenance.h"
#include "cli/commands.h"
#include "store/run_dir.h"
#include "cli/workload_options.h"
#include "evaluate/cascade.h"
#include "report/bench_table.h"
#include "store/candidate_store.h"
#include "toolchain/device_peaks.h"
#include "toolchain/toolchain.h"
#include "util/clock.h"
#include "util/files.h"
#include "cli/launcher_option.h"
#include "workload/workload_config.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

struct BenchArgs {
  std::string workload;
  std::vector<std::string> candidates;
  int world_size = 0;
  std::vector<int> gpus;
  std::string run_dir;
  std::vector<std::string> only;
  bool no_peers = false;
  std::string json_path;
  std::string label;
  std::string cache_dir;
  std::string peers_dir;
  std::string python = "python3";
  int parallel_compiles = 2;
  std::vector<std::string> sizes;  // --size NAME=VALUE (bench sizes)
  double verify_limit_s = 0, bench_limit_s = 0, peer_limit_s = 0;
  bool unsafe_no_sandbox = false;
  std::string launcher;
};

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
  for (const auto& e : entries)
    for (const auto& r : e.record.rank_metrics)
      if (method.empty() && r.is_object() && r.contains("timing") && r["timing"].is_object())
        method = r["timing"].value("method", std::string());
  c.timing_note = fmt::format("cuco: {}, median of {} after {} warm-up, max over ranks",
                              method.empty() ? "the harness's windows" : method, wl.iters, wl.warmup);
  const nlohmann::json& out = peers.json.contains("output") ? peers.json["output"] : nlohmann::json();
  if (out.is_object() && out.contains("timing") && out["timing"].is_string())
    c.timing_note += fmt::format("; peers: {}, median of {} after {} warm-up", out["timing"].get<std::string>(),
                                 out.value("iters", 0), out.value("warmup", 0));
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

int Run(const BenchArgs& a) {
  const std::string started = UtcNow();
  auto wl = LoadWorkloadWithOverrides("bench", a.workload, a.sizes, a.verify_limit_s, a.bench_limit_s);
  if (!wl) return kExitUsage;
  const int world = a.world_size > 0 ? a.world_size : wl->world_size;
  if (std::find(wl->world_sizes.begin(), wl->world_sizes.end(), world) == wl->world_sizes.end()) {
    std::cerr << fmt::format("cuco bench: {}: world size {} is not among the workload's world_sizes\n",
                             wl->toml_path.string(), world);
    return kExitUsage;
  }
  Toolchain tc = DetectToolchain();
  if (wl->language == "cuda" && tc.nvcc.empty()) {
    std::cerr << "cuco bench: nvcc was not found, so CUDA entries cannot even be compiled. Run `cuco doctor`.\n";
    return kExitEnvironment;
  }
  const fs::path run_dir =
      a.run_dir.empty() ? fs::path("cuco-runs") / fmt::format("bench-{}-w{}", wl->name, world) : fs::path(a.run_dir);
  if (Status s = PrepareRunDir(run_dir); !s.ok() || !(s = MakeDirs(run_dir / "variants")).ok()) {
    std::cerr << "cuco bench: " << s.message() << "\n";
    return kExitUsage;
  }

  auto collected = CollectBenchEntries(*wl, a.candidates, a.only, run_dir);
  if (!collected.ok()) {
    std::cerr << "cuco bench: " << collected.status().message() << "\n";
    return ExitCodeFor(collected.status());
  }
  std::vector<BenchEntry>& entries = *collected;
  const bool want_peers = !a.no_peers && (a.only.empty() || std::count(a.only.begin(), a.only.end(), "peers") > 0);

  auto store = CandidateStore::Open((run_dir / "cuco.db").string());
  if (!store.ok()) {
    std::cerr << "cuco bench: " << store.status().message() << "\n";
    return kExitInternal;
  }
  CascadeOptions opts;
  opts.cache_dir = a.cache_dir.empty() ? DefaultCacheDir() : fs::path(a.cache_dir);
  opts.gpus = a.gpus;
  opts.world_size = world;
  opts.max_parallel_compiles = std::max(1, a.parallel_compiles);
  opts.unsafe_no_sandbox = a.unsafe_no_sandbox;
  if (int rc = ApplyLauncher("bench", a.launcher, "local", SlurmOptions{}, run_dir, &opts); rc != 0) return rc;
  Cascade cascade(*wl, tc, opts);
  const bool cuda = wl->language == "cuda";
  const bool no_gpu = cuda && !cascade.has_gpus();
  if (cuda && !no_gpu) std::cerr << "cuco bench: " << cascade.timing_plan().Line() << "\n";  // before anything runs
  if (no_gpu)
    std::cerr << "cuco bench: no GPU found on this machine: every entry is compiled (L1) and nothing is run or timed.\n"
                 "  On a GPU machine each entry would run: verify: " << cascade.DescribeRun("verify")
              << "\n                                          bench:  " << cascade.DescribeRun("bench")
              << "\n  (bound parts: bench only, with --timing-only)\n";

  EvaluateBenchEntries(entries, cascade, **store, run_dir, a.label.empty() ? run_dir.filename().string() : a.label,
                       a.parallel_compiles);

  PeerOutcome peers;
  if (want_peers) {
    peers = RunPeers({a.python, a.peers_dir, a.peer_limit_s}, *wl, cascade, world, run_dir);
  } else {
    peers.json = {{"status", "skipped"}, {"reason", a.no_peers ? "--no-peers" : "not in --only"}};
  }

  // The table.
  std::vector<BenchRow> rows;
  for (const auto& e : entries) {
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
    }
    row.reason = r.reason;
    row.detail = e.file;
    row.method = r.timing_method;
    for (const auto& v : wl->variants)
      if (v.name == e.variant) row.detail = v.file + (e.knobs.empty() ? "" : " with " + KnobsText(e.knobs));
    rows.push_back(row);
  }
  rows.insert(rows.end(), peers.rows.begin(), peers.rows.end());
  SetPartWork(*wl, world, &rows);
  const Machine machine = MachineOf(tc, a.gpus, entries, peers);
  BenchSummary summary = Summarize(rows, ContextOf(*wl, machine, entries, peers));
  const std::string table = FormatBenchTable(summary);

  const nlohmann::json& devices = machine.devices;
  const std::string& device_names = machine.device_names;
  const std::set<int>& used = machine.gpus_used;
  const nlohmann::json& runtime_versions = machine.runtime_versions;

  int code = kExitOk;
  for (const auto& e : entries) {
    EvalStatus s = e.record.status;
    if (s != EvalStatus::kOk && s != EvalStatus::kTimed && s != EvalStatus::kSkipped) code = kExitCandidateFailed;
  }

  std::string sizes_text;
  for (const auto& [k, v] : wl->bench_sizes) sizes_text += fmt::format("{}{}={}", sizes_text.empty() ? "" : " ", k, v);
  const std::string where =
      cuda ? (devices.empty() ? "no GPU (compiled only)"
                              : fmt::format("{} x {}; NCCL {}, CUDA {}, driver {}", devices.size(), device_names,
                                            tc.nccl.version.empty() ? "?" : tc.nccl.version,
                                            tc.cuda_version.empty() ? "?" : tc.cuda_version,
                                            tc.driver_version.empty() ? "?" : tc.driver_version))
           : "the CPU";
  nlohmann::json git = GitInfo(wl->dir);
  std::string head = fmt::format("cuco bench {}: world size {} on {}\n  bench sizes {}; {} on {}; cuco {}{}{}\n",
                                 wl->name, world, where, sizes_text, started, HostName(),
                                 git["commit"].is_string() ? git["commit"].get<std::string>().substr(0, 12) : "(commit unknown)",
                                 git["dirty"].is_boolean() && git["dirty"].get<bool>() ? " (modified tree)" : "",
                                 a.label.empty() ? "" : "; label " + a.label);

  nlohmann::json doc;
  doc["schema"] = "cuco-bench/2";
  doc["workload"] = wl->name;
  doc["workload_dir"] = wl->dir.string();
  doc["label"] = a.label;
  doc["date_utc"] = started;
  doc["finished_utc"] = UtcNow();
  doc["hostname"] = HostName();
  doc["command_line"] = CommandLine();
  doc["cuco_version"] = "0.1.0";
  doc["cuco_commit"] = git["commit"];
  doc["cuco_tree_dirty"] = git["dirty"];
  doc["cuco_commit_source"] = git["source"];
  doc["language"] = wl->language;
  doc["world_size"] = world;
  doc["gpu_count"] = devices.size();
  doc["gpus_used"] = std::vector<int>(used.begin(), used.end());
  doc["devices"] = devices;
  doc["no_gpu"] = no_gpu;
  doc["versions"] = {{"nccl", tc.nccl.version},
                     {"nccl_code", tc.nccl.version_code},
                     {"cuda", tc.cuda_version},
                     {"driver", tc.driver_version},
                     {"driver_cuda", tc.driver_cuda_version},
                     {"torch", peers.json.contains("torch") ? peers.json["torch"] : nlohmann::json(nullptr)}};
  doc["work"] = {{"compute_flops", wl->work.compute_flops}, {"comm_bytes", wl->work.comm_bytes}};
  doc["runtime_versions"] = runtime_versions;
  doc["sizes"] = {{"bench", wl->bench_sizes}, {"verify", wl->verify_sizes}};
  doc["timing"] = {{"warmup", wl->warmup}, {"iters", wl->iters}, {"verify_runs", wl->verify_runs},
                   {"verify_fraction", wl->verify_fraction}};
  doc["timing_plan"] = TimingPlanJson(cascade.timing_plan());
  doc["run_dir"] = fs::absolute(run_dir).string();
  doc["store"] = fs::absolute(run_dir / "cuco.db").string();
  doc["entries"] = BenchEntriesJson(entries);
  doc["peers"] = peers.json;
  doc["table"] = BenchSummaryJson(summary);
  doc["table_text"] = head + table;
  doc["exit_code"] = code;

  const std::string json_text = doc.dump(1) + "\n";
  Status w = WriteFileAtomic(run_dir / "bench.json", json_text);
  if (w.ok()) w = WriteFileAtomic(run_dir / "bench.txt", head + table);
  if (w.ok() && !a.json_path.empty()) w = WriteFileAtomic(a.json_path, json_text);
  if (!w.ok()) {
    std::cerr << "cuco bench: " << w.message() << "\n";
    code = kExitInternal;
  }
  std::cout << head << "\n" << table;
  std::cout << fmt::format("\nrecords: {} (store {}){}\n", (run_dir / "bench.json").string(), (run_dir / "cuco.db").string(),
                           a.json_path.empty() ? "" : "; JSON also in " + a.json_path);
  if (no_gpu) std::cout << "no GPU found on this machine: entries were compiled only (L1); nothing was timed.\n";
  return code;
}

}  // namespace

void AddBenchCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "bench",
      "Benchmark a workload: its seed, every [[variants]] entry (bound parts timed, not verified), the given "
      "candidates and the PyTorch peers, one after another on the same GPUs; prints a table with speed-ups and "
      "the share of the way to the overlap bound, and writes every record as JSON");
  auto a = std::make_shared<BenchArgs>();
  cmd->add_option("workload", a->workload, "Workload folder (holding workload.toml)")->required();
  cmd->add_option("candidates", a->candidates, "Candidate files to add to the table");
  AddWorldSizeOption(cmd, &a->world_size, "Ranks (default: the workload's world_size)");
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  cmd->add_option("--run-dir", a->run_dir, "Where the store, logs and bench.json go (default: cuco-runs/bench-<workload>-w<N>)");
  cmd->add_option("--only", a->only, "Run only these entries: seed, variant names, candidate file names, peers")
      ->delimiter(',');
  cmd->add_flag("--no-peers", a->no_peers, "Do not run the PyTorch peers");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->add_option("--json", a->json_path, "Also write the JSON (always written to <run-dir>/bench.json) to this file");
  cmd->add_option("--label", a->label, "A label kept in the JSON and the store (e.g. the machine or the change tested)");
  AddLauncherOption(cmd, &a->launcher);
  cmd->add_option("--cache-dir", a->cache_dir, "Compile cache (default: $CUCO_CACHE_DIR or ~/.cache/cuco)");
  cmd->add_option("--peers-dir", a->peers_dir, "Folder holding <workload>.py peers (default: bench/peers)");
  cmd->add_option("--python", a->python, "Python interpreter for the peers (default: python3)");
  cmd->add_option("--parallel-compiles", a->parallel_compiles, "Compiles at once, all done before any run (default 2)");
  cmd->add_option("--size", a->sizes, "Override a bench size, NAME=VALUE (repeatable; the verify sizes stay)");
  cmd->add_option("--verify-limit", a->verify_limit_s, "Override the workload's verify time limit (seconds)");
  cmd->add_option("--bench-limit", a->bench_limit_s, "Override the workload's bench time limit (seconds)");
  cmd->add_option("--peer-limit", a->peer_limit_s, "Time limit of the peer run (default: max(300, bench limit) seconds)");
  cmd->callback([a, exit_code] { *exit_code = Run(*a); });
}

}  // namespace cuco
