#include "scaffold/gpus_per_process.h"

#include <fmt/format.h>

#include <regex>
#include <vector>

#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// The identifiers multiplied at the top level of `expr` (`nRanks * nDev` -> nRanks, nDev).
std::vector<std::string> Factors(const std::string& expr) {
  static const std::regex factor(R"(^\s*\(?\s*([A-Za-z_]\w*)\s*\)?\s*$)");
  std::vector<std::string> out;
  size_t from = 0;
  const std::string e = expr + "*";
  for (size_t star; (star = e.find('*', from)) != std::string::npos; from = star + 1) {
    std::smatch m;
    const std::string part = e.substr(from, star - from);
    if (std::regex_match(part, m, factor)) out.push_back(m[1].str());
  }
  return out;
}

// Whether `expr` multiplies `var` (`myRank * nDev + i`, `nDev*myRank+i`).
bool Multiplies(const std::string& expr, const std::string& var) {
  return std::regex_search(expr, std::regex("\\b" + var + R"(\s*\*|\*\s*)" + var + "\\b"));
}

}  // namespace

std::optional<GpusPerProcess> FixedGpusPerProcess(const ProgramFacts& f) {
  if (f.analysis == nullptr || (f.launcher != "mpirun" && f.launcher != "cuco")) return std::nullopt;
  for (const AnalyzedOp& op : f.analysis->ops) {
    if (op.api != "ncclCommInitRank" || op.args.size() != 4 || op.function != "main") continue;
    for (const std::string& var : Factors(op.args[1])) {
      if (!Multiplies(op.args[3], var)) continue;
      const std::regex declared(R"((?:^|[;{}])\s*(?:(?:const|constexpr|static)\s+)*(?:int|unsigned|long|size_t|int32_t|int64_t)\s+)" +
                                var + R"(\s*=\s*(\d+)\s*;)");
      std::vector<std::smatch> found;
      for (auto it = std::sregex_iterator(f.code.begin(), f.code.end(), declared); it != std::sregex_iterator(); ++it)
        found.push_back(*it);
      if (found.size() != 1) continue;
      const std::smatch& m = found.front();
      const size_t digits = static_cast<size_t>(m.position(1)), length = static_cast<size_t>(m.length(1));
      const int64_t count = std::stoll(m[1].str());
      if (count < 2 || f.raw.compare(digits, length, m[1].str()) != 0) continue;
      return GpusPerProcess{var, count, LineOf(f.code, digits), digits, length};
    }
  }
  return std::nullopt;
}

ProgramFacts WithOneGpuPerProcess(const ProgramFacts& f, const GpusPerProcess& g) {
  ProgramFacts one = f;
  const std::string literal = "1" + std::string(g.length - 1, ' ');
  one.raw.replace(g.digits, g.length, literal);
  one.code.replace(g.digits, g.length, literal);
  SetProgramArguments(&one, f.program_args);
  return one;
}

std::string OneGpuPerProcessGuess(const ProgramFacts& f, const GpusPerProcess& g) {
  return fmt::format("{}:{}: `{} = {}` GPUs per process: the harness starts the program with 1, one GPU per rank "
                     "(its NCCL ranks are then its processes); program mode runs it as written",
                     f.file, g.line, g.var, g.count);
}

}  // namespace cuco::scaffold_internal
