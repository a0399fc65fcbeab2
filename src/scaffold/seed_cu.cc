#include "scaffold/seed_cu.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>
#include <vector>

#include "scaffold/generated_text.h"
#include "scaffold/iteration_io.h"
#include "workload/evolve_blocks.h"

namespace cuco::scaffold_internal {
namespace {

// One op as a comment line: file:line api(args), kernels with their launch configuration.
std::string OpSummary(const AnalyzedOp& op, const std::string& main_file) {
  // The op's own file when the program has several.
  const std::string file = op.file.empty() ? main_file : std::filesystem::path(op.file).filename().string();
  std::string args;
  for (size_t i = 0; i < op.args.size(); ++i) args += (i ? ", " : "") + op.args[i];
  if (op.kind == "kernel") return CommentText(fmt::format("{}:{} {}<<<{}, {}>>>({})", file, op.line, op.api, op.grid, op.block, args), 160);
  return CommentText(fmt::format("{}:{} {}({})", file, op.line, op.api, args), 160);
}

// Hint for moving one op of the program into cuco_candidate_run.
std::string RunHint(const AnalyzedOp& op, const ProgramFacts& f) {
  if (op.kind == "gemm") return op.api == "cublasLtMatmul" ? "handle ctx.cublaslt(), stream ctx.stream" : "cuBLAS handle made in setup, cublasSetStream(handle, ctx.stream)";
  if (IsCommOp(op)) return "communicator ctx.comm, stream ctx.stream (or a ctx.side_stream(i))";
  if (op.kind == "group") return "keep the group around the calls it held";
  if (op.kind == "copy") return "cudaMemcpyAsync on ctx.stream";
  if (op.kind == "kernel") {
    for (const auto& fn : f.analysis->functions)
      if (fn.name == op.api) return fmt::format("on ctx.stream; move the kernel ({}:{}) into this block", f.file, fn.line);
    return "on ctx.stream; move the kernel's definition into this block";
  }
  return "";
}

// Hint for the program's setup ops (what the harness already owns, what setup does instead).
std::string SetupHint(const AnalyzedOp& op, const std::set<std::string>& io_bases) {
  if (op.kind == "alloc") {
    if (io_bases.count(op.assigns)) return "an input/output: the harness allocates it (io.in / io.out)";
    return "scratch: allocate in setup (ctx.alloc_symmetric for NCCL windows), free in teardown";
  }
  if (op.api == "ncclCommSplit") return "ncclCommSplit(ctx.comm, ...) in setup (every rank), destroy in teardown";
  if (op.kind == "comm_setup") return "drop: the harness gives ctx.comm";
  if (op.kind == "stream") return "drop: use ctx.stream and ctx.side_stream(i) (created by the harness)";
  if (op.kind == "event") return "drop: use ctx.record_event(i, stream) / ctx.wait_event(stream, i); the harness times";
  if (op.kind == "window") return "ctx.alloc_symmetric allocates and registers a symmetric window";
  if (op.kind == "device_comm") return "ctx.create_dev_comm(reqs, &dev_comm) in setup";
  if (op.kind == "sync" || op.kind == "mpi") return "drop: the harness synchronises and launches the ranks";
  return "";
}

// The frozen top of the file: what to do, the harness's includes and the libraries'.
std::string SeedPreamble(const ProgramFacts& f) {
  std::string s;
  s += fmt::format("// {}_harness candidate file, scaffolded by `cuco init` from {}.\n", f.name, f.file);
  s += "//\n";
  s += "// TODO(cuco init): move the program's iteration into the EVOLVE block below, following the\n";
  s += "// harness contract (runtime/include/cuco/harness.h): setup once (allocate scratch, build plans),\n";
  s += "// run one iteration on ctx.stream reading io.in(...) and writing io.out(...), teardown frees\n";
  s += "// what setup made. The harness owns main, MPI/NCCL bootstrap, streams, timing and checking.\n";
  s += "// Only the code inside the EVOLVE block may change in candidates; these includes are frozen.\n";
  s += "#include <cuco/harness.h>\n";
  s += "#include <cuco/codesign.h>  // the co-design blocks; `cuco transform` needs it\n\n";
  s += "#include <cublasLt.h>\n";
  if (std::find(f.libs.begin(), f.libs.end(), "cublas") != f.libs.end()) s += "#include <cublas_v2.h>\n";
  s += "#include <cuda_bf16.h>\n#include <cuda_fp16.h>\n#include <cuda_runtime.h>\n#include <nccl.h>\n#include <nccl_device.h>\n\n";
  s += "#include <algorithm>\n#include <cstddef>\n#include <cstdint>\n#include <cstdio>\n#include <string>\n#include <vector>\n\n";
  return s;
}

// The start of the EVOLVE block: the analysis's edges, the guessed buffers, and State.
std::string SeedFindings(const ProgramFacts& f) {
  const Analysis& a = *f.analysis;
  std::string s;
  s += kEvolveStartLine;
  s += "\n";
  s += fmt::format("// What `cuco analyze` found in {} (../analysis.txt has the whole report).\n", f.file);
  for (const auto& e : a.edges) {
    const auto& from = a.ops[e.from];
    const auto& to = a.ops[e.to];
    s += "//   " + CommentText(fmt::format("{} {}:{} -> {} {}:{} through {}", e.role == "producer" ? "producer" : "collective",
                                 from.api, from.line, e.role == "producer" ? "collective" : "consumer", to.api, to.line,
                                 e.buffer), 200) + "\n";
  }
  // "name (program's expression)"; outputs the program updates in place get "_out", as in reference.cu.
  auto names = [&](const std::vector<std::string>& v, bool outputs) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      const bool in_place = outputs && std::find(f.io.inputs.begin(), f.io.inputs.end(), v[i]) != f.io.inputs.end();
      const std::string n = IoName(v[i]) + (in_place ? "_out" : "");
      out += (i ? ", " : "") + n + (n != v[i] ? " (" + v[i] + (in_place ? ", in place" : "") + ")" : "");
    }
    return out.empty() ? std::string("none found") : out;
  };
  s += "// Guessed from the dependency graph (reference.cu declares them; check it):\n";
  s += "//   inputs:  " + CommentText(names(f.io.inputs, false), 200) + "\n";
  s += "//   outputs: " + CommentText(names(f.io.outputs, true), 200) + "\n";
  if (!f.io.scratch.empty()) s += "//   scratch: " + CommentText(names(f.io.scratch, false) + " (allocate in setup)", 200) + "\n";
  s += "namespace {\n\n";
  s += "struct State {\n";
  s += "  // TODO(cuco init): what setup makes and run uses (scratch buffers, plans, handles).\n";
  std::set<std::string> members = {"iterations"};
  for (const auto& b : f.io.scratch)
    if (members.insert(IoName(b)).second) s += fmt::format("  void* {} = nullptr;  // {}\n", IoName(b), CommentText(b, 60));
  s += "  int64_t iterations = 0;\n";
  s += "};\n\n";
  s += "}  // namespace\n\n";
  return s;
}

// cuco_candidate_setup: the sizes, and where the program's non-data ops go.
std::string SeedSetup(const ProgramFacts& f, const HarnessSizes& h) {
  const Analysis& a = *f.analysis;
  std::string s;
  s += "cuco::Status cuco_candidate_setup(cuco::RankContext& ctx, const cuco::Sizes& sizes, void** state) {\n";
  s += "  auto* s = new State();\n";
  s += "  *state = s;\n";
  if (!h.sizes.empty()) {
    s += "  // The sizes workload.toml defines:\n";
    for (const auto& z : h.sizes) s += fmt::format("  const int64_t {} = sizes.get(\"{}\");\n", z.name, z.name);
    for (const auto& z : h.sizes) s += fmt::format("  (void){};\n", z.name);
  }
  std::set<std::string> io_bases(f.io.inputs.begin(), f.io.inputs.end());
  io_bases.insert(f.io.outputs.begin(), f.io.outputs.end());
  // The program's other ops grouped by where they go, each group in source order.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // hint -> "api -> var (line)"
  for (const auto& op : a.ops) {
    if (IsDataOp(op)) continue;
    const std::string hint = SetupHint(op, io_bases);
    if (hint.empty()) continue;
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == hint; });
    if (it == groups.end()) it = groups.insert(groups.end(), {hint, {}});
    it->second.push_back(fmt::format("{}{} (:{})", op.api, op.assigns.empty() ? "" : " -> " + op.assigns, op.line));
  }
  if (!groups.empty()) s += fmt::format("  // TODO(cuco init): the rest of {}, and where each part goes:\n", f.file);
  for (const auto& [hint, items] : groups) {
    std::string line = "  //  ";
    for (size_t i = 0; i < items.size(); ++i) {
      if (line.size() + items[i].size() > 104) s += line + "\n", line = "  //  ";
      line += " " + items[i] + (i + 1 < items.size() ? "," : "");
    }
    s += line + "\n";
    s += "  //       -> " + CommentText(hint, 200) + "\n";
  }
  s += "  (void)ctx;\n  (void)sizes;\n";
  s += "  return cuco::Status::Ok();\n";
  s += "}\n\n";
  return s;
}

// cuco_candidate_run: the iteration's ops, each with how it moves into the harness.
std::string SeedRun(const ProgramFacts& f) {
  const Analysis& a = *f.analysis;
  std::string s;
  s += "cuco::Status cuco_candidate_run(cuco::RankContext& ctx, void* state, const cuco::IO& io) {\n";
  s += "  auto* s = static_cast<State*>(state);\n";
  s += "  ++s->iterations;\n";
  s += fmt::format("  // TODO(cuco init): one iteration of {}, in its order, enqueued on ctx.stream:\n", f.file);
  for (int i : f.iteration) {
    const auto& op = a.ops[i];
    s += "  //   " + OpSummary(op, f.file) + "\n";
    const std::string hint = RunHint(op, f);
    if (!hint.empty()) s += "  //       -> " + CommentText(hint, 200) + "\n";
  }
  if (!f.io.inputs.empty() || !f.io.outputs.empty()) {
    s += "  // Buffers: ";
    std::string sep;
    for (const auto& b : f.io.inputs) s += sep + "io.in(\"" + IoName(b) + "\").ptr", sep = ", ";
    for (const auto& b : f.io.outputs) {
      const bool also_in = std::find(f.io.inputs.begin(), f.io.inputs.end(), b) != f.io.inputs.end();
      s += sep + "io.out(\"" + IoName(b) + (also_in ? "_out" : "") + "\").ptr", sep = ", ";
    }
    s += "\n";
  }
  s += "  (void)ctx;\n  (void)io;\n";
  s += fmt::format("  return cuco::Status::Error(\"TODO(cuco init): harness/seed.cu is a skeleton: move the iteration of {} \"\n",
                   f.file);
  s += "                             \"into cuco_candidate_run (harness/README.md)\");\n";
  s += "}\n\n";
  return s;
}

// cuco_candidate_teardown, and the end of the EVOLVE block.
std::string SeedTeardown() {
  std::string s;
  s += "void cuco_candidate_teardown(cuco::RankContext& ctx, void* state) {\n";
  s += "  (void)ctx;\n";
  s += "  auto* s = static_cast<State*>(state);\n";
  s += "  // TODO(cuco init): free what setup allocated (not the harness's buffers or windows).\n";
  s += "  delete s;\n";
  s += "}\n";
  s += kEvolveEndLine;
  s += "\n";
  return s;
}

}  // namespace

std::string SeedCu(const ProgramFacts& f, const HarnessSizes& h) {
  return SeedPreamble(f) + SeedFindings(f) + SeedSetup(f, h) + SeedRun(f) + SeedTeardown();
}

}  // namespace cuco::scaffold_internal
