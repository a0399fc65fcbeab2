#include "scaffold/harness_toml.h"

#include <fmt/format.h>

#include <algorithm>

#include "scaffold/generated_text.h"
#include "util/text.h"

namespace cuco::scaffold_internal {
namespace {

// Placeholder tolerances for outputs of `dtype` (a DType enumerator); returns what they assume.
const char* Tolerance(const std::string& dtype, double* rel_l2, double* max_abs) {
  if (dtype == "kBF16") return *rel_l2 = 0.01, *max_abs = 0.0625, "bf16 (8 significant bits)";
  if (dtype == "kF16") return *rel_l2 = 0.005, *max_abs = 0.01, "fp16 (11 significant bits)";
  if (dtype == "kF64") return *rel_l2 = 1e-9, *max_abs = 1e-9, "fp64";
  if (dtype == "kI32" || dtype == "kI64" || dtype == "kU8") return *rel_l2 = 0, *max_abs = 0, "integers (exact)";
  return *rel_l2 = 1e-4, *max_abs = 1e-3, "fp32";
}

}  // namespace

std::string HarnessToml(const ProgramFacts& f, const HarnessSizes& h) {
  std::string t;
  t += fmt::format("# {}_harness: harness-mode skeleton scaffolded by `cuco init` from ../{}.\n", f.name, f.file);
  t += "# It loads as written; seed.cu and reference.cu fail every run with a TODO(cuco init) message\n";
  t += "# until they are filled in (README.md here says what and how to check it).\n";
  t += KeyLine("name = " + TomlQuoted(f.name + "_harness"));
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " + TomlLiteralOrQuoted(fmt::format("TODO(cuco init): what each rank holds and produces. From {}: {}",
                                                         f.file, colls.empty() ? "no collective" : colls)));
  t += KeyLine("mode = \"harness\"", "harness | program");
  t += KeyLine("language = \"cuda\"");
  t += KeyLine("seed = \"seed.cu\"");
  t += KeyLine("reference = \"reference.cu\"");
  t += KeyLine(fmt::format("world_size = {}", f.world.size), f.world.source.empty() ? "TODO(cuco init): 2 assumed" : f.world.source);
  t += KeyLine(fmt::format("world_sizes = [{}]", f.world.size), "add the other rank counts the workload supports");
  t += "\n[build]\n";
  t += KeyLine("flags = " + TomlList(f.build_flags), f.build_flags.size() > 1 ? "-O3 and the program's own flags" : "");
  std::vector<std::string> libs;
  for (const auto& l : f.libs)
    if (l != "mpi") libs.push_back(l);
  t += KeyLine("libs = " + TomlList(libs), "the harness bootstraps NCCL itself: no MPI");
  t += "\n# Sizes reach the seed and the reference as sizes.get(\"NAME\").\n";
  t += "[sizes.verify]\n";
  if (h.sizes.empty()) {
    t += fmt::format("# TODO(cuco init): no integer constants found in {}; name the workload's sizes here\n", f.file);
    t += "# (small ones: every verified iteration is checked against the reference), e.g. N = 1024\n";
  } else {
    t += "# TODO(cuco init): the bench sizes halved down to <= 1024; check they still divide as the code needs\n";
    for (const auto& s : h.sizes) t += KeyLine(fmt::format("{} = {}", s.name, VerifySize(s.value)));
  }
  t += "\n[sizes.bench]\n";
  if (h.sizes.empty()) t += "# TODO(cuco init): the sizes to time, e.g. N = 8192\n";
  for (const auto& s : h.sizes) t += KeyLine(fmt::format("{} = {}", s.name, s.value), s.source);
  if (!h.tuning.empty()) {
    t += "# Not sizes (tuning constants; they stay in the code):";
    for (const auto& s : h.tuning) t += fmt::format(" {} = {} ({})", s.name, s.value, s.source);
    t += "\n";
  }
  double rel = 0, abs = 0;
  const char* why = Tolerance(f.dtype, &rel, &abs);
  t += "\n[tolerance]\n";
  t += fmt::format("# TODO(cuco init): placeholders for {} outputs. Derive both from the arithmetic (rounding of\n", why);
  t += "# each partial result and of the reduction, for the largest world size) and say why here.\n";
  t += KeyLine(fmt::format("rel_l2 = {}", rel));
  t += KeyLine(fmt::format("max_abs = {}", abs));
  t += "\n[timing]\n";
  t += KeyLine(fmt::format("warmup = {}", h.warmup ? std::max<int64_t>(0, h.warmup->value) : 5),
               h.warmup ? h.warmup->source : "");
  t += KeyLine(fmt::format("iters = {}", h.iters ? std::max<int64_t>(20, h.iters->value) : 20),
               h.iters ? h.iters->source + " (at least 20)" : "at least 20");
  t += KeyLine("verify_runs = 2");
  t += KeyLine("verify_fraction = 0.25");
  t += "\n[limits]\n";
  t += KeyLine("compile_s = 600");
  t += KeyLine("verify_s = 120");
  t += KeyLine("bench_s = 300");
  return t;
}

}  // namespace cuco::scaffold_internal
