// cuco doctor: what this machine has, and which cuco features it enables.
#include <iostream>

#include "analyze/analysis.h"
#include "cli/commands.h"
#include "launch/sandbox.h"
#include "report/d3_library.h"
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

}  // namespace

void AddDoctorCommand(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("doctor", "Detect nvcc, NCCL (device API, LSA, GIN), cuBLASLt, NVSHMEM, GPUs, "
                                           "NVLink topology, MPI, Slurm, the candidate sandbox (bwrap, seccomp) and libclang; "
                                           "say what each missing piece disables");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print the detection as JSON");
  cmd->callback([json, exit_code] {
    Toolchain tc = DetectToolchain();
    const SandboxSupport& sandbox = DetectSandbox();
    const LibclangStatus clang = DetectLibclang();
    const Result<std::string> d3 = FindD3();
    if (*json) {
      nlohmann::json j = ToJson(tc);
      j["sandbox"] = SandboxSupportToJson(sandbox);
      j["libclang"] = {{"found", clang.found}, {"path", clang.path}, {"version", clang.version}, {"tried", clang.tried}};
      j["d3"] = {{"found", d3.ok()}, {"path", d3.ok() ? *d3 : ""}, {"message", d3.ok() ? "" : d3.status().message()}};
      std::cout << j.dump(2) << "\n";
    } else {
      std::cout << FormatReport(tc) << FormatSandboxReport(sandbox) << FormatLibclang(clang) << FormatD3(d3);
    }
    *exit_code = tc.nvcc.empty() && tc.cxx.empty() ? kExitEnvironment : kExitOk;
  });
}

}  // namespace cuco
