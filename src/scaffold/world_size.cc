#include "scaffold/world_size.h"

#include <fmt/format.h>

#include <regex>

#include "scaffold/generated_text.h"
#include "scaffold/program_text.h"

namespace cuco::scaffold_internal {
namespace {

// A run of digits as a number, or -1 when it has more than 6 (no world size; std::stoi would throw).
int SmallNumber(const std::string& digits) { return digits.size() > 6 ? -1 : std::stoi(digits); }

}  // namespace

std::set<std::string> WorldSizeVariables(const std::string& code) {
  std::set<std::string> vars;
  static const std::regex size_var_re(R"(\b(?:MPI_Comm_size|ncclCommCount)\s*\([^,()]*,\s*&\s*([A-Za-z_][\w.]*))");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), size_var_re); it != std::sregex_iterator(); ++it) {
    std::string v = (*it)[1].str();
    vars.insert(v.substr(v.find_last_of('.') == std::string::npos ? 0 : v.find_last_of('.') + 1));
  }
  return vars;
}

WorldGuess GuessWorldSize(const std::string& raw, const std::string& code, const std::string& file,
                          const std::vector<FoundConstant>& constants, const std::set<std::string>& world_vars) {
  // 1. A check such as `world_size != 2` or `2 == nranks`.
  static const std::regex check_re(R"(\b([A-Za-z_][\w.]*(?:->\w+)?)\s*(==|!=)\s*(\d+)\b|\b(\d+)\s*(==|!=)\s*([A-Za-z_][\w.]*(?:->\w+)?)\b)");
  for (auto it = std::sregex_iterator(code.begin(), code.end(), check_re); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    std::string var = m[1].matched ? m[1].str() : m[6].str();
    const int value = SmallNumber(m[1].matched ? m[3].str() : m[4].str());
    const std::string last = var.substr(var.find_last_of(".>") == std::string::npos ? 0 : var.find_last_of(".>") + 1);
    if (value < 2 || value > 4096 || !IsWorldName(last, world_vars)) continue;
    return {value, fmt::format("{}:{}: `{}`", file, LineOf(code, static_cast<size_t>(m.position(0))), CommentText(m.str(0)))};
  }
  // 2. A constant named like a world size.
  for (const auto& c : constants)
    if (!Passed(c) && IsWorldName(c.name, world_vars) && c.value >= 1 && c.value <= 4096)
      return {static_cast<int>(c.value), fmt::format("{}:{}: {} {} = {}", file, c.line, c.how, c.name, c.value)};
  // 3. A launch line in a comment or string: `mpirun -np 4`, `srun -n 4`.
  static const std::regex np_re(R"(\b(mpirun|mpiexec|srun)\b[^\n]*?\s(?:-np|-n|--ntasks(?:=|\s+))\s*(\d+))");
  std::smatch m;
  if (std::regex_search(raw, m, np_re)) {
    const int v = SmallNumber(m[2].str());
    if (v >= 1 && v <= 4096)
      return {v, fmt::format("{}:{}: `{}`", file, LineOf(raw, static_cast<size_t>(m.position(0))), CommentText(m.str(0), 60))};
  }
  return {};
}

}  // namespace cuco::scaffold_internal
