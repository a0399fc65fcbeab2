#include "bench/bench_peers.h"

#include <algorithm>
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "evaluate/judge.h"
#include "evaluate/timing_precision.h"
#include "launch/launcher.h"
#include "launch/subprocess.h"
#include "util/files.h"
#include "util/runtime_dir.h"
#include "util/text.h"

namespace cuco {
namespace {

namespace fs = std::filesystem;

// Where bench/peers/<workload>.py is: --peers-dir, else beside the workloads folder (the
// repository's bench/peers), else ./bench/peers, else the source tree cuco was built from.
fs::path FindPeerScript(const PeerOptions& a, const WorkloadConfig& wl, std::string* looked) {
  std::vector<fs::path> dirs;
  if (!a.peers_dir.empty()) {
    dirs.push_back(a.peers_dir);
  } else {
    dirs.push_back(wl.dir.parent_path().parent_path() / "bench" / "peers");
    dirs.push_back(fs::current_path() / "bench" / "peers");
    dirs.push_back(SourceDir() / "bench" / "peers");
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

// One entry of the peer's result file (bench/peers/README.md) as a table row: "error" fails it,
// "skipped" skips it (a peer that cannot run here, e.g. a library that is not installed), and a
// full entry's "check" (its own output against a reference) marks it self-checked, or fails it
// when the check did not pass.
BenchRow PeerEntryRow(const nlohmann::json& e, const std::string& detail) {
  BenchRow r;
  r.name = e.value("name", std::string("?"));
  r.part = e.contains("part") && e["part"].is_string() ? e["part"].get<std::string>() : "";
  r.kind = r.part == "compute" || r.part == "comm" ? "peer-part" : "peer";
  r.detail = detail;
  auto num = [&](const nlohmann::json& j, const char* k) { return j.contains(k) && j[k].is_number() ? j[k].get<double>() : -1.0; };
  r.median_ms = num(e, "median_ms");
  r.p10_ms = num(e, "p10_ms");
  r.p90_ms = num(e, "p90_ms");
  const nlohmann::json check = e.contains("check") && e["check"].is_object() ? e["check"] : nlohmann::json();
  if (e.contains("skipped") && e["skipped"].is_string()) {
    r.status = "skipped";
    r.reason = e["skipped"].get<std::string>();
  } else if (e.contains("error") && e["error"].is_string()) {
    r.status = "failed";
    r.reason = e["error"].get<std::string>();
  } else if (!(r.median_ms > 0)) {
    r.status = "failed";
    r.reason = "no valid median_ms in the peer's result";
  } else if (check.is_object() && !check.value("ok", false)) {
    r.status = "failed";
    r.reason = fmt::format("its own output check failed: rel L2 {:.3g}, max abs {:.3g} ({})", num(check, "rel_l2"),
                           num(check, "max_abs"), check.value("what", std::string("against its reference")));
  } else {
    r.status = "ok";
    r.peer_checked = check.is_object();
    if (r.peer_checked)
      r.detail += fmt::format("; checked: rel L2 {:.3g}, max abs {:.3g}", num(check, "rel_l2"), num(check, "max_abs"));
  }
  return r;
}

// Whether `python` can run the peer: "" when it can (*said: torch's version for a CUDA workload, which
// needs PyTorch with CUDA, else Python's: cuco's own CPU tests need only Python), else why not.
std::string ProbePeerPython(const std::string& python, bool cuda, std::string* said) {
  constexpr int kNoCudaInTorch = 7;  // the probe's exit code when torch has no CUDA
  const std::string probe =
      cuda ? fmt::format("import sys, torch; print(torch.__version__); sys.exit(0 if torch.cuda.is_available() else {})",
                         kNoCudaInTorch)
           : "import sys; print(sys.version.split()[0])";
  auto check = RunCapture({python, "-c", probe}, 180);
  *said = LastLine(check.output);
  if (!check.outcome.started) return fmt::format("{} could not be started: {}", python, check.outcome.start_error);
  if (cuda && check.outcome.exit_code == kNoCudaInTorch)
    return fmt::format("torch {} is installed but torch.cuda.is_available() is false", *said);
  if (!check.outcome.ok())
    return cuda ? fmt::format("{} cannot import torch ({})", python, said->empty() ? check.outcome.Describe() : *said)
                : fmt::format("{} does not run ({})", python, check.outcome.Describe());
  return "";
}

// The peer script's ranks: the workload's bench sizes, warm-up, iterations (each entry's timed loop
// sized after its warm-up as the supervisor sizes a first bench's: --timed-seconds) and tolerances as flags,
// its result file `dir`/result.json, on the GPU session's GPUs (or its MPS daemon's).
RankJob PeerRankJob(const PeerOptions& a, const WorkloadConfig& wl, const fs::path& script, const fs::path& dir, int world,
                    bool cuda, const GpuSession& gpu) {
  RankJob job;
  job.argv = {a.python, script.string()};
  for (const auto& [k, v] : wl.bench_sizes) job.argv.insert(job.argv.end(), {"--size", k + "=" + std::to_string(v)});
  job.argv.insert(job.argv.end(), {"--warmup", std::to_string(wl.warmup), "--iters", std::to_string(std::max(20, wl.iters)),
                                   "--timed-seconds", fmt::format("{}", kFirstBenchTimedSeconds), "--max-iters",
                                   std::to_string(kMaxRetimeIters), "--rel-l2", fmt::format("{}", wl.tol_rel_l2), "--max-abs",
                                   fmt::format("{}", wl.tol_max_abs), "--out", (dir / "result.json").string()});
  job.env["PYTHONUNBUFFERED"] = "1";
  job.world_size = world;
  job.gpus = gpu.gpus();
  if (cuda) {
    for (const auto& [k, v] : gpu.SupervisorEnv()) job.env[k] = v;
    if (gpu.mps()) job.gpus.clear();  // the server's devices, numbered from 0
  }
  job.log_dir = (dir / "logs").string();
  job.rendezvous_dir = (dir / "rendezvous").string();
  job.timeout_s = a.limit_s > 0 ? a.limit_s : std::max(300.0, wl.bench_s);
  return job;
}

}  // namespace

PeerOutcome RunPeers(const PeerOptions& a, const WorkloadConfig& wl, Cascade& cascade, int world,
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

  std::string said;
  if (const std::string no = ProbePeerPython(a.python, cuda, &said); !no.empty()) return skip(name, no);
  if (cuda) j["torch"] = said;
  else j["python_version"] = said;

  // Under the conditions of cuco's own entries: each rank an MPS client of a daemon of cuco's for
  // these GPUs when the entries had one (the peer then has no supervisor beside it, but the same
  // MPS server between it and the GPU); else each rank alone on its GPU, one context each.
  GpuSession gpu;
  if (cuda) {
    if (!cascade.has_gpus()) return skip(name, "no GPU found on this machine");
    auto l = cascade.pool().Acquire(world);
    if (!l.ok()) return skip(name, l.status().message());
    gpu.Open(std::move(*l), cascade.toolchain().gpus, cascade.timing_plan());
  }
  const std::string method = !cuda     ? "its own process per rank"
                             : gpu.mps() ? "MPS (cuco's own daemon; each rank its own process, no supervisor beside it)"
                                         : "own process per rank, no MPS (one CUDA context per GPU: nothing time-sliced)";
  j["timing_method"] = method;
  fs::path dir = run_dir / "peers";
  std::error_code ec;
  fs::remove_all(dir, ec);
  MakeDirs(dir);
  const fs::path result = dir / "result.json";
  const RankJob job = PeerRankJob(a, wl, script, dir, world, cuda, gpu);
  j["argv"] = job.argv;
  j["log_dir"] = job.log_dir;
  j["gpus"] = gpu.gpus();
  std::cerr << fmt::format("cuco bench: peer {} on {} rank(s)...\n", name, world);
  auto t0 = std::chrono::steady_clock::now();
  auto outcome = MakeLocalLauncher()->Run(job);
  j["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  gpu.StopDaemon();
  if (cuda) j["gpu_session"] = gpu.ToJson();
  auto fail = [&](const std::string& why) {
    j["status"] = "failed";
    j["reason"] = why;
    out.rows.push_back(PeerRow(name, "failed", why, script.string()));
    return out;
  };
  if (!outcome.ok()) return fail(outcome.status().message());
  // The result file, as far as the peer got: rank 0 rewrites it after every entry, so a peer that
  // failed or ran out of time still gives the entries it finished.
  nlohmann::json res;
  if (auto text = ReadFile(result); text.ok()) res = nlohmann::json::parse(*text, nullptr, false);
  const bool readable = res.is_object() && res.contains("entries") && res["entries"].is_array();
  if (readable) {
    j["output"] = res;
    if (res.contains("torch") && res["torch"].is_string()) j["torch"] = res["torch"];
    const std::string torch = j["torch"].is_string() ? " (torch " + j["torch"].get<std::string>() + ")" : "";
    for (const auto& e : res["entries"]) {
      out.rows.push_back(PeerEntryRow(e, name + torch));
      out.rows.back().method = method;
    }
  }
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
    if (readable && !out.rows.empty()) why = "after the entries above: " + why;
    return fail(why + "; logs in " + job.log_dir);
  }
  if (!fs::exists(result)) return fail("the peer wrote no result file " + result.string());
  if (!readable) return fail(result.string() + " is not {\"entries\": [...]} JSON");
  if (out.rows.empty()) return fail("the peer reported no entries");
  j["status"] = "ok";
  return out;
}

}  // namespace cuco
