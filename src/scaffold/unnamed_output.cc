#include "scaffold/unnamed_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "scaffold/host_buffers.h"
#include "scaffold/loop_accesses.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

UnnamedOutputWhy UnnamedOutput(const Analysis& a, const std::string& loop_fn) {
  const AnalyzedOp* written = nullptr;
  for (const AnalyzedOp& op : a.ops)
    if ((op.kind == "collective" || op.kind == "p2p") && !op.recv.empty() && op.function != loop_fn) {
      written = &op;
      break;
    }
  if (written == nullptr) return {};
  std::string clause = fmt::format("its NCCL calls write `{}` ({} in {}, {}:{})", WithoutCasts(written->recv), written->api,
                                   written->function, SourceFileName(written->file), written->line);
  // Up through the parameters: the one call of the function that passes the buffer, in a function
  // other than the loop's (main's own names would have been bound).
  std::string fn = written->function, base = BufferBase(written->recv);
  for (int depth = 0; depth < 8; ++depth) {
    const AnalyzedFunction* def = FindFunction(a, fn);
    if (def == nullptr) break;
    // The chain's head is what a parameter names (`pool` of `pool.buffers`); its tail stays.
    const size_t tail = std::min(base.find('.'), base.find("->"));
    const std::string head = base.substr(0, tail), rest = tail == std::string::npos ? "" : base.substr(tail);
    const auto param = std::find(def->params.begin(), def->params.end(), head);
    if (param == def->params.end()) {
      return {clause + fmt::format(", a local of {} (or a member or a global there), which main never names: the "
                                   "harness binds the buffers main declares before its loop",
                                   fn),
              fn};
    }
    const size_t k = static_cast<size_t>(param - def->params.begin());
    const AnalyzedOp* caller = nullptr;
    int callers = 0;
    for (const AnalyzedOp& op : a.ops)
      if (op.kind == "call" && op.api == fn && op.args.size() > k) callers += 1, caller = &op;
    if (callers != 1 || caller->function == loop_fn) {
      return {clause + fmt::format(", through {}'s parameter `{}`, which {} something cuco cannot follow to a name "
                                   "of main (an object holding the buffers, or an expression)",
                                   fn, head, callers == 1 ? caller->function + " passes" : "its callers pass"),
              ""};
    }
    base = BufferBase(caller->args[k]) + rest;
    fn = caller->function;
    clause += fmt::format(", {}'s `{}` ({}:{})", fn, base, SourceFileName(caller->file), caller->line);
  }
  return {clause, ""};
}

std::string HostOnlyResult(const Analysis& a, const std::string& loop_fn, const std::string& loop_file, int loop_line,
                           int loop_end_line) {
  for (const HostCopy& c : HostCopiesOfIteration(a, loop_fn, loop_file, loop_line, loop_end_line)) {
    if (!c.to_host) continue;
    return fmt::format("its result reaches {0} only in host memory: {1} in {2} ({3}:{4}) copies it into `{5}`, {0}'s "
                       "`{6}` ({7}:{8}), which is neither a std::vector nor an array of a size {0} gives it before its "
                       "loop (new[], malloc, `T x[N]`), the host memory the harness binds; have {2} write its result "
                       "to a device buffer {0} allocates there and passes in",
                       loop_fn, c.copy->api, c.copy->function, SourceFileName(c.copy->file), c.copy->line,
                       BufferBase(c.copy->args[0]), c.name, loop_file, c.line);
  }
  return "";
}

}  // namespace cuco::scaffold_internal
