#include "scaffold/helper_loop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <vector>

#include "scaffold/branches_run.h"
#include "scaffold/callee_defaults.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/unreached_comm.h"

namespace cuco::scaffold_internal {

namespace {

ProgramDefaults DefaultsBelowMain(const ProgramFacts& f, const std::string& fn, int depth) {
  const AnalyzedFunction* d = FindFunction(*f.analysis, fn);
  if (d == nullptr || SourceFileName(d->file) != f.file) return {};
  return DefaultsOverCalls(f.code, *d, [&](int line) {
    const std::string caller = FunctionAt(f.raw, *f.analysis, f.file, line);
    if (caller.empty() || caller == f.entry) return f.run_defaults;
    if (caller == fn || depth >= 4) {  // a recursion, or calls too deep to follow: nothing known
      ProgramDefaults none;
      none.enumerators = f.run_defaults.enumerators;
      return none;
    }
    return DefaultsBelowMain(f, caller, depth + 1);
  });
}

// The functions main reaches, its calls on lines its default arguments never run left out (the
// arm of `if (cfg.run == "decode")` where `run` is "prefill" unless an option says otherwise).
std::set<std::string> ReachedWhenRun(const ProgramFacts& f) {
  size_t b = 0, e = 0;
  if (!DefinitionLines(f.raw, f.entry, &b, &e)) return CalledFrom(*f.analysis, f.entry);
  const std::set<std::string> never = CalledOnlyWhereNeverRun(f.raw, b, e, f.run_defaults);
  std::set<std::string> reached = {f.entry};
  for (const AnalyzedOp& op : f.analysis->ops)
    if (op.kind == "call" && !op.api.empty() && op.function == f.entry && !never.count(op.api))
      for (const std::string& fn : CalledFrom(*f.analysis, op.api)) reached.insert(fn);
  return reached;
}

}  // namespace

ProgramDefaults HelperDefaults(const ProgramFacts& f, const std::string& fn) { return DefaultsBelowMain(f, fn, 0); }

std::optional<int> HelperTimedLoop(const ProgramFacts& f, const FoundLoop& found, InitPassTrace* trace) {
  if (!found.loop.region || found.loop_fn != f.entry || f.forced_loop_line > 0 || found.threads)
    return std::nullopt;
  std::map<std::string, int> loops;  // function -> the line of its loop reaching the communication
  for (const std::string& fn : ReachedWhenRun(f)) {
    if (fn == found.loop_fn || !found.comm.count(fn)) continue;
    const AnalyzedFunction* d = FindFunction(*f.analysis, fn);
    if (d == nullptr || SourceFileName(d->file) != f.file) continue;
    const ProgramDefaults defaults = HelperDefaults(f, fn);
    LoopSearch search;
    search.defaults = &defaults;
    const Result<TimedLoop> l = FindTimedLoop(f.file, f.raw, found.comm, fn, std::string::npos, search);
    // Two loops made one (rank_split_loops.h) stand at their `if`: named by the first loop's line,
    // as --loop would name it.
    if (l.ok() && !l->region) loops[fn] = l->served_lines.empty() ? l->line : l->served_lines.front().first;
  }
  // A function whose loop calls another's (a loop over variants around a variant's timed loop) gives way.
  std::map<std::string, int> innermost;
  for (const auto& [fn, line] : loops) {
    bool outer = false;
    for (const std::string& below : CalledFrom(*f.analysis, fn)) outer |= below != fn && loops.count(below) > 0;
    if (!outer) innermost[fn] = line;
  }
  if (innermost.size() == 1) return innermost.begin()->second;
  if (innermost.size() > 1) {
    std::vector<std::string> each;
    for (const auto& [fn, line] : innermost) each.push_back(fmt::format("{} (`--loop {}:{}`)", fn, f.file, line));
    trace->Add(fmt::format("the functions main calls hold loops reaching the communication, {}: which one the program "
                           "times is not clear, so main's statements are served; --loop names one",
                           fmt::join(each, ", ")));
  }
  return std::nullopt;
}

}  // namespace cuco::scaffold_internal
