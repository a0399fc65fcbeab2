#include "scaffold/reference_cu.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "scaffold/generated_text.h"
#include "scaffold/iteration_io.h"

namespace cuco::scaffold_internal {

std::string ReferenceCu(const ProgramFacts& f) {
  std::string r;
  r += fmt::format("// {}_harness: the frozen side (inputs, reference, comparison), scaffolded by `cuco init`\n", f.name);
  r += fmt::format("// from {}. Candidates never see it. The contract is runtime/include/cuco/workload_spec.h;\n", f.file);
  r += "// workloads/gemm_reducescatter/reference.cu is a complete example.\n";
  r += "//\n";
  r += "// TODO(cuco init): every function below. fill_inputs writes each input element as a pure function\n";
  r += "// of (seed, tensor, rank, index) with cuco/impl/random.h; check regenerates every rank's inputs\n";
  r += "// from the seed (never reading the input buffers), computes the expected output rows simply and\n";
  r += "// obviously correctly (fp64), compares, and scrubs its scratch memory before returning.\n";
  r += "#include <cuco/impl/random.h>\n#include <cuco/workload_spec.h>\n\n";
  r += "#include <cuda_bf16.h>\n#include <cuda_runtime.h>\n\n";
  r += "#include <cstdint>\n#include <string>\n#include <vector>\n\n";
  r += "namespace cuco_frozen {\n\n";
  r += fmt::format("const char* workload_name() {{ return \"{}_harness\"; }}\n\n", f.name);
  r += "cuco::Status validate_sizes(const cuco::Sizes& sizes, int world) {\n";
  r += "  (void)sizes;\n  (void)world;\n";
  r += "  // TODO(cuco init): check every size is there and divides as the workload needs; then return Ok.\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): reference.cu is a skeleton: write validate_sizes, buffers, \"\n";
  r += "                             \"output_rows, fill_inputs and check (see harness/README.md)\");\n";
  r += "}\n\n";
  r += "std::vector<BufferSpec> buffers(const cuco::Sizes& sizes, int rank, int world) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n";
  r += fmt::format("  // TODO(cuco init): this rank's element counts. Names and roles guessed from {}'s\n", f.file);
  r += "  // dependency graph; types from its NCCL datatype. Same order and count on every rank.\n";
  r += "  return {\n";
  std::set<std::string> used;
  auto spec = [&](const std::string& base, bool output) {
    std::string n = IoName(base);
    if (output && std::find(f.io.inputs.begin(), f.io.inputs.end(), base) != f.io.inputs.end()) n += "_out";
    if (!used.insert(std::string(output ? "o:" : "i:") + n).second) return;
    r += fmt::format("      {{\"{}\", Role::{}, DType::{}, 0 /* TODO(cuco init): elements */}},  // {}\n", n,
                     output ? "kOutput" : "kInput", f.dtype, CommentText(base, 60));
  };
  for (const auto& b : f.io.inputs) spec(b, false);
  for (const auto& b : f.io.outputs) spec(b, true);
  r += "  };\n";
  r += "}\n\n";
  r += "int64_t output_rows(const cuco::Sizes& sizes, int rank, int world) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n";
  r += "  return 0;  // TODO(cuco init): rows of this rank's output (the unit check() samples)\n";
  r += "}\n\n";
  r += "cuco::Status fill_inputs(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,\n";
  r += "                         cudaStream_t stream) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n  (void)seed;\n  (void)io;\n  (void)stream;\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): fill_inputs (stream_key(seed, tensor, rank), uniform_pm1)\");\n";
  r += "}\n\n";
  r += "cuco::Status check(const cuco::Sizes& sizes, int rank, int world, uint64_t seed, const cuco::IO& io,\n";
  r += "                   const CheckPlan& plan, cudaStream_t stream, CheckResult* result) {\n";
  r += "  (void)sizes;\n  (void)rank;\n  (void)world;\n  (void)seed;\n  (void)io;\n  (void)plan;\n  (void)stream;\n";
  r += "  *result = CheckResult{};\n";
  r += "  return cuco::Status::Error(\"TODO(cuco init): check (regenerate the inputs, compute the planned rows, compare)\");\n";
  r += "}\n\n";
  r += "}  // namespace cuco_frozen\n";
  return r;
}

}  // namespace cuco::scaffold_internal
