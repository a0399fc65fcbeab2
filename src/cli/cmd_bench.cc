// cuco bench <workload> [candidate...]: the seed, every [[variants]] entry of the workload (the
// bound parts timing-only), the given candidates and the PyTorch peers, one after another on the
// same GPUs; then a table of times, speed-ups and the share of the way to the overlap bound, and a
// JSON file with every record and the machine it ran on.
//
// The JSON ("schema": "cuco-bench/1"; <run-dir>/bench.json, and --json FILE):
//   workload, workload_dir, label, date_utc, finished_utc, hostname, command_line (argv joined),
//   cuco_version, cuco_commit (null when unknown), cuco_tree_dirty, cuco_commit_source,
//   language, world_size, gpu_count, gpus_used, devices [{index, name, memory_bytes, sm_count,
//   compute_capability, pci_bus_id}], no_gpu,
//   versions {nccl, nccl_code, cuda, driver, driver_cuda, torch}, runtime_versions (as the harness
//   saw them: {nccl, cuda_runtime, cuda_driver}), sizes {bench, verify}, timing {warmup, iters,
//   verify_runs, verify_fraction}, run_dir, store,
//   entries [{name, kind: seed|variant|part|candidate, file, variant, part, knobs, description,
//             store_id, record: the EvalRecord's ToJson (stages, errors, timing, rank metrics)}],
//   peers {script, status: ok|failed|skipped, reason, torch, python, argv, log_dir, gpus, seconds,
//          output: the peer's own result file},
//   table {rows [{name, kind, status, status_text, verified, part, median_ms, p10_ms, p90_ms,
//                 speedup_vs_seed, speedup_vs_best_peer, to_bound, bound_over_t, reason, detail}],
//          seed {entry, ms}, best_peer {entry, ms}, bound {known, ms, compute_ms, compute_entry,
//          comm_ms, comm_entry, why_unknown}, peer_bound {...}},
//   table_text (what was printed), exit_code.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/run_dir_option.h"
#include "cli/workload_options.h"
#include "evaluate/cascade.h"
#include "evaluate/judge.h"
#include "launch/launcher.h"
#include "launch/subprocess.h"
#include "report/bench_table.h"
#include "store/candidate_store.h"
#include "toolchain/toolchain.h"
#include "util/clock.h"
#include "util/files.h"
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
};

// One cuco entry: the seed, a variant, a bound part or a candidate.
struct Entry {
  std::string name;
  std::string kind;  // seed | variant | part | candidate
  std::string file;  // the code's file (for a variant: its materialisation in the run folder)
  std::string code;
  std::string variant, part, description;
  std::map<std::string, std::string> knobs;
  EvalRecord record;
  int64_t store_id = 0;
};

// The peers' outcome: rows for the table, and what to keep in the JSON.
struct PeerOutcome {
  std::vector<BenchRow> rows;
  nlohmann::json json = nlohmann::json::object();
};

std::string UtcNow() { return FormatTime(NowMs(), "%Y-%m-%dT%H:%M:%SZ", TimeZone::kUtc); }

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

// This process's command line, as given (argv joined; words with spaces quoted).
std::string CommandLine() {
  auto text = ReadFile("/proc/self/cmdline");
  if (!text.ok()) return "";
  std::string out, word;
  auto flush = [&] {
    if (!out.empty()) out += ' ';
    out += word.find_first_of(" \t'\"") == std::string::npos && !word.empty() ? word : "'" + word + "'";
    word.clear();
  };
  for (char c : *text) {
    if (c == '\0') flush();
    else word += c;
  }
  if (!word.empty()) flush();
  return out;
}

std::string LastLine(const std::string& text) {
  size_t end = text.find_last_not_of("\n\r \t");
  if (end == std::string::npos) return "";
  size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// cuco's git commit, best effort: $CUCO_GIT_COMMIT (for a binary carried to a machine without the
// checkout), else `git rev-parse HEAD` in the source tree it was built from or the workload's.
nlohmann::json GitInfo(const fs::path& workload_dir) {
  nlohmann::json j = {{"commit", nullptr}, {"dirty", nullptr}, {"source", nullptr}};
  if (const char* c = std::getenv("CUCO_GIT_COMMIT"); c && *c) {
    j["commit"] = c;
    j["source"] = "env CUCO_GIT_COMMIT";
    return j;
  }
  for (const fs::path& dir : {fs::path(CUCO_SOURCE_DIR), workload_dir}) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    auto head = RunCapture({"git", "-C", dir.string(), "rev-parse", "HEAD"}, 10);
    std::string commit = LastLine(head.output);
    if (!head.outcome.ok() || commit.size() < 40) continue;
    j["commit"] = commit;
    j["source"] = "git -C " + dir.string();
    auto status = RunCapture({"git", "-C", dir.string(), "status", "--porcelain", "--untracked-files=no"}, 20);
    if (status.outcome.ok()) j["dirty"] = !LastLine(status.output).empty();
    return j;
  }
  return j;
}

std::string KnobsText(const std::map<std::string, std::string>& knobs) {
  std::string s;
  for (const auto& [k, v] : knobs) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

// Where bench/peers/<workload>.py is: --peers-dir, else beside the workloads folder (the
// repository's bench/peers), else ./bench/peers, else the source tree cuco was built from.
fs::path FindPeerScript(const BenchArgs& a, const WorkloadConfig& wl, std::string* looked) {
  std::vector<fs::path> dirs;
  if (!a.peers_dir.empty()) {
    dirs.push_back(a.peers_dir);
  } else {
    dirs.push_back(wl.dir.parent_path().parent_path() / "bench" / "peers");
    dirs.push_back(fs::current_path() / "bench" / "peers");
    dirs.push_back(fs::path(CUCO_SOURCE_DIR) / "bench" / "peers");
  }
  std::error_code ec;
  for (const auto& d : dirs) {
    fs::path p = d / (wl.name + ".py");
    if (fs::is_regular_file(p, ec)) return fs::absolute(p);
    *looked += (looked->empty() ? "" : ", ") + d.string();
  }
  return {};
}

BenchRow PeerRow(const std::string& name, const std::string& status, const std::string& reason,
                 const std::string& detail) {
  BenchRow r;
  r.name = name;
  r.kind = "peer";
  r.status = status;
  r.reason = reason;
  r.detail = detail;
  return r;
}

// Runs bench/peers/<workload>.py once per rank through cuco's local launcher (contract:
// bench/peers/README.md). Never fails the bench: every problem becomes a skipped or failed row.
PeerOutcome RunPeers(const BenchArgs& a, const WorkloadConfig& wl, Cascade& cascade, int world,
                     const fs::path& run_dir) {
  PeerOutcome out;
  nlohmann::json& j = out.json;
  j = {{"script", nullptr}, {"status", "skipped"}, {"reason", ""}, {"torch", nullptr}, {"python", a.python}};
  auto skip = [&](const std::string& name, const std::string& why) {
    j["status"] = "skipped";
    j["reason"] = why;
    out.rows.push_back(PeerRow(name, "skipped", why, ""));
    return out;
  };
  std::string looked;
  fs::path script = FindPeerScript(a, wl, &looked);
  if (script.empty()) return skip("peers", fmt::format("no peer script {}.py (looked in {})", wl.name, looked));
  j["script"] = script.string();
  const std::string name = script.filename().string();
  const bool cuda = wl.language == "cuda";

  // A CUDA workload's peer needs PyTorch with CUDA; a CPU workload's (cuco's own tests) only Python.
  const std::string probe = cuda ? "import sys, torch; print(torch.__version__); sys.exit(0 if torch.cuda.is_available() else 7)"
                                 : "import sys; print(sys.version.split()[0])";
  auto check = RunCapture({a.python, "-c", probe}, 180);
  std::string said = LastLine(check.output);
  if (!check.outcome.started) return skip(name, fmt::format("{} could not be started: {}", a.python, check.outcome.start_error));
  if (cuda && check.outcome.exit_code == 7)
    return skip(name, fmt::format("torch {} is installed but torch.cuda.is_available() is false", said));
  if (!check.outcome.ok())
    return skip(name, cuda ? fmt::format("{} cannot import torch ({})", a.python, said.empty() ? check.outcome.Describe() : said)
                           : fmt::format("{} does not run ({})", a.python, check.outcome.Describe()));
  if (cuda) j["torch"] = said;
  else j["python_version"] = said;

  GpuLease lease;
  if (cuda) {
    if (!cascade.has_gpus()) return skip(name, "no GPU found on this machine");
    auto l = cascade.pool().Acquire(world);
    if (!l.ok()) return skip(name, l.status().message());
    lease = std::move(*l);
  }
  fs::path dir = run_dir / "peers";
  std::error_code ec;
  fs::remove_all(dir, ec);
  MakeDirs(dir);
  const fs::path result = dir / "result.json";
  RankJob job;
  job.argv = {a.python, script.string()};
  for (const auto& [k, v] : wl.bench_sizes) job.argv.insert(job.argv.end(), {"--size", k + "=" + std::to_string(v)});
  job.argv.insert(job.argv.end(), {"--warmup", std::to_string(wl.warmup), "--iters", std::to_string(std::max(20, wl.iters)),
                                   "--out", result.string()});
  job.env["PYTHONUNBUFFERED"] = "1";
  job.world_size = world;
  job.gpus = lease.gpus();
  job.log_dir = (dir / "logs").string();
  job.rendezvous_dir = (dir / "rendezvous").string();
  job.timeout_s = a.peer_limit_s > 0 ? a.peer_limit_s : std::max(300.0, wl.bench_s);
  j["argv"] = job.argv;
  j["log_dir"] = job.log_dir;
  j["gpus"] = job.gpus;
  std::cerr << fmt::format("cuco bench: peer {} on {} rank(s)...\n", name, world);
  auto t0 = std::chrono::steady_clock::now();
  auto outcome = MakeLocalLauncher()->Run(job);
  j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  auto fail = [&](const std::string& why) {
    j["status"] = "failed";
    j["reason"] = why;
    out.rows.push_back(PeerRow(name, "failed", why, script.string()));
    return out;
  };
  if (!outcome.ok()) return fail(outcome.status().message());
  if (!outcome->ok()) {
    std::string why = JudgeJob(*outcome).reason;
    for (const auto& r : outcome->ranks) {
      auto text = ReadFile(r.log_path);
      std::string last = text.ok() ? LastLine(*text) : "";
      if (!last.empty()) {
        why += fmt::format(" (rank {}: {})", r.rank, last.substr(0, 300));
        break;
      }
    }
    return fail(why + "; logs in " + job.log_dir);
  }
  auto text = ReadFile(result);
  if (!text.ok()) return fail("the peer wrote no result file " + result.string());
  nlohmann::json res = nlohmann::json::parse(*text, nullptr, false);
  if (res.is_discarded() || !res.is_object() || !res.contains("entries") || !res["entries"].is_array())
    return fail(result.string() + " is not {\"entries\": [...]} JSON");
  j["output"] = res;
  if (res.contains("torch") && res["torch"].is_string()) j["torch"] = res["torch"];
  const std::string torch = j["torch"].is_string() ? " (torch " + j["torch"].get<std::string>() + ")" : "";
  for (const auto& e : res["entries"]) {
    BenchRow r;
    r.name = e.value("name", std::string("?"));
    r.part = e.contains("part") && e["part"].is_string() ? e["part"].get<std::string>() : "";
    r.kind = r.part == "compute" || r.part == "comm" ? "peer-part" : "peer";
    r.detail = name + torch;
    auto num = [&](const char* k) { return e.contains(k) && e[k].is_number() ? e[k].get<double>() : -1.0; };
    r.median_ms = num("median_ms");
    r.p10_ms = num("p10_ms");
    r.p90_ms = num("p90_ms");
    if (e.contains("error") && e["error"].is_string()) {
      r.status = "failed";
      r.reason = e["error"].get<std::string>();
    } else if (r.median_ms > 0) {
      r.status = "ok";
    } else {
      r.status = "failed";
      r.reason = "no valid median_ms in the peer's result";
    }
    out.rows.push_back(r);
  }
  if (out.rows.empty()) return fail("the peer reported no entries");
  j["status"] = "ok";
  return out;
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

  // The entries, in order: the seed, the variants (parts among them), the candidates.
  std::vector<Entry> entries;
  std::set<std::string> names;
  auto unique = [&](std::string n) {
    std::string u = n;
    for (int k = 2; names.count(u) || u == "peers"; ++k) u = fmt::format("{}#{}", n, k);
    names.insert(u);
    return u;
  };
  {
    auto seed = ReadFile(wl->SeedPath());
    if (!seed.ok()) {
      std::cerr << "cuco bench: " << seed.status().message() << "\n";
      return kExitUsage;
    }
    Entry e;
    e.name = unique("seed");
    e.kind = "seed";
    e.file = wl->SeedPath().string();
    e.code = *seed;
    e.description = "the workload's seed, as is";
    entries.push_back(std::move(e));
  }
  const std::string ext = wl->SeedPath().extension().string();
  for (const auto& v : wl->variants) {
    auto code = MaterializeVariant(*wl, v);
    if (!code.ok()) {
      std::cerr << "cuco bench: " << code.status().message() << "\n";
      return kExitUsage;
    }
    Entry e;
    e.name = unique(v.name);
    e.kind = v.part.empty() ? "variant" : "part";
    e.variant = v.name;
    e.part = v.part;
    e.knobs = v.knobs;
    e.description = v.description;
    e.code = *code;
    fs::path file = run_dir / "variants" / (v.name + ext);
    if (Status s = WriteFileAtomic(file, e.code); !s.ok()) {
      std::cerr << "cuco bench: " << s.message() << "\n";
      return kExitInternal;
    }
    e.file = file.string();
    entries.push_back(std::move(e));
  }
  for (const auto& c : a.candidates) {
    auto code = ReadFile(c);
    if (!code.ok()) {
      std::cerr << "cuco bench: " << code.status().message() << "\n";
      return kExitUsage;
    }
    Entry e;
    e.name = unique(fs::path(c).filename().string());
    e.kind = "candidate";
    e.file = c;
    e.code = *code;
    entries.push_back(std::move(e));
  }
  // --only: entry names, or "peers".
  if (!a.only.empty()) {
    std::set<std::string> want(a.only.begin(), a.only.end());
    std::string known = "peers";
    for (const auto& e : entries) known += ", " + e.name;
    for (const auto& w : want)
      if (w != "peers" && !names.count(w)) {
        std::cerr << fmt::format("cuco bench: --only {}: no such entry (entries: {})\n", w, known);
        return kExitUsage;
      }
    std::erase_if(entries, [&](const Entry& e) { return !want.count(e.name); });
  }
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
  Cascade cascade(*wl, tc, opts);
  const bool cuda = wl->language == "cuda";
  const bool no_gpu = cuda && !cascade.has_gpus();
  if (no_gpu)
    std::cerr << "cuco bench: no GPU found on this machine: every entry is compiled (L1) and nothing is run or timed.\n"
                 "  On a GPU machine each entry would run: verify: " << cascade.DescribeRun("verify")
              << "\n                                          bench:  " << cascade.DescribeRun("bench")
              << "\n  (bound parts: bench only, with --timing-only)\n";

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
    for (int t = 0; t < std::min<int>(opts.max_parallel_compiles, std::max<size_t>(1, entries.size())); ++t)
      threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }

  // Then one entry at a time on the same GPUs: timings never overlap.
  const std::string run_id = a.label.empty() ? run_dir.filename().string() : a.label;
  for (size_t i = 0; i < entries.size(); ++i) {
    Entry& e = entries[i];
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
    auto id = (*store)->Insert(cr);
    e.store_id = id.ok() ? *id : 0;
    EvaluateOptions call;
    if (e.kind == "part") call.bound_part = e.variant;
    e.record = cascade.Evaluate(e.code, e.file, run_dir / "entries" / e.name, call);
    const EvalRecord& r = e.record;
    cr.id = e.store_id;
    cr.code_hash = r.code_hash;
    cr.status = EvalStatusName(r.status);
    cr.time_ms = r.timing.median_ms;
    cr.metrics_json = r.ToJson().dump();
    cr.logs = CollectLogs(r);
    cr.feedback = fmt::format("{} ({}): {}{}", e.name, e.kind, EvalStatusText(r.status), r.reason.empty() ? "" : ": " + r.reason);
    cr.finished_ms = NowMs();
    if (e.store_id > 0) (*store)->Update(cr);
    std::cerr << fmt::format("cuco bench: [{}/{}] {} ({}): {}{}\n", i + 1, entries.size(), e.name, e.kind,
                             EvalStatusText(r.status),
                             r.timing.median_ms > 0 ? fmt::format(", {:.4f} ms", r.timing.median_ms)
                             : r.reason.empty()     ? ""
                                                    : ": " + r.reason);
  }

  PeerOutcome peers;
  if (want_peers) {
    peers = RunPeers(a, *wl, cascade, world, run_dir);
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
    for (const auto& v : wl->variants)
      if (v.name == e.variant) row.detail = v.file + (e.knobs.empty() ? "" : " with " + KnobsText(e.knobs));
    rows.push_back(row);
  }
  rows.insert(rows.end(), peers.rows.begin(), peers.rows.end());
  BenchSummary summary = Summarize(rows);
  const std::string table = FormatBenchTable(summary);

  // Where it ran.
  std::vector<int> selected = a.gpus;
  if (selected.empty())
    for (const auto& g : tc.gpus) selected.push_back(g.index);
  nlohmann::json devices = nlohmann::json::array();
  std::string device_names;
  for (const auto& g : tc.gpus)
    if (std::find(selected.begin(), selected.end(), g.index) != selected.end()) {
      devices.push_back({{"index", g.index}, {"name", g.name}, {"memory_bytes", g.memory_bytes}, {"sm_count", g.sm_count},
                         {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
                         {"pci_bus_id", g.pci_bus_id}});
      if (device_names.find(g.name) == std::string::npos) device_names += (device_names.empty() ? "" : ", ") + g.name;
    }
  std::set<int> used;
  nlohmann::json runtime_versions = nullptr;
  for (const auto& e : entries) {
    used.insert(e.record.gpus.begin(), e.record.gpus.end());
    for (const auto& m : e.record.rank_metrics)
      if (runtime_versions.is_null() && m.is_object() && m.contains("versions")) runtime_versions = m["versions"];
  }
  if (peers.json.contains("gpus"))
    for (const auto& g : peers.json["gpus"]) used.insert(g.get<int>());

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
  doc["schema"] = "cuco-bench/1";
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
  doc["runtime_versions"] = runtime_versions;  // as the harness saw them (rank 0 of the first run)
  doc["sizes"] = {{"bench", wl->bench_sizes}, {"verify", wl->verify_sizes}};
  doc["timing"] = {{"warmup", wl->warmup}, {"iters", wl->iters}, {"verify_runs", wl->verify_runs},
                   {"verify_fraction", wl->verify_fraction}};
  doc["run_dir"] = fs::absolute(run_dir).string();
  doc["store"] = fs::absolute(run_dir / "cuco.db").string();
  nlohmann::json ej = nlohmann::json::array();
  for (const auto& e : entries) {
    nlohmann::json x = {{"name", e.name},
                        {"kind", e.kind},
                        {"file", e.file},
                        {"variant", e.variant.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.variant)},
                        {"part", e.part.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.part)},
                        {"knobs", e.knobs},
                        {"description", e.description},
                        {"store_id", e.store_id},
                        {"record", e.record.ToJson()}};
    ej.push_back(x);
  }
  doc["entries"] = ej;
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
  cmd->add_option("--world-size", a->world_size, "Ranks (default: the workload's world_size)");
  cmd->add_option("--gpus", a->gpus, "GPU ids to use (default: all)")->delimiter(',');
  cmd->add_option("--run-dir", a->run_dir, "Where the store, logs and bench.json go (default: cuco-runs/bench-<workload>-w<N>)");
  cmd->add_option("--only", a->only, "Run only these entries: seed, variant names, candidate file names, peers")
      ->delimiter(',');
  cmd->add_flag("--no-peers", a->no_peers, "Do not run the PyTorch peers");
  cmd->add_flag("--unsafe-no-sandbox", a->unsafe_no_sandbox, "Run candidates WITHOUT the sandbox (bwrap + seccomp), with your own rights: only where no sandbox works; every record says UNSANDBOXED");
  cmd->add_option("--json", a->json_path, "Also write the JSON (always written to <run-dir>/bench.json) to this file");
  cmd->add_option("--label", a->label, "A label kept in the JSON and the store (e.g. the machine or the change tested)");
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
