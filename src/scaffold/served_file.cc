#include "scaffold/served_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "scaffold/branches_run.h"
#include "scaffold/init_find_loop.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/program_text.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

namespace {

// How far below main the call into another file is looked for (main -> run -> run_profile).
constexpr int kDepth = 4;

// Whether `def` (a function's text) calls `a` and `b` as alternatives: in one statement holding a
// ternary, or in the two arms of one if ... else.
bool Alternatives(const std::string& def, const std::string& a, const std::string& b) {
  std::smatch ma, mb;
  if (!std::regex_search(def, ma, std::regex("\\b" + a + "\\s*\\(")) ||
      !std::regex_search(def, mb, std::regex("\\b" + b + "\\s*\\(")))
    return false;
  const size_t pa = static_cast<size_t>(ma.position(0)), pb = static_cast<size_t>(mb.position(0));
  auto statement = [&](size_t at) {
    const size_t from = def.find_last_of(";{}", at);
    return std::make_pair(from == std::string::npos ? 0 : from, def.find(';', at));
  };
  const auto sa = statement(pa), sb = statement(pb);
  if (sa == sb && def.substr(sa.first, sa.second - sa.first).find('?') != std::string::npos) return true;
  const int la = LineOf(def, pa), lb = LineOf(def, pb);
  for (const IfElseArms& arms : IfElseArmsIn(def, 0, def.size())) {
    const bool a_then = InLineRanges({arms.then_lines}, la), a_else = InLineRanges({arms.else_lines}, la);
    const bool b_then = InLineRanges({arms.then_lines}, lb), b_else = InLineRanges({arms.else_lines}, lb);
    if ((a_then && b_else) || (a_else && b_then)) return true;
  }
  return false;
}

// Of `a` and `b`, alternatives in `code` (a function's text, comments blanked, literals kept:
// Alternatives), the one the program started as the harness starts it calls (`d`): `run_profile`
// of `(args.tp_mode == TpMode::Summa) ? run_profile(args) : run_profile_1d(args)` where parse_args
// sets tp_mode to Summa unless an option says otherwise; "" when the condition is not known.
std::string AlternativeTaken(const std::string& code, const std::string& a, const std::string& b,
                             const ProgramDefaults& d) {
  std::smatch ma, mb;
  if (!std::regex_search(code, ma, std::regex("\\b" + a + "\\s*\\(")) ||
      !std::regex_search(code, mb, std::regex("\\b" + b + "\\s*\\(")))
    return "";
  const size_t pa = static_cast<size_t>(ma.position(0)), pb = static_cast<size_t>(mb.position(0));
  const size_t from = code.find_last_of(";{}", std::min(pa, pb));
  const size_t start = from == std::string::npos ? 0 : from + 1, question = code.find('?', start);
  if (question < std::min(pa, pb)) {  // a ternary: its condition back to `=`, `return` or an open `(`
    size_t c = question;
    for (int depth = 0; c > start; --c) {
      const char ch = code[c - 1];
      if (ch == ')') ++depth;
      if (ch == '(' && depth-- == 0) break;
      const bool assign = ch == '=' && code[c] != '=' && c >= 2 && std::string("=!<>").find(code[c - 2]) == std::string::npos;
      if (depth == 0 && (assign || ch == ',')) break;
    }
    const std::string condition = code.substr(c, question - c);
    const size_t skip = condition.find("return") == std::string::npos ? 0 : condition.find("return") + 6;
    const Truth t = BranchTruth(code, c + skip, question, d);
    if (t != Truth::kTrue && t != Truth::kFalse) return "";
    size_t colon = question + 1;
    for (int depth = 0; colon < code.size() && !(depth == 0 && code[colon] == ':' && code[colon + 1] != ':' &&
                                                 code[colon - 1] != ':');
         ++colon)
      depth += code[colon] == '(' ? 1 : code[colon] == ')' ? -1 : 0;
    const std::string& then = pa < colon ? a : b;
    return t == Truth::kTrue ? then : then == a ? b : a;
  }
  const BranchLines lines = BranchLinesIn(code, 0, code.size(), d);
  if (InLineRanges(lines.not_run, LineOf(code, pa))) return b;
  if (InLineRanges(lines.not_run, LineOf(code, pb))) return a;
  return "";
}

// The index of the source file among `others` named `file` (SourceFileName), npos when none.
size_t SourceNamed(const std::vector<ProgramFile>& others, const std::string& file) {
  for (size_t i = 0; i < others.size(); ++i)
    if (others[i].source && SourceFileName(others[i].path) == file) return i;
  return std::string::npos;
}

// The index of the source file among `others` defining `fn` (by the analysis), npos when none.
size_t SourceDefining(const Analysis& a, const std::vector<ProgramFile>& others, const std::string& fn) {
  const AnalyzedFunction* d = FindFunction(a, fn);
  return d == nullptr ? std::string::npos : SourceNamed(others, SourceFileName(d->file));
}

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
      const size_t i = SourceDefining(a, others, *it);
      if (i == std::string::npos) continue;
      ServedFile s(*it, i);
      s.caller = caller;
      for (const std::string& g : order)  // one called instead of it by a condition
        if (g != *it && s.other.empty() && CallsPerRun(def, g) == 1 && Alternatives(def, g, *it)) {
          const size_t j = SourceDefining(a, others, g);
          if (j != std::string::npos) s.other = g, s.other_file = j;
        }
      // Where the condition is known as the harness starts the program, the one it calls.
      const std::string taken = s.other.empty() ? "" : AlternativeTaken(f.code.substr(b, e - b), s.function, s.other,
                                                                        f.run_defaults);
      if (!taken.empty() && taken == s.other) s.function = s.other, s.file = s.other_file;
      if (!taken.empty()) s.other.clear();
      return s;
    }
    if (next.empty()) return std::nullopt;
    seen.insert(next);
    caller = next;
  }
  return std::nullopt;
}

std::optional<ServedFile> ThreadsStartInAnotherFile(const ProgramFacts& f, const std::vector<ProgramFile>& others) {
  const auto& [file, line] = f.thread_start;
  if (line <= 0 || file == f.file) return std::nullopt;
  const size_t i = SourceNamed(others, file);
  if (i == std::string::npos) return std::nullopt;
  const std::string holder = FunctionAt(others[i].text, *f.analysis, file, line);
  std::set<std::string> direct;
  if (holder.empty() || holder == "main" || !CommNamesOf(*f.analysis, "main", &direct).count(holder)) return std::nullopt;
  return ServedFile(holder, i);
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
  ProgramFile main_file{f.file, RenameTokens(f.raw, {{"main", "cuco_program_main"}}, {.members = false, .calls_only = true}), true,
                        f.analysis->path.empty() ? f.file : f.analysis->path};
  others_out->clear();
  others_out->push_back(std::move(main_file));
  for (size_t i = 0; i < others.size(); ++i)
    if (i != s.file) others_out->push_back(others[i]);
  return g;
}

Status ChoiceBetweenFiles(const ProgramFacts& f, const ServedFile& s, int line, int other_line) {
  auto loop_of = [&](const std::string& fn, int at) {
    const AnalyzedFunction* d = FindFunction(*f.analysis, fn);
    const std::string name = d == nullptr ? fn : SourceFileName(d->file);
    return fmt::format("{} ({}:{}; `cuco init --loop {}:{}`)", fn, name, at, name, at);
  };
  size_t b = 0, e = 0;
  const int caller_line = DefinitionLines(f.raw, s.caller, &b, &e) ? LineOf(f.raw, b) : 1;
  return Status::InvalidArgument(fmt::format(
      "{}:{}: {} calls {} or {} by a condition cuco init cannot decide, each in another file and holding a timed "
      "loop; name the one the program runs with --loop",
      f.file, caller_line, s.caller, loop_of(s.other, other_line), loop_of(s.function, line)));
}

Result<ProgramFacts> ServingTheFileLoopNames(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                            std::vector<ProgramFile>* others_out) {
  const size_t i = SourceNamed(others, f.forced_loop_file);
  if (i == std::string::npos)
    return Status::InvalidArgument(fmt::format("--loop {}:{}: {} is none of the program's source files",
                                               f.forced_loop_file, f.forced_loop_line, f.forced_loop_file));
  const std::string holder = FunctionAt(others[i].text, *f.analysis, f.forced_loop_file, f.forced_loop_line);
  if (holder.empty())
    return Status::InvalidArgument(fmt::format("{}:{}: --loop names a line outside every function of {}",
                                               f.forced_loop_file, f.forced_loop_line, f.forced_loop_file));
  ProgramFacts g = ServingAnotherFile(f, others, ServedFile(holder, i), others_out);
  g.forced_loop_line = f.forced_loop_line;
  g.forced_loop_file.clear();
  return g;
}

}  // namespace cuco::scaffold_internal
