#include "scaffold/served_file.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "scaffold/init_find_loop.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/program_text.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

namespace {

// How far below main the call into another file is looked for (main -> run -> run_profile).
constexpr int kDepth = 4;

}  // namespace

std::optional<ServedFile> FunctionInAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others) {
  const Analysis& a = *f.analysis;
  std::set<std::string> direct;
  const std::set<std::string> reaching = CommNamesOf(a, "main", &direct);
  std::set<std::string> seen = {"main"};
  std::string caller = "main";
  for (int depth = 0; depth < kDepth; ++depth) {
    size_t b = 0, e = 0;
    if (!DefinitionLines(f.raw, caller, &b, &e)) return std::nullopt;
    const std::string def = BlankCommentsAndLiterals(f.raw.substr(b, e - b));
    std::vector<std::string> order;  // the functions caller calls that reach the communication, in order
    for (const auto& [name, args] : CallsIn(def))
      if (reaching.count(name) && !seen.count(name) && std::find(order.begin(), order.end(), name) == order.end())
        order.push_back(name);
    std::string next;  // the last one called once: in another source file, or main's to look below
    for (auto it = order.rbegin(); it != order.rend() && next.empty(); ++it) {
      const AnalyzedFunction* fn = FindFunction(a, *it);
      if (fn == nullptr || CallsPerRun(def, *it) != 1) continue;
      const std::string file = SourceFileName(fn->file);
      if (file == f.file) {
        next = *it;
        break;
      }
      for (size_t i = 0; i < others.size(); ++i)
        if (others[i].source && SourceFileName(others[i].path) == file) return ServedFile{*it, i};
    }
    if (next.empty()) return std::nullopt;
    seen.insert(next);
    caller = next;
  }
  return std::nullopt;
}

ProgramFacts ServingAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others, const ServedFile& s,
                                std::vector<ProgramFile>* others_out) {
  const ProgramFile& served = others[s.file];
  ProgramFacts g = f;
  g.file = SourceFileName(served.path);
  g.path = served.path;
  g.unit_name = served.name;
  g.raw = served.text;
  g.code = WithoutInactiveLines(*f.analysis, served.path, StripComments(served.text));
  g.entry = s.function;
  g.main_takes_args = MainTakesArguments(f.raw);
  g.forced_loop_line = 0;
  g.other_code.clear();
  g.other_code.push_back({f.file, f.code});
  for (const auto& [name, code] : f.other_code)
    if (name != g.file) g.other_code.push_back({name, code});
  ProgramFile main_file{f.file, RenameIdentifiers(f.raw, {{"main", "cuco_program_main"}}), true,
                        f.analysis->path.empty() ? f.file : f.analysis->path};
  others_out->clear();
  others_out->push_back(std::move(main_file));
  for (size_t i = 0; i < others.size(); ++i)
    if (i != s.file) others_out->push_back(others[i]);
  return g;
}

bool MainTakesArguments(const std::string& text) {
  static const std::regex bare(R"(\bmain\s*\(\s*(void\s*)?\)\s*\{)");
  return !std::regex_search(BlankCommentsAndLiterals(text), bare);
}

}  // namespace cuco::scaffold_internal
