#include "scaffold/iteration_use.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <tuple>

#include "scaffold/branches_run.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

IterationCode IterationCodeOf(const ProgramFacts& f, const FoundLoop& found, std::vector<std::string>* guesses) {
  const TimedLoop& loop = found.loop;
  IterationCode c;
  c.begin = loop.begin, c.end = loop.end;
  std::string body = loop.body;
  // (graph_launchers names cudaGraphLaunch and the program's functions reaching it whenever the
  // program captures its communication, the only case CapturingLoop finds a capture for.)
  const std::vector<Tok> body_tokens = Scan(loop.body);
  if (!body_tokens.empty() && Calls(body_tokens, 0, body_tokens.size() - 1, found.graph_launchers))
    if (auto cap = CapturingLoop(f.raw, found.comm)) {
      c.begin = cap->first, c.end = cap->second, c.by_copy = true;
      body = f.raw.substr(c.begin, c.end - c.begin);
      guesses->push_back(fmt::format("{}:{}: the iteration launches CUDA graphs captured at lines {}-{}: their buffers are "
                                     "the iteration's, bound by copy (the harness copies its inputs into the program's "
                                     "buffers and its outputs out of them: a graph keeps the pointers it was captured with)",
                                     f.file, loop.line, LineOf(f.raw, c.begin), LineOf(f.raw, c.end)));
    }
  c.ranges = {{LineOf(f.raw, c.begin), LineOf(f.raw, c.end > c.begin ? c.end - 1 : c.end)}};
  if (!c.by_copy && !loop.served_lines.empty()) c.ranges = loop.served_lines;  // two loops made one: theirs alone
  for (const auto& l : loop.lambdas) c.ranges.push_back({l.line, l.end_line});
  c.walked = body;
  for (const auto& l : loop.lambdas) c.walked = f.raw.substr(l.begin, l.end - l.begin) + "\n" + c.walked;
  return c;
}



std::map<std::string, int> CopiedOut(const ProgramFacts& f, const FoundLoop& found, const DeviceIndexing& per_gpu) {
  const TimedLoop& loop = found.loop;
  std::map<std::string, int> copied;
  size_t fn_begin = 0, fn_end = 0;
  const bool fn_known = DefinitionLines(f.raw, found.loop_fn, &fn_begin, &fn_end) && fn_end > loop.end;
  const std::string after = fn_known ? BlankCommentsAndLiterals(f.raw.substr(loop.end, fn_end - loop.end)) : "";
  for (const auto& op : f.analysis->ops) {
    if (op.function != found.loop_fn || SourceFileName(op.file) != f.file || !CopiesToHost(op)) continue;
    const bool later = op.line > loop.end_line;
    const std::string host = op.args.empty() ? "" : BufferBase(op.args[0]);
    static const std::regex plain(R"([A-Za-z_]\w*)");
    const bool kept = op.line >= loop.line && !later && std::regex_match(host, plain) &&
                      std::regex_search(after, std::regex("\\b" + host + "\\b"));
    if (later || kept)
      for (const auto& r : op.reads) copied.emplace(per_gpu.Normalize(r, "@"), op.line);
  }
  return copied;
}

namespace {

// The buffers whose last access in an arm of an `if` (`arm_last_write`: by buffer, arm and side, whether
// that access writes) is a write that nothing after the `if` reads or writes again.
void MarkLastWrittenInArms(const std::map<std::tuple<std::string, size_t, int>, bool>& arm_last_write, BufferUse* use) {
  BufferUse& u = *use;
  for (const auto& [key, write] : arm_last_write) {
    const auto& [b, i, side] = key;
    const int if_end = std::max(u.arms[i].then_lines.second, u.arms[i].else_lines.second);
    auto after = [&](const std::map<std::string, std::vector<int>>& lines) {
      const auto it = lines.find(b);
      return it != lines.end() && std::any_of(it->second.begin(), it->second.end(), [&](int l) { return l > if_end; });
    };
    if (write && !after(u.read_lines) && !after(u.write_lines)) u.last_written_in_an_arm.insert(b);
  }
}

// A GEMM of one precision (`cublasLtMatmul` on CUDA_R_16F layouts, its A, B and C untyped `void*`):
// where the collectives name the type of some of its buffers, one type, the others it touches get it
// too, through chains of GEMMs (a layer's second GEMM reading the first's result). The harness then
// fills them with fresh values of that type instead of the program's own bytes.
void SpreadThroughGemms(const std::vector<std::vector<std::string>>& gemms,
                        std::map<std::string, std::set<std::string>>* datatypes) {
  for (bool spread = true; spread;) {
    spread = false;
    for (const std::vector<std::string>& g : gemms) {
      std::set<std::string> types;
      for (const std::string& b : g)
        if (const auto it = datatypes->find(b); it != datatypes->end()) types.insert(it->second.begin(), it->second.end());
      if (types.size() != 1) continue;
      for (const std::string& b : g)
        if (!datatypes->count(b)) (*datatypes)[b] = types, spread = true;
    }
  }
}

// The branches of the iteration's code and of the lambdas it calls (branches_run.h), under the
// harness's start; *arms their `if` ... `else` arms.
BranchLines IterationBranches(const ProgramFacts& f, const IterationCode& code, const TimedLoop& loop,
                              std::vector<IfElseArms>* arms) {
  BranchLines branches = BranchLinesIn(f.raw, code.begin, code.end, f.run_defaults);
  *arms = IfElseArmsIn(f.raw, code.begin, code.end);
  for (const auto& l : loop.lambdas) {
    const BranchLines in_lambda = BranchLinesIn(f.raw, l.begin, l.end, f.run_defaults);
    branches.conditional.insert(branches.conditional.end(), in_lambda.conditional.begin(), in_lambda.conditional.end());
    branches.not_run.insert(branches.not_run.end(), in_lambda.not_run.begin(), in_lambda.not_run.end());
    for (const IfElseArms& a : IfElseArmsIn(f.raw, l.begin, l.end)) arms->push_back(a);
  }
  return branches;
}

}  // namespace

BufferUse UseOf(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                const IterationCode& code, const DeviceIndexing& per_gpu) {
  const Analysis& a = *f.analysis;
  const TimedLoop& loop = found.loop;
  // The iteration's accesses, in order, in main's terms: main's ops in the loop (and in the lambdas
  // it calls), each helper call followed into the helper.
  std::map<std::string, std::string> texts = {{f.file, f.raw}};
  for (const ProgramFile& pf : other_files) texts[SourceFileName(pf.name)] = pf.text;
  LoopAccesses flat(a, texts);
  flat.UseDefaults(f.run_defaults);
  flat.FollowPointers(found.pointer_calls);
  // main's ops in the loop (and in the lambdas it calls), walked in the text's order.
  std::vector<const AnalyzedOp*> in_range;
  for (const auto& op : a.ops) {
    if (op.function != found.loop_fn || SourceFileName(op.file) != f.file) continue;
    for (const auto& [lo, hi] : code.ranges)
      if (op.line >= lo && op.line <= hi) {
        in_range.push_back(&op);
        break;
      }
  }
  std::vector<Access> accesses;
  // Local pointers and references in the loop and its lambdas name the buffer they alias
  // (`__half* y_mb = out + off;`, a projected program's `Stage& st = stages[s];`). One aliasing either
  // of two (`float* c = (buf == 0) ? ping : pong;`, double buffers) names both: the loop is walked
  // once more with the other.
  std::map<std::string, std::string> others;
  const std::map<std::string, std::string> aliases = LocalAliases(code.walked, per_gpu.arrays(), &others);
  flat.Walk(code.walked, in_range, found.loop_fn, aliases, 0, &accesses);
  if (!others.empty()) {
    std::map<std::string, std::string> alt = aliases;
    for (const auto& [name, other] : others) alt[name] = other;
    flat.Walk(code.walked, in_range, found.loop_fn, alt, 0, &accesses);
  }
  BufferUse u;
  // Code of the loop (and its lambdas) under a condition the harness's start does not decide: a
  // rank may skip it (a prefill rank never receives). A buffer written only there is an output some
  // rank may not write. What the start decides against never runs: its accesses are none.
  const BranchLines branches = IterationBranches(f, code, loop, &u.arms);
  const std::vector<std::pair<int, int>>& conditional = branches.conditional;
  std::erase_if(accesses, [&](const Access& acc) { return InLineRanges(branches.not_run, acc.line); });
  auto under_if = [&](int line) { return InLineRanges(conditional, line); };
  // Pointers the loop swaps (`std::swap(a, a_new)`, double buffers): an access after a swap reaches
  // the buffer the other name held when the iteration started, which is what the binds name.
  u.swaps = SwapsIn(f.raw, code.begin, code.end);
  for (const auto& l : loop.lambdas)
    for (const Swap& w : SwapsIn(f.raw, l.begin, l.end)) u.swaps.push_back(w);
  // (buffer, arm, then 0 / else 1): whether its last access there so far is a write.
  std::map<std::tuple<std::string, size_t, int>, bool> arm_last_write;
  std::vector<std::vector<std::string>> gemms;  // each GEMM's buffers
  for (const Access& acc : accesses) {
    std::vector<std::pair<std::string, bool>> touched;  // (buffer, written), in the access's order
    for (const auto& b0 : acc.reads) {
      if (IsNullPointerLiteral(b0)) continue;  // `ncclAllReduce(nullptr, ...)`, a kernel's null argument: no buffer
      const std::string b = per_gpu.Normalize(NameAtStart(b0, acc.line, u.swaps), "@");
      touched.push_back({b, false});
      if (!u.first_read.count(b)) u.first_read[b] = true, u.order.push_back(b);
      u.last_write[b] = false;
      if (acc.line > 0) u.read_lines[b].push_back(acc.line);
      if (acc.to_host) u.read_back[b] = acc.line;
      else u.read_back.erase(b);
    }
    for (const auto& b0 : acc.writes) {
      if (IsNullPointerLiteral(b0)) continue;
      const std::string b = per_gpu.Normalize(NameAtStart(b0, acc.line, u.swaps), "@");
      touched.push_back({b, true});
      if (!u.first_read.count(b)) {
        const bool partly = std::count(acc.partial_writes.begin(), acc.partial_writes.end(), b0) > 0;
        u.first_read[b] = partly, u.order.push_back(b);
        if (partly) u.partly_written_first[b] = acc.line;
      }
      u.last_write[b] = true;
      u.read_back.erase(b);
      u.written.insert(b);
      if (acc.line > 0) u.write_lines[b].push_back(acc.line);
      const bool root_only = std::count(acc.root_writes.begin(), acc.root_writes.end(), b0) > 0;
      if (root_only) u.written_by_root.insert(b);
      if (!under_if(acc.line) && !acc.helper_if && !root_only) u.written_always.insert(b);
    }
    for (const std::string& b : acc.unnamed)
      if (!IsNullPointerLiteral(b)) u.unnamed.insert(b);
    if (!acc.datatype.empty())
      for (const auto& [b, written] : touched) u.datatypes[b].insert(acc.datatype);
    if (acc.gemm) {
      gemms.emplace_back();
      for (const auto& [b, written] : touched) gemms.back().push_back(b);
    }
    if (acc.line > 0)  // the last access so far of each buffer in each arm holding this line
      for (size_t i = 0; i < u.arms.size(); ++i)
        for (const int side : {0, 1}) {
          const std::pair<int, int>& r = side == 0 ? u.arms[i].then_lines : u.arms[i].else_lines;
          if (acc.line < r.first || acc.line > r.second) continue;
          for (const auto& [b, written] : touched) arm_last_write[{b, i, side}] = written;
        }
  }
  MarkLastWrittenInArms(arm_last_write, &u);
  SpreadThroughGemms(gemms, &u.datatypes);
  u.copied_out = CopiedOut(f, found, per_gpu);
  return u;
}

}  // namespace cuco::scaffold_internal
