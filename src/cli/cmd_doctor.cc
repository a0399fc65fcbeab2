// cuco doctor: what this machine has, and which cuco features it enables.
#include <iostream>

#include "analyze/analysis.h"
#include "cli/commands.h"
#include "evaluate/gpu_session.h"
#include "launch/sandbox.h"
#include "report/d3_library.h"
#include "launch/slurm_launcher.h"
#include "toolchain/toolchain.h"

namespace cuco {

namespace {

// libclang: what `cuco analyze` and `cuco init` parse programs with, and what its absence costs.
std::string FormatLibclang(const LibclangStatus& c) {
  std::string out = "libclang\n";
  if (c.found) {
    out += "  status      found: " + (c.version.empty() ? std::string("version unknown") : c.version) + "\n";
    out += "  library     " + (c.path.empty() ? std::string("?") : c.path) +
           " (CUCO_LIBCLANG=<path> picks another; =none turns it off)\n";
    out += "  enables     `cuco analyze` and `cuco init` parse programs with clang (types, macros, includes)\n";
    return out;
  }
  out += "  status      not found (tried " + c.tried + ")\n";
  out += "  disables    parsing with clang: `cuco analyze` and `cuco init` fall back to the lexical scan (no types, "
         "macros or includes resolved: more guesses for you to check)\n";
  out += "  install     libclang-14-dev (Debian), or set CUCO_LIBCLANG=<path of libclang.so>\n";
  return out;
}

// D3: what `cuco report` and `cuco serve` draw the tree and charts with.
std::string FormatD3(const Result<std::string>& d3) {
  std::string out = "d3 (report charts)\n";
  if (d3.ok()) return out + "  status      found: " + *d3 + " (inlined into every `cuco report` page)\n";
  return out + "  status      " + d3.status().message() + "\n  disables    the lineage tree and charts of `cuco report` / "
               "`cuco serve` (their tables still work)\n";
}

// Slurm beyond the version: the mode the launcher would use, and the partitions and GPU gres that
// sinfo shows (only when srun is on PATH).
nlohmann::json SlurmJson(const Toolchain& tc) {
  nlohmann::json j = {{"found", !tc.srun.empty()}, {"version", tc.slurm_version}, {"in_allocation", tc.in_slurm_allocation}};
  if (tc.srun.empty()) return j;
  if (!tc.slurm_error.empty()) {  // installed without a cluster: sinfo would fail the same way
    j["reachable"] = false;
    j["error"] = tc.slurm_error;
    return j;
  }
  j["launcher_mode"] = SlurmMode(SlurmOptions{});
  SlurmClusterView v = QuerySlurmCluster();
  j["reachable"] = v.reachable;
  if (!v.reachable) j["error"] = v.error;
  j["partitions"] = nlohmann::json::array();
  for (const auto& p : v.partitions)
    j["partitions"].push_back({{"name", p.name}, {"default", p.is_default}, {"avail", p.avail}, {"nodes", p.nodes},
                               {"state", p.state}, {"gres", p.gres}});
  return j;
}

// `text` with every line after the first indented under the report's values (14 columns).
std::string IndentFollowingLines(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\n              ") : std::string(1, c);
  return out;
}

std::string FormatSlurm(const nlohmann::json& j) {
  std::string out = "Slurm\n";
  if (!j["found"].get<bool>()) return out + "  status      not found (srun not on PATH): launcher = \"slurm\" unavailable\n";
  if (j["version"].get<std::string>().empty())
    return out + "  status      srun is installed, but there is no Slurm cluster here: launcher = \"slurm\" unavailable\n" +
           "  srun said   " + IndentFollowingLines(j.value("error", std::string())) + "\n";
  out += "  version     " + j["version"].get<std::string>() + "\n";
  out += std::string("  allocation  ") + (j["in_allocation"].get<bool>() ? "inside one (SLURM_JOB_ID set): evaluations run as srun steps"
                                                                        : "none: evaluations run as sbatch jobs") + "\n";
  if (!j["reachable"].get<bool>())
    return out + "  cluster     sinfo failed: " + IndentFollowingLines(j["error"].get<std::string>()) + "\n";
  for (const auto& p : j["partitions"])
    out += "  partition   " + p["name"].get<std::string>() + (p["default"].get<bool>() ? " (default)" : "") + ": " +
           std::to_string(p["nodes"].get<int>()) + " node(s) " + p["state"].get<std::string>() + ", " + p["avail"].get<std::string>() +
           ", gres " + p["gres"].get<std::string>() + "\n";
  return out;
}

}  // namespace

void AddDoctorCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("doctor", "Detect nvcc, NCCL (device API, LSA, GIN), cuBLASLt, NVSHMEM, GPUs, "
                                           "NVLink topology, MPI, Slurm, the candidate sandbox (bwrap, seccomp), the timing method "
                                           "(cuco's own MPS daemon, started once here to check it) and libclang; "
                                           "say what each missing piece disables");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the detection as JSON");
  cmd->callback([json, exit_code] {
    Toolchain tc = DetectToolchain();
    const SandboxSupport& sandbox = DetectSandbox();
    const LibclangStatus clang = DetectLibclang();
    const Result<std::string> d3 = FindD3();
    const TimingPlan timing = CheckTimingPlan(tc);
    if (*json) {
      nlohmann::json j = ToJson(tc);
      j["sandbox"] = SandboxSupportToJson(sandbox);
      j["timing"] = TimingPlanJson(timing);
      j["libclang"] = {{"found", clang.found}, {"path", clang.path}, {"version", clang.version}, {"tried", clang.tried}};
      j["d3"] = {{"found", d3.ok()}, {"path", d3.ok() ? *d3 : ""}, {"message", d3.ok() ? "" : d3.status().message()}};
      j["slurm"] = SlurmJson(tc);
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << FormatReport(tc) << FormatSandboxReport(sandbox) << FormatTimingSection(timing) << FormatLibclang(clang)
                << FormatD3(d3)
                << FormatSlurm(SlurmJson(tc));
    }
    *exit_code = tc.nvcc.empty() && tc.cxx.empty() ? kExitEnvironment : kExitOk;
  });
}

}  // namespace cuco
