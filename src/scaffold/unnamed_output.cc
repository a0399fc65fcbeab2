#include "scaffold/unnamed_output.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

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
  static const std::regex identifier(R"([A-Za-z_]\w*)");
  for (const AnalyzedOp& copy : a.ops) {
    if (!CopiesToHost(copy) || copy.function == loop_fn || copy.args.empty()) continue;
    std::string fn = copy.function, base = BufferBase(copy.args[0]);
    for (int depth = 0; depth < 8; ++depth) {
      const AnalyzedFunction* def = FindFunction(a, fn);
      const auto param = def == nullptr ? std::vector<std::string>::const_iterator{}
                                        : std::find(def->params.begin(), def->params.end(), base);
      if (def == nullptr || param == def->params.end()) break;
      const size_t k = static_cast<size_t>(param - def->params.begin());
      // The call in the loop, else the function's one caller, followed on up.
      const AnalyzedOp* caller = nullptr;
      const AnalyzedOp* in_loop = nullptr;
      int callers = 0;
      for (const AnalyzedOp& op : a.ops) {
        if (op.kind != "call" || op.api != fn || op.args.size() <= k) continue;
        callers += 1, caller = &op;
        if (op.function == loop_fn && SourceFileName(op.file) == loop_file && op.line >= loop_line && op.line <= loop_end_line)
          in_loop = &op;
      }
      if (in_loop == nullptr && (callers != 1 || caller->function == loop_fn)) break;
      if (in_loop != nullptr) caller = in_loop;
      base = BufferBase(caller->args[k]);
      if (!std::regex_match(base, identifier)) break;
      if (in_loop == nullptr) {
        fn = caller->function;
        continue;
      }
      return fmt::format("its result reaches {0} only in host memory: {1} in {2} ({3}:{4}) copies it into `{5}`, {0}'s "
                         "`{6}` ({7}:{8}); the harness checks device buffers {0} holds before its loop: have {2} write "
                         "its result to a device buffer {0} allocates there and passes in",
                         loop_fn, copy.api, copy.function, SourceFileName(copy.file), copy.line, BufferBase(copy.args[0]),
                         base, loop_file, caller->line);
    }
  }
  return "";
}

}  // namespace cuco::scaffold_internal
