#include "scaffold/harness_readme.h"

#include <fmt/format.h>

namespace cuco::scaffold_internal {

std::string HarnessReadme(const ProgramFacts& f) {
  std::string m;
  m += fmt::format("# {}_harness (skeleton from `cuco init`)\n\n", f.name);
  m += fmt::format("The harness-mode twin of `../{}`: trusted figures, and what `cuco evolve` searches.\n", f.file);
  m += "Nothing here runs yet: every `TODO(cuco init)` marks something to fill in\n";
  m += "(`grep -n 'TODO(cuco init)' *`), and until then each run fails with one of them.\n\n";
  m += "1. `workload.toml`: the description, the sizes (guessed from the program's constants; the\n";
  m += "   comment on each says where it came from), the tolerance (derive it from the arithmetic).\n";
  m += "2. `reference.cu`: the buffers (names and roles guessed from the program's dependency graph),\n";
  m += "   `fill_inputs`, and `check`, which recomputes the expected rows from the seed\n";
  m += "   (contract: `runtime/include/cuco/workload_spec.h`; example: `workloads/gemm_reducescatter/`).\n";
  m += "3. `seed.cu`: the iteration of the program inside the EVOLVE block: allocations in\n";
  m += "   `cuco_candidate_setup`, kernels, GEMMs and the collectives on `ctx.stream` / `ctx.comm` in\n";
  m += "   `cuco_candidate_run`, frees in `cuco_candidate_teardown` (contract: `runtime/include/cuco/harness.h`).\n";
  m += "   The comments list what `cuco analyze` found and where each part goes.\n\n";
  m += "Check it:\n\n";
  m += "    cuco eval <this folder> --stage compile   # builds seed + reference + harness (no GPU needed)\n";
  m += "    cuco eval <this folder>                   # on a GPU machine: verify and bench the seed\n";
  m += "    cuco transform <this folder>              # then: generation 0 of the search\n\n";
  m += "See docs/adding-a-workload.md and docs/workload-contract.md.\n";
  return m;
}

}  // namespace cuco::scaffold_internal
