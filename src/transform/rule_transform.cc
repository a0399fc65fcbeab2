#include "transform/rule_transform.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "analyze/analysis.h"
#include "util/source_text.h"
#include "workload/deny_list.h"
#include "workload/evolve_blocks.h"
#include "workload/program_seed.h"
#include "transform/seed_source.h"
#include "transform/program_transform.h"

namespace cuco {
namespace {

using transform_internal::ApplyEdits;
using transform_internal::SeedCall;
using transform_internal::Edit;
using transform_internal::Mapping;
using transform_internal::NcclMap;
using transform_internal::SeedSource;

constexpr const char* kObject = "cuco_dc";

// The declared name in a parameter such as "const cuco::IO& io" ("" when it has none, as in
// "cuco::RankContext&" or "int").
std::string ParamName(const std::string& param) {
  std::string p = Trim(param);
  const size_t eq = p.find('=');
  if (eq != std::string::npos) p = Trim(p.substr(0, eq));
  if (p.empty() || !IsCIdentChar(p.back())) return "";
  size_t b = p.size();
  while (b > 0 && IsCIdentChar(p[b - 1])) --b;
  const std::string before = Trim(p.substr(0, b));
  if (before.empty() || (before.size() >= 2 && before.compare(before.size() - 2, 2, "::") == 0)) return "";
  return p.substr(b);
}

// The definition `name(params) {` inside a block: its parameters (as code: comments blanked),
// where each parameter's text ends, and the byte after its '{'.
struct Definition {
  std::vector<std::string> params;
  std::vector<size_t> param_ends;  // one past each parameter's last non-space byte
  size_t body = std::string::npos;
  int line = 0;
  bool found = false, in_block = false;
};
Definition FindDefinition(const SeedSource& src, const std::string& name) {
  Definition d;
  const std::string& m = src.masked();
  for (const SeedCall& c : src.Calls([&](const std::string& n) { return n == name; })) {
    size_t p = src.NextCode(c.close + 1);
    // Skip trailing qualifiers such as noexcept before the body.
    while (p != std::string::npos && IsCIdentChar(m[p])) {
      while (p < m.size() && IsCIdentChar(m[p])) ++p;
      p = src.NextCode(p);
    }
    if (p == std::string::npos || m[p] != '{') continue;  // a declaration or a call
    d.found = true;
    d.in_block = c.in_block;
    d.line = c.line;
    d.body = p + 1;
    int depth = 0;
    size_t start = c.open + 1;
    for (size_t i = c.open + 1; i <= c.close; ++i) {
      const char ch = m[i];
      if (ch == '(' || ch == '<' || ch == '[' || ch == '{') ++depth;
      else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0 && i != c.close) --depth;
      if ((ch == ',' && depth == 0) || i == c.close) {
        size_t end = i;
        while (end > start && std::isspace(static_cast<unsigned char>(m[end - 1]))) --end;
        d.params.push_back(m.substr(start, end - start));
        d.param_ends.push_back(end);
        start = i + 1;
      }
    }
    return d;
  }
  return d;
}

// cuco_candidate_setup and cuco_candidate_run, both defined and inside EVOLVE blocks: the names of
// setup's RankContext and run's IO (*ctx_out, *io_out), an unnamed one (`cuco::RankContext&
// /*ctx*/`) given a name by an edit.
Status CandidateEntryNames(const std::string& seed_path, const Definition& setup, const Definition& run,
                           std::string* ctx_out, std::string* io_out, std::vector<Edit>* edits) {
  if (!setup.found || !run.found)
    return Status::InvalidArgument(seed_path + ":1: cuco_candidate_setup and cuco_candidate_run must be defined in this file");
  if (!setup.in_block)
    return Status::InvalidArgument(seed_path + ":" + std::to_string(setup.line) +
                         ": cuco_candidate_setup is frozen (outside every EVOLVE block): the transform must add the "
                         "collective set-up there");
  if (!run.in_block)
    return Status::InvalidArgument(seed_path + ":" + std::to_string(run.line) +
                         ": cuco_candidate_run is frozen (outside every EVOLVE block): the transform must bind the "
                         "harness buffers there");
  // The RankContext of setup and the IO of run; an unnamed one (`cuco::RankContext& /*ctx*/`) is
  // given a name.
  if (setup.params.empty() || setup.params[0].find("RankContext") == std::string::npos)
    return Status::InvalidArgument(seed_path + ":" + std::to_string(setup.line) +
                                   ": cuco_candidate_setup's first parameter is not the cuco::RankContext&");
  std::string& ctx_name = *ctx_out;
  ctx_name = ParamName(setup.params[0]);
  if (ctx_name.empty()) {
    ctx_name = "cuco_ctx";
    edits->push_back({setup.param_ends[0], 0, " " + ctx_name});
  }
  std::string& io_name = *io_out;
  io_name.clear();
  for (size_t i = 0; i < run.params.size(); ++i)
    if (run.params[i].find("IO") != std::string::npos) {
      io_name = ParamName(run.params[i]);
      if (io_name.empty()) {
        io_name = "cuco_io";
        edits->push_back({run.param_ends[i], 0, " " + io_name});
      }
    }
  if (io_name.empty())
    return Status::InvalidArgument(seed_path + ":" + std::to_string(run.line) +
                                   ": cuco_candidate_run has no const cuco::IO& parameter");
  return Status::Ok();
}

// A buffer the peers read (the send buffer of a collective), as the seed names it.
struct PeerRead {
  std::string expr, base, api;
  int line = 0;
};

// The names in the EVOLVE blocks that hold harness buffers, which are symmetric already: `io_name`,
// and locals made from io.in(...) / io.out(...) or from such a local (`auto* y = static_cast<T*>(
// io.out("y").ptr);`, `T* seg = y + k;`), to a fixed point.
std::set<std::string> HarnessNamesIn(const SeedSource& src, const std::string& io_name) {
  const std::string& m = src.masked();
  std::set<std::string> harness = {io_name};
  for (bool grew = true; grew;) {
    grew = false;
    for (size_t eq = m.find('='); eq != std::string::npos; eq = m.find('=', eq + 1)) {
      if (!src.InBlock(eq) || (eq + 1 < m.size() && m[eq + 1] == '=') ||
          (eq > 0 && std::string("=!<>+-*/%&|^").find(m[eq - 1]) != std::string::npos))
        continue;
      size_t e = eq;
      while (e > 0 && std::isspace(static_cast<unsigned char>(m[e - 1]))) --e;
      size_t b = e;
      while (b > 0 && IsCIdentChar(m[b - 1])) --b;
      const std::string name = m.substr(b, e - b);
      const size_t end = m.find(';', eq);
      if (name.empty() || end == std::string::npos || harness.count(name)) continue;
      const std::string init = m.substr(eq + 1, end - eq - 1);
      for (const std::string& h : harness) {
        bool uses = false;
        for (size_t at = init.find(h); at != std::string::npos && !uses; at = init.find(h, at + 1))
          uses = (at == 0 || !IsCIdentChar(init[at - 1])) && (at + h.size() >= init.size() || !IsCIdentChar(init[at + h.size()]));
        if (uses && (h != io_name || init.find(io_name + ".in(") != std::string::npos ||
                     init.find(io_name + ".out(") != std::string::npos)) {
          harness.insert(name);
          grew = true;
          break;
        }
      }
    }
  }
  return harness;
}

// cudaMalloc of a buffer the peers read -> cuco_dc.malloc (symmetric memory), every cudaFree ->
// cuco_dc.free, in the EVOLVE blocks; the buffers so allocated satisfy the peers' reads.
void RewriteDeviceAllocations(const SeedSource& src, const std::vector<PeerRead>& needs, std::vector<Edit>* edits,
                              RuleTransformResult* result, std::set<std::string>* satisfied) {
  for (const SeedCall& c : src.Calls([](const std::string& n) { return n == "cudaMalloc" || n == "cudaFree"; })) {
    if (!c.in_block) continue;
    const std::vector<std::string> args = src.Args(c);
    if (c.name == "cudaFree") {
      edits->push_back({c.name_pos, c.name_end - c.name_pos, std::string(kObject) + ".free"});
      continue;
    }
    if (args.empty()) continue;
    const std::string base = BufferBase(args[0]);
    bool needed = false;
    for (const PeerRead& n : needs) needed = needed || n.base == base;
    if (!needed) continue;
    edits->push_back({c.name_pos, c.name_end - c.name_pos, std::string(kObject) + ".malloc"});
    result->rewrites.push_back({c.line, "cudaMalloc", std::string(kObject) + ".malloc"});
    satisfied->insert(base);
  }
}

// X.alloc_symmetric( / X->alloc_symmetric(  ->  cuco_dc.alloc_symmetric(X, / (*X, in the EVOLVE
// blocks; the buffers they allocate satisfy the peers' reads of them.
void RewriteAllocSymmetric(const SeedSource& src, const std::string& seed, const std::vector<PeerRead>& needs,
                           std::vector<Edit>* edits_out, RuleTransformResult* result, std::set<std::string>* satisfied) {
  std::vector<Edit>& edits = *edits_out;
  const std::string& m = src.masked();
  for (size_t at = m.find("alloc_symmetric"); at != std::string::npos; at = m.find("alloc_symmetric", at + 1)) {
    if (!src.InBlock(at) || (at + 15 < m.size() && IsCIdentChar(m[at + 15]))) continue;
    size_t p = src.NextCode(at + 15);
    if (p == std::string::npos || m[p] != '(') continue;
    size_t dot = at;
    while (dot > 0 && std::isspace(static_cast<unsigned char>(m[dot - 1]))) --dot;
    bool arrow = false;
    if (dot >= 2 && m[dot - 1] == '>' && m[dot - 2] == '-') { arrow = true; dot -= 2; }
    else if (dot >= 1 && m[dot - 1] == '.') dot -= 1;
    else continue;
    size_t b = dot;
    while (b > 0 && IsCIdentChar(m[b - 1])) --b;
    const std::string receiver = m.substr(b, dot - b);
    if (receiver.empty() || receiver == kObject) continue;
    edits.push_back({b, p + 1 - b, std::string(kObject) + ".alloc_symmetric(" + (arrow ? "*" : "") + receiver + ", "});
    result->rewrites.push_back({src.LineOf(at), receiver + (arrow ? "->" : ".") + "alloc_symmetric",
                               std::string(kObject) + ".alloc_symmetric"});
    const size_t close = src.MatchParen(p);
    if (close == std::string::npos) continue;
    const std::vector<std::string> args = SplitArgs(seed.substr(p + 1, close - p - 1));
    if (args.size() >= 2) {
      const std::string buffer = BufferBase(args[1]);
      for (const PeerRead& n : needs)
        if (n.base == buffer || n.base.rfind(buffer + ".", 0) == 0 || n.base.rfind(buffer + "->", 0) == 0)
          satisfied->insert(n.base);
    }
  }
}

// The DeviceCollectives object at the top of the first EVOLVE block, its init (the device path's
// warm-up, `mailbox` MiB per peer for send/recv) at the start of setup, its bind of the harness
// buffers at the start of run.
void InsertDeviceCollectives(const SeedSource& src, const Definition& setup, const Definition& run,
                             const std::string& ctx_name, const std::string& io_name, int mailbox,
                             std::vector<Edit>* edits, RuleTransformResult* result) {
  edits->push_back({src.FirstBlockBegin(), 0,
                   "// cuco transform (rule-based): the host NCCL calls of the seed run as device-initiated LSA code\n"
                   "// (cuco/codesign/collectives.h), in the seed's order: generation 0, correctness first.\n"
                   "static cuco::codesign::DeviceCollectives " + std::string(kObject) + ";\n"});
  result->inserted.push_back("top of the first EVOLVE block: static cuco::codesign::DeviceCollectives cuco_dc");
  edits->push_back({setup.body, 0,
                   "\n  {  // cuco transform: device communicator, mailbox, kernels loaded, a first barrier\n"
                   "    const cuco::Status cuco_dc_status = " + std::string(kObject) + ".init(" + ctx_name +
                       ", size_t(" + std::to_string(mailbox) + ") << 20);\n"
                   "    if (!cuco_dc_status.ok()) return cuco_dc_status;\n  }"});
  result->inserted.push_back("start of cuco_candidate_setup: cuco_dc.init(" + ctx_name + ", " + std::to_string(mailbox) +
                            " MiB mailbox per peer)");
  edits->push_back({run.body, 0, "\n  " + std::string(kObject) + ".bind(" + io_name + ");  // cuco transform: harness buffers are symmetric"});
  result->inserted.push_back("start of cuco_candidate_run: cuco_dc.bind(" + io_name + ")");
}

}  // namespace

Result<RuleTransformResult> RuleTransform(const std::string& seed, const std::string& seed_path,
                                          const RuleTransformOptions& options) {
  Result<SplitSource> split = SplitEvolveBlocks(seed, seed_path, /*require_blocks=*/false);
  if (!split.ok()) return split.status();
  if (split->blocks.empty())
    return Status::InvalidArgument(seed_path + ":1: no EVOLVE block: mark the code the transform may change with " +
                                   kEvolveBlockStart + " / " + kEvolveBlockEnd +
                                   " (cuco init's harness skeleton has them)");
  const SeedSource src(seed, seed_path, *split);

  // A harness made of the user's program itself (cuco init): its NCCL calls are the program's own
  // code, rewritten by rules of their own (program_transform.h).
  if (IsProgramSeed(seed)) return ProgramTransform(seed, seed_path, src, options.build_flags);

  // The device collectives come from cuco/codesign.h, which only frozen code may include.
  bool included = false;
  for (const std::string& frozen : split->frozen)
    if (frozen.find("<cuco/codesign.h>") != std::string::npos ||
        frozen.find("<cuco/codesign/collectives.h>") != std::string::npos)
      included = true;
  if (!included)
    return Status::InvalidArgument(seed_path + ":1: the frozen includes lack #include <cuco/codesign.h> (the device-initiated "
                         "collectives); add it above the first EVOLVE block");

  RuleTransformResult result;
  std::vector<Edit> edits;
  const auto& map = NcclMap();

  const Definition setup = FindDefinition(src, "cuco_candidate_setup");
  const Definition run = FindDefinition(src, "cuco_candidate_run");
  std::string ctx_name, io_name;
  CUCO_RETURN_IF_ERROR(CandidateEntryNames(seed_path, setup, run, &ctx_name, &io_name, &edits));

  // 1. NCCL calls -> device collectives; note the buffers peers read.
  std::vector<PeerRead> needs;
  bool uses_p2p = false;
  for (const SeedCall& c : src.Calls([&](const std::string& n) { return map.count(n) > 0; })) {
    if (!c.in_block)
      return Status::InvalidArgument(seed_path + ":" + std::to_string(c.line) + ": frozen code calls " + c.name +
                           ": the transform may only change EVOLVE blocks; move the call into one");
    const Mapping& to = map.at(c.name);
    const std::string method = std::string(kObject) + "." + to.method;
    edits.push_back({c.name_pos, c.name_end - c.name_pos, method});
    result.rewrites.push_back({c.line, c.name, method});
    if (c.name != "ncclGroupStart" && c.name != "ncclGroupEnd") ++result.collectives;
    uses_p2p = uses_p2p || to.p2p;
    const std::vector<std::string> args = src.Args(c);
    if (to.reads_arg0 && !args.empty()) needs.push_back({Trim(args[0]), BufferBase(args[0]), c.name, c.line});
    if (!args.empty() && c.name != "ncclGroupStart" && c.name != "ncclGroupEnd") {
      const std::string comm = Trim(args[args.size() >= 2 ? args.size() - 2 : 0]);
      if (comm != ctx_name + ".comm" && comm.find("comm") != std::string::npos &&
          comm.find(".comm") == std::string::npos)
        result.warnings.push_back(seed_path + ":" + std::to_string(c.line) + ": " + c.name + " uses communicator `" +
                                  comm + "`: the device path supports the candidate's ctx.comm only");
    }
  }
  if (result.collectives == 0)
    return Status::InvalidArgument(seed_path + ":1: no host NCCL collective or send/recv inside the EVOLVE blocks: nothing to "
                         "transform");

  // 2. Allocations: send buffers move to symmetric memory; the object learns of symmetric ones.
  // Harness buffers are symmetric already: io.in(...) / io.out(...) and local pointers made from
  // them (`auto* y = static_cast<T*>(io.out("y").ptr);`, `T* seg = y + k;`), to a fixed point.
  const std::set<std::string> harness = HarnessNamesIn(src, io_name);
  std::set<std::string> satisfied;
  for (const PeerRead& n : needs) {
    std::string root = n.base.substr(0, n.base.find_first_of(".-[ ("));
    if (harness.count(root) || n.expr.find(io_name + ".in(") != std::string::npos ||
        n.expr.find(io_name + ".out(") != std::string::npos)
      satisfied.insert(n.base);
  }
  RewriteDeviceAllocations(src, needs, &edits, &result, &satisfied);
  RewriteAllocSymmetric(src, seed, needs, &edits, &result, &satisfied);
  for (const PeerRead& n : needs)
    if (!satisfied.count(n.base))
      result.warnings.push_back(seed_path + ":" + std::to_string(n.line) + ": " + n.api + " reads `" + n.expr +
                                "` on the peers, and no cudaMalloc of `" + n.base +
                                "` was found in the EVOLVE blocks: unless it is a harness buffer or symmetric, the "
                                "device call fails at run time (it says so)");
  if (uses_p2p)
    result.warnings.push_back(seed_path + ": send/recv become pushes into a " + std::to_string(options.mailbox_mib) +
                              " MiB-per-peer mailbox; every rank must take part in every group");

  // 3. The object, its collective init (the device path's warm-up), and the per-iteration bind.
  InsertDeviceCollectives(src, setup, run, ctx_name, io_name, uses_p2p ? options.mailbox_mib : 0, &edits, &result);

  std::string code = ApplyEdits(seed, edits);
  std::sort(result.rewrites.begin(), result.rewrites.end(),
            [](const RuleRewrite& a, const RuleRewrite& b) { return a.line < b.line; });

  Status frozen = CheckFrozenCode(seed, seed_path, code, "generation 0");
  if (!frozen.ok()) return Status::Internal(" the rule transform changed frozen code: " + frozen.message());
  result.code = std::move(code);
  return result;
}

std::string FormatRuleTransform(const RuleTransformResult& r, const std::string& seed_path) {
  // A program communicating through MPI alone has "mpi" for its own calls (program_transform.h).
  const bool mpi = r.knobs_toml.find("default = \"mpi\"") != std::string::npos;
  std::string out = "rule-based transform of " + seed_path + ": " + std::to_string(r.collectives) +
                    (r.knobs_toml.empty() ? " NCCL call(s) made device-initiated\n"
                                          : std::string(mpi ? " MPI collective(s)" : " NCCL call(s)") +
                                                " of your program given the backend knob (" + (mpi ? "mpi" : "nccl") +
                                                " | lsa" +
                                                (r.knobs_toml.find("\"ce\"") != std::string::npos ? " | ce" : "") + ")\n");
  for (const RuleRewrite& w : r.rewrites)
    out += "  " + seed_path + ":" + std::to_string(w.line) + ": " + w.from + " -> " + w.to + "\n";
  for (const std::string& i : r.inserted) out += "  added: " + i + "\n";
  for (const std::string& w : r.warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace cuco
