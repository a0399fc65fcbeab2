// Classification of the calls and the dependency graph (the outputs: analysis_format.cc).
#include "analyze/analysis.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <tuple>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "analyze/api_specs.h"
#include "analyze/frontend.h"
#include "analyze/id_bootstrap.h"
#include "analyze/ranges.h"
#include "util/files.h"
#include "util/source_text.h"

namespace cuco {
namespace analyze_internal {
namespace {

std::string Arg(const RawCall& c, int i) {
  return i >= 0 && i < static_cast<int>(c.args.size()) ? c.args[i] : "";
}

void AddBase(std::vector<std::string>* v, const std::string& expr) {
  std::string b = BufferBase(expr);
  if (b.empty() || std::isdigit(static_cast<unsigned char>(b[0])) || IsNullPointerLiteral(b)) return;
  if (std::find(v->begin(), v->end(), b) == v->end()) v->push_back(b);
}

bool Intersects(const std::vector<std::string>& a, const std::vector<std::string>& b, std::string* which) {
  for (const auto& x : a)
    if (std::find(b.begin(), b.end(), x) != b.end()) return *which = x, true;
  return false;
}

// The writer's and the reader's elements of `buf` are known and provably apart (ranges.h).
bool Disjoint(const std::map<std::string, std::pair<std::string, std::string>>& written,
              const std::map<std::string, std::pair<std::string, std::string>>& read, const std::string& buf) {
  auto w = written.find(buf), r = read.find(buf);
  return w != written.end() && r != read.end() &&
         ProvablyDisjoint({w->second.first, w->second.second}, {r->second.first, r->second.second});
}

// An argument whose elements are counted from its base variable (`a_new`, `a + off`), not a cast's.
bool RangeBase(const std::string& arg) { return !arg.empty() && arg.find('(') == std::string::npos; }

bool IsComm(const AnalyzedOp& op) { return op.kind == "collective" || op.kind == "p2p" || (op.kind == "call" && op.contains_comm); }
bool IsDataOp(const AnalyzedOp& op) {
  return IsComm(op) || op.kind == "kernel" || op.kind == "gemm" || op.kind == "copy" || op.kind == "call";
}

// What a function does to its parameters, through its own operations and its helpers'.
struct HelperEffects {
  std::set<int> reads, writes;     // parameter indices
  bool comm = false;               // issues NCCL collectives / p2p
  std::set<std::string> streams;   // the streams its operations run on: "#i" = parameter i
  bool syncs_device = false;       // waits on the host for the whole device (cudaDeviceSynchronize)
  std::set<std::string> synced;    // the streams it waits for on the host (cudaStreamSynchronize): "#i" = parameter i
  // The elements of parameter i its one operation on it reads / writes, in the helper's names;
  // "" when not known (no range, or several operations).
  std::map<int, std::pair<std::string, std::string>> read_ranges, write_ranges;
};

// Notes op's range of parameter i in `ranges`: the first one, or "not known" for a second or none.
void NoteRange(std::map<int, std::pair<std::string, std::string>>* ranges, int i,
               const std::map<std::string, std::pair<std::string, std::string>>& op_ranges, const std::string& base,
               bool kernel_like) {
  auto r = op_ranges.find(base);
  const bool first = !ranges->count(i);
  (*ranges)[i] = first && kernel_like && r != op_ranges.end() ? r->second : std::make_pair(std::string(), std::string());
}

// The argument `j` of `call`'s text, "" when it has fewer.
std::string CallArgText(const AnalyzedOp& call, int j) {
  return j < static_cast<int>(call.args.size()) ? call.args[j] : std::string();
}

// A stream of a helper's effects ("#i": its parameter i; else a name) at `call`, in the caller's
// terms: "#j" when the argument is the caller's parameter j, else the argument's text ("" if none).
std::string InCallerTerms(const std::string& st, const AnalyzedOp& call,
                          const std::function<int(const std::string&, const std::string&)>& param_of) {
  if (st.empty() || st[0] != '#') return st;
  const std::string arg = CallArgText(call, std::stoi(st.substr(1)));
  const int i = param_of(call.function, arg);
  std::string mine = i >= 0 ? "#" : arg;  // appended piece by piece: GCC 12's false -Wrestrict
  if (i >= 0) mine += std::to_string(i);
  return mine;
}

// A call of a helper in the caller's terms: what the helper (`g`) reads and writes of its arguments,
// the elements it touches, whether it communicates, and its one stream.
void ApplyHelperEffects(const HelperEffects& g, const std::map<std::string, std::vector<std::string>>& params,
                        const std::function<std::string(const AnalyzedOp&, const std::string&)>& handle_stream_of,
                        AnalyzedOp* call) {
  AnalyzedOp& op = *call;
  for (int j : g.reads) AddBase(&op.reads, CallArgText(op, j));
  for (int j : g.writes) AddBase(&op.writes, CallArgText(op, j));
  // The helper's one operation on a parameter touches those elements, in the caller's names.
  std::map<std::string, std::string> names;
  if (auto fn = params.find(op.api); fn != params.end())
    for (size_t k = 0; k < fn->second.size() && k < op.args.size(); ++k)
      if (!fn->second[k].empty()) names[fn->second[k]] = op.args[k];
  for (const auto* m : {&g.read_ranges, &g.write_ranges})
    for (const auto& [j, r] : *m) {
      const std::string arg = CallArgText(op, j);
      if (r.first.empty() || !RangeBase(arg)) continue;
      (m == &g.read_ranges ? op.read_ranges : op.write_ranges)[BufferBase(arg)] = {SubstituteNames(r.first, names),
                                                                                    SubstituteNames(r.second, names)};
    }
  op.contains_comm = g.comm;
  op.helper_syncs_device = g.syncs_device;
  for (const std::string& st : g.synced)
    if (st[0] != '#') op.helper_own_synced_streams.push_back(st);
    else if (const std::string arg = CallArgText(op, std::stoi(st.substr(1))); !arg.empty()) op.helper_synced_streams.push_back(arg);
  if (g.streams.size() == 1) {
    const std::string& st = *g.streams.begin();
    op.stream = st.rfind("#h", 0) == 0 ? handle_stream_of(op, CallArgText(op, std::stoi(st.substr(2))))
                : st[0] == '#'         ? CallArgText(op, std::stoi(st.substr(1)))
                                       : st;
    if (op.stream.rfind("#h", 0) == 0) op.stream.clear();  // the caller's caller's handle: not known here
  }
}

// Fills the `call` ops (calls of helpers defined in the file): what the helper reads and writes
// of the caller's variables, whether it communicates, and its stream; then drops the calls of
// helpers that touch none of the caller's variables, and renumbers the ops. Helper effects are summarised per
// function and carried up the call chain until nothing changes (recursion ends there too).
// `handle_streams`: every stream each cuBLAS handle is ever given (cublasSetStream). A GEMM on a
// handle the helper takes as a parameter runs on that handle's stream: at a call site, the one
// stream the handle passed is ever given (not known when it is given several, or none).
void CarryHelperEffects(Analysis* a, const std::map<std::string, std::set<std::string>>& handle_streams) {
  std::map<std::string, std::vector<std::string>> params;
  for (const auto& f : a->functions)
    if (!params.count(f.name)) params[f.name] = f.params;
  auto param_of = [&](const std::string& fn, const std::string& expr) {
    const std::string base = BufferBase(expr);
    const auto& ps = params[fn];
    for (size_t i = 0; i < ps.size(); ++i)
      if (!ps[i].empty() && ps[i] == base) return static_cast<int>(i);
    return -1;
  };
  std::map<std::string, HelperEffects> fx;
  for (const auto& op : a->ops) {
    if (op.api == "cudaDeviceSynchronize") fx[op.function].syncs_device = true;
    if (op.api == "cudaStreamSynchronize" && !op.stream.empty()) {
      const int si = param_of(op.function, op.stream);
      fx[op.function].synced.insert(si >= 0 ? "#" + std::to_string(si) : op.stream);
    }
    if (op.kind == "call" || !IsDataOp(op)) continue;
    HelperEffects& e = fx[op.function];
    for (const auto& r : op.reads)
      if (int i = param_of(op.function, r); i >= 0) e.reads.insert(i), NoteRange(&e.read_ranges, i, op.read_ranges, r, true);
    for (const auto& w : op.writes)
      if (int i = param_of(op.function, w); i >= 0) e.writes.insert(i), NoteRange(&e.write_ranges, i, op.write_ranges, w, true);
    e.comm |= IsComm(op);
    if (op.kind == "gemm" && op.stream.empty() && !op.args.empty())
      if (int hi = param_of(op.function, op.args[0]); hi >= 0) {
        e.streams.insert("#h" + std::to_string(hi));
        continue;
      }
    const int si = param_of(op.function, op.stream);
    e.streams.insert(si >= 0 ? "#" + std::to_string(si) : (op.stream.empty() ? "default" : op.stream));
  }
  // "#h<j>": the stream of the handle the caller passes as argument j (a parameter of the caller's
  // again, or the one stream that handle is ever given; "" when not known).
  auto handle_stream_of = [&](const AnalyzedOp& call, const std::string& arg) {
    if (int i = param_of(call.function, arg); i >= 0) return "#h" + std::to_string(i);
    auto it = handle_streams.find(BufferBase(arg));
    return it != handle_streams.end() && it->second.size() == 1 ? *it->second.begin() : std::string();
  };
  for (size_t round = 0; round <= a->functions.size(); ++round) {
    bool changed = false;
    for (const auto& call : a->ops) {
      if (call.kind != "call" || !fx.count(call.api)) continue;
      const HelperEffects g = fx[call.api];
      HelperEffects& e = fx[call.function];
      const size_t before = e.reads.size() + e.writes.size() + e.streams.size() + e.comm + e.syncs_device + e.synced.size();
      e.syncs_device |= g.syncs_device;
      for (const std::string& st : g.synced)
        if (std::string mine = InCallerTerms(st, call, param_of); !mine.empty()) e.synced.insert(mine);
      for (int j : g.reads)
        if (int i = param_of(call.function, CallArgText(call, j)); i >= 0) e.reads.insert(i);
      for (int j : g.writes)
        if (int i = param_of(call.function, CallArgText(call, j)); i >= 0) e.writes.insert(i);
      e.comm |= g.comm;
      for (const auto& st : g.streams) {
        std::string mine = st;
        if (st.rfind("#h", 0) == 0) {
          mine = handle_stream_of(call, CallArgText(call, std::stoi(st.substr(2))));
          if (mine.empty()) continue;
        } else {
          mine = InCallerTerms(st, call, param_of);
        }
        e.streams.insert(mine);
      }
      changed |= e.reads.size() + e.writes.size() + e.streams.size() + e.comm + e.syncs_device + e.synced.size() != before;
    }
    if (!changed) break;
  }
  std::vector<AnalyzedOp> kept;
  std::map<int, int> renumber;
  for (auto& op : a->ops) {
    if (op.kind == "call") {
      auto it = fx.find(op.api);
      // A helper that touches none of the caller's variables adds nothing to the caller's graph,
      // unless it communicates: a method on its object's members or a function on globals
      // (`trainer.step()` reaching ncclAllReduce) is how the caller reaches the communication.
      // A helper that waits on the host (`dev.sync()`) orders what comes before and after it.
      const HelperEffects* h = it == fx.end() ? nullptr : &it->second;
      if (h == nullptr || (h->reads.empty() && h->writes.empty() && !h->comm && !h->syncs_device && h->synced.empty()))
        continue;
      ApplyHelperEffects(it->second, params, handle_stream_of, &op);
    }
    renumber[op.index] = static_cast<int>(kept.size());
    op.index = static_cast<int>(kept.size());
    kept.push_back(std::move(op));
  }
  a->ops = std::move(kept);
  for (auto& g : a->groups) {  // a group's ops that were dropped leave it
    std::vector<int> ops;
    for (int i : g.ops)
      if (const auto it = renumber.find(i); it != renumber.end()) ops.push_back(it->second);
    g.ops = std::move(ops);
  }
}

}  // namespace

const std::vector<std::string>& KnownApis() {
  static const std::vector<std::string> v = [] {
    std::vector<std::string> out;
    for (const auto& [k, _] : Specs()) out.push_back(k);
    return out;
  }();
  return v;
}

namespace {

std::string NormStream(const std::string& s) {
  // "default (synchronous)": a synchronous copy, which runs on the legacy default stream.
  if (s.empty() || s == "0" || IsNullPointerLiteral(s) || s == "cudaStreamLegacy" || s.rfind("default", 0) == 0)
    return "default";
  if (s.rfind("this", 0) != 0) return s;
  static const std::regex self(R"(^this\s*->\s*)");  // a member as its class names it, with or without `this->`
  return std::regex_replace(s, self, "");
}

bool CreatesNonBlocking(const AnalyzedOp& op) {
  for (const auto& arg : op.args)
    if (arg.find("NonBlocking") != std::string::npos) return true;
  return false;
}

// True when `stream` synchronises with the legacy default stream: the default stream itself, or
// a stream the program creates without cudaStreamNonBlocking (cudaStreamCreate,
// cudaStreamCreateWithFlags/WithPriority with cudaStreamDefault). A stream whose creation the
// analysis cannot tie to it (held in an array entry reached through a pointer, `*cur = &streams[k]`;
// a member set elsewhere) blocks too when the program creates streams and every one it creates
// blocks; without that, it is not known to. A build with per-thread default streams has no legacy
// semantics, and cudaStreamPerThread none either.
bool IsBlockingStream(const Analysis& a, const std::string& stream, bool per_thread_default) {
  if (per_thread_default || stream.find("cudaStreamPerThread") != std::string::npos) return false;
  if (NormStream(stream) == "default") return true;
  bool creates = false, all_block = true;
  for (const AnalyzedOp& op : a.ops) {
    if (op.kind != "stream" || op.api.rfind("cudaStreamCreate", 0) != 0) continue;
    creates = true;
    all_block = all_block && !CreatesNonBlocking(op);
    if (op.assigns == BufferBase(stream)) return !CreatesNonBlocking(op);
  }
  return creates && all_block;
}

}  // namespace

// Whether events `x` and `y` may be one: the same text, or entries of one array whose indices are not
// two different numbers (`ready[0]` recorded before a loop, `ready[buf]` waited for in it).
bool MayBeOneEvent(const std::string& x, const std::string& y) {
  if (x == y) return true;
  const std::string base = BufferBase(x);
  if (base.empty() || base != BufferBase(y)) return false;
  static const std::regex entry(R"(^\s*[A-Za-z_][\w.>-]*\s*\[\s*([^\]]*?)\s*\]\s*$)");
  static const std::regex number(R"(^\d+$)");
  std::smatch mx, my;
  if (!std::regex_match(x, mx, entry) || !std::regex_match(y, my, entry)) return false;
  const std::string ix = mx[1].str(), iy = my[1].str();
  return !(std::regex_match(ix, number) && std::regex_match(iy, number) && ix != iy);
}

// How `to` is ordered after `from` (same function, from before to): see DependencyEdge::via.
// CUDA's rules applied: one stream; a host sync between them (cudaDeviceSynchronize,
// cudaStreamSynchronize of from's stream, cudaEventSynchronize of an event recorded after from);
// an event recorded after from and waited on by to's stream; and the legacy default stream, which
// waits for all earlier work of blocking streams and holds back all later work of them: when both
// ends are on blocking streams and either end, or an op between them, is on the default stream.
std::string OrderingBetween(const Analysis& a, const AnalyzedOp& from, const AnalyzedOp& to, bool per_thread_default) {
  auto same = [](const std::string& x, const std::string& y) { return NormStream(x) == NormStream(y); };
  for (const AnalyzedOp* op : {&from, &to}) {
    if (op->kind == "call" && op->stream.empty()) return "not known (" + op->api + " uses several streams)";
    if (op->kind == "gemm" && op->stream.empty())
      return "not known (" + op->api + ":" + std::to_string(op->line) + " runs on its handle's stream, set by the caller)";
  }
  if (same(from.stream, to.stream)) return "stream";
  // Per-device arrays of one process driving several GPUs: streams[i] in a loop over devices and
  // streams[0] after it name the same stream for element 0, the one both ends touch.
  const std::string from_base = BufferBase(from.stream), to_base = BufferBase(to.stream);
  if (from_base == to_base && from.stream != from_base && to.stream != to_base)
    return "stream (the per-device array " + from_base + ")";
  const bool both_blocking =
      IsBlockingStream(a, from.stream, per_thread_default) && IsBlockingStream(a, to.stream, per_thread_default);
  if (both_blocking && (NormStream(from.stream) == "default" || NormStream(to.stream) == "default"))
    return "legacy default stream";
  std::string waits_elsewhere;  // a helper between them that waits for streams not known to be from's
  for (int i = from.index + 1; i < to.index; ++i) {
    const AnalyzedOp& op = a.ops[i];
    if (op.function != from.function) continue;
    const bool enqueues = op.kind == "kernel" || op.kind == "copy" || op.kind == "gemm" || op.kind == "collective" ||
                          op.kind == "p2p" || (op.kind == "sync" && op.api != "cudaEventSynchronize");
    if (both_blocking && enqueues && NormStream(op.stream) == "default")
      return "legacy default stream (" + op.api + ":" + std::to_string(op.line) + ")";
    if (op.api == "cudaDeviceSynchronize") return "host sync (cudaDeviceSynchronize)";
    if (op.kind == "call" && op.helper_syncs_device)
      return "host sync (cudaDeviceSynchronize in " + op.api + ":" + std::to_string(op.line) + ")";
    if (op.kind == "call") {
      for (const auto* list : {&op.helper_synced_streams, &op.helper_own_synced_streams})
        for (const std::string& st : *list)
          if (same(st, from.stream))
            return "host sync (cudaStreamSynchronize " + st + " in " + op.api + ":" + std::to_string(op.line) + ")";
      if (!op.helper_own_synced_streams.empty() && waits_elsewhere.empty())
        waits_elsewhere = op.api + ":" + std::to_string(op.line);
    }
    if (op.api == "cudaStreamSynchronize" && same(op.stream, from.stream)) return "host sync (cudaStreamSynchronize " + op.stream + ")";
    if ((op.api == "cudaEventRecord" || op.api == "cudaEventRecordWithFlags") && same(op.stream, from.stream))
      for (int j = i + 1; j < to.index; ++j) {
        const AnalyzedOp& w = a.ops[j];
        if (w.function != from.function) continue;
        if (w.api == "cudaStreamWaitEvent" && same(w.stream, to.stream) && MayBeOneEvent(w.buffer, op.buffer))
          return "event " + op.buffer;
        if (w.api == "cudaEventSynchronize" && MayBeOneEvent(w.buffer, op.buffer))
          return "host sync (cudaEventSynchronize " + op.buffer + ")";
      }
  }
  // Its streams may be from's (an object's own streams, `worker.waitAllStreams()`): no race is claimed.
  if (!waits_elsewhere.empty())
    return "not known (" + waits_elsewhere + " waits on the host for streams of its own, which may be " + from.stream + ")";
  return "unordered";
}

namespace {

// A kernel launch's op: its configuration, the pointers it reads and writes (what its body says
// of each parameter, when it was read; else every pointer read, and written unless const), and the
// rows of each, in the caller's names.
void FillKernelLaunchOp(const RawCall& c, AnalyzedOp* op_out) {
  AnalyzedOp& op = *op_out;
  op.kind = "kernel";
  if (c.config.size() > 0) op.grid = c.config[0];
  if (c.config.size() > 1) op.block = c.config[1];
  if (c.config.size() > 2) op.smem = c.config[2];
  op.stream = c.config.size() > 3 ? c.config[3] : "default";
  for (int i = 0; i < static_cast<int>(c.args.size()); ++i) {
    auto has = [](const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); };
    if (c.param_types_known && !has(c.pointer_params, i)) continue;
    if (c.param_access_known) {  // the body says how each pointer is used
      if (has(c.read_params, i)) AddBase(&op.reads, c.args[i]);
      if (has(c.written_params, i) && !has(c.const_pointer_params, i)) AddBase(&op.writes, c.args[i]);
      continue;
    }
    AddBase(&op.reads, c.args[i]);
    if (!has(c.const_pointer_params, i)) AddBase(&op.writes, c.args[i]);
  }
  // The rows of each pointer argument, in the caller's names (the launch's arguments).
  std::map<std::string, std::string> names;
  for (size_t k = 0; k < c.kernel_params.size() && k < c.args.size(); ++k) names[c.kernel_params[k]] = c.args[k];
  for (const auto& [i, r] : c.write_ranges)
    if (i < static_cast<int>(c.args.size()) && RangeBase(c.args[i]))
      op.write_ranges[BufferBase(c.args[i])] = {SubstituteNames(r.first, names), SubstituteNames(r.second, names)};
  for (const auto& [i, r] : c.read_ranges)
    if (i < static_cast<int>(c.args.size()) && RangeBase(c.args[i]))
      op.read_ranges[BufferBase(c.args[i])] = {SubstituteNames(r.first, names), SubstituteNames(r.second, names)};
}

// The NCCL group an op opens, closes or belongs to (`open_group`: each function's open group).
void TrackNcclGroup(AnalyzedOp* op, std::map<std::string, int>* open_group, Analysis* a) {
  if (op->api == "ncclGroupStart") {
    if (!open_group->count(op->function)) {
      GroupedOp g;
      g.function = op->function;
      g.start_line = op->line;
      (*open_group)[op->function] = static_cast<int>(a->groups.size());
      a->groups.push_back(g);
    }
    op->group = (*open_group)[op->function];
  } else if (op->api == "ncclGroupEnd") {
    if (auto it = open_group->find(op->function); it != open_group->end()) {
      op->group = it->second;
      a->groups[it->second].end_line = op->line;
      open_group->erase(it);
    }
  } else if (auto it = open_group->find(op->function);
             it != open_group->end() && op->api.rfind("nccl", 0) == 0 && op->kind != "call") {  // not a helper `nccl_check`
    op->group = it->second;
    a->groups[it->second].ops.push_back(op->index);
  }
}

// Each group's pattern (send/recv, all-to-all, collectives, ...); a group left open is warned of.
void ClassifyGroupPatterns(Analysis* a_out) {
  Analysis& a = *a_out;
  for (auto& g : a.groups) {
    int sends = 0, recvs = 0, colls = 0;
    std::set<std::string> send_peers, recv_peers;
    for (int i : g.ops) {
      const auto& op = a.ops[i];
      if (op.api == "ncclSend") ++sends, send_peers.insert(op.peer);
      else if (op.api == "ncclRecv") ++recvs, recv_peers.insert(op.peer);
      else if (op.kind == "collective") ++colls;
    }
    bool shared_var_peer = false;
    for (const auto& p : send_peers)
      if (recv_peers.count(p) && !p.empty() && !std::isdigit(static_cast<unsigned char>(p[0]))) shared_var_peer = true;
    if (g.ops.empty()) g.pattern = "empty";
    else if (colls == 0 && sends && recvs) g.pattern = shared_var_peer ? "all-to-all (send/recv to every peer)" : "send/recv";
    else if (colls == 0) g.pattern = sends ? "sends" : "recvs";
    else if (sends + recvs == 0) g.pattern = "collectives";
    else g.pattern = "mixed";
    if (g.end_line == 0) a.warnings.push_back(fmt::format("ncclGroupStart at line {} in {} has no ncclGroupEnd in the same function", g.start_line, g.function));
  }
}

// The graph: each communication's producers (earlier ops writing what it reads) and consumers
// (later ops reading what it writes), each edge with what orders its two ops, or a race warned of.
void BuildDependencyEdges(Analysis* a_out, bool per_thread_default) {
  Analysis& a = *a_out;
  std::set<std::tuple<int, int, std::string>> seen;
  for (const auto& c : a.ops) {
    if (!IsComm(c)) continue;
    for (const auto& p : a.ops) {
      if (p.function != c.function || p.index == c.index || !IsDataOp(p)) continue;
      std::string buf;
      if (p.index < c.index && Intersects(p.writes, c.reads, &buf) && !Disjoint(p.write_ranges, c.read_ranges, buf) &&
          seen.insert({p.index, c.index, buf}).second)
        a.edges.push_back({p.index, c.index, buf, "producer", ""});
      if (p.index > c.index && Intersects(c.writes, p.reads, &buf) && !Disjoint(c.write_ranges, p.read_ranges, buf) &&
          seen.insert({c.index, p.index, buf}).second)
        a.edges.push_back({c.index, p.index, buf, "consumer", ""});
    }
  }
  for (DependencyEdge& e : a.edges) {
    const AnalyzedOp& from = a.ops[e.from];
    const AnalyzedOp& to = a.ops[e.to];
    e.via = OrderingBetween(a, from, to, per_thread_default);
    if (e.via == "unordered")
      a.warnings.push_back(fmt::format("line {}: {} (stream {}) uses `{}` from {} at line {} (stream {}) with no event "
                                       "or synchronisation between them: a race",
                                       to.line, to.api, to.stream, e.buffer, from.api, from.line, from.stream));
  }
}

// The streams the program makes, then every other stream its ops run on, in order.
void ListAnalysisStreams(Analysis* a_out) {
  Analysis& a = *a_out;
  std::set<std::string> streams;
  for (const auto& op : a.ops) {
    if (op.kind == "stream" && !op.assigns.empty() && !streams.count(op.assigns)) {
      streams.insert(op.assigns);
      a.streams.push_back(op.assigns);
    }
  }
  for (const auto& op : a.ops) {
    if (!IsDataOp(op) && op.kind != "event") continue;
    if (!op.stream.empty() && !streams.count(op.stream)) streams.insert(op.stream), a.streams.push_back(op.stream);
  }
}

}  // namespace

bool IsKnownApi(const std::string& name) { return Specs().count(name) > 0; }

// Each getter's name and the member it returns (AnalyzedFunction::returns_member); "" for a name
// two classes give different members.
std::map<std::string, std::string> GetterMembers(const std::vector<AnalyzedFunction>& functions) {
  std::map<std::string, std::string> getters;
  for (const auto& f : functions)
    if (!f.returns_member.empty()) {
      auto [it, added] = getters.emplace(f.name, f.returns_member);
      if (!added && it->second != f.returns_member) it->second.clear();
    }
  return getters;
}

// A stream named by a getter's call (`link->stream()`, `comm.getStream()`) is the member it returns
// (`stream_`), as the getter's class's own ops name it; any other stream as written.
std::string ThroughGetter(const std::map<std::string, std::string>& getters, const std::string& stream) {
  static const std::regex call(R"(^.*?(?:->|\.)\s*([A-Za-z_]\w*)\s*\(\s*\)$)");
  std::smatch m;
  if (!std::regex_match(stream, m, call)) return stream;
  const auto it = getters.find(m[1].str());
  return it == getters.end() || it->second.empty() ? stream : it->second;
}

namespace {

// A warning for each NCCL buffer that is the address of a variable (`ncclAllReduce(&val, &sum, ...)` on
// host scalars): NCCL moves device memory (or memory registered with it), which `&name` is not.
void WarnVariableAddressBuffers(Analysis* a) {
  static const std::regex address(R"(^\s*&\s*([A-Za-z_][\w.]*)\s*$)");
  for (const AnalyzedOp& op : a->ops) {
    if ((op.kind != "collective" && op.kind != "p2p") || op.api.starts_with("MPI_")) continue;  // MPI moves host memory too
    for (const auto& [role, buffer] : {std::pair<const char*, const std::string*>{"send", &op.send}, {"receive", &op.recv}}) {
      std::smatch m;
      if (std::regex_match(*buffer, m, address))
        a->warnings.push_back(fmt::format("line {}: {}'s {} buffer `{}` is the address of the variable `{}`, not device "
                                          "memory: NCCL reads and writes device memory (cudaMalloc, ncclMemAlloc), so "
                                          "this call fails or corrupts memory",
                                          op.line, op.api, role, Trim(*buffer, " \t"), m[1].str()));
    }
  }
}

// What the ops imply once all are read: helpers' effects at their call sites, NCCL buffers that are
// no device memory, group patterns, the dependency edges and the streams.
void FinishAnalysis(Analysis* a, const std::map<std::string, std::set<std::string>>& handle_streams,
                    bool per_thread_default) {
  CarryHelperEffects(a, handle_streams);
  WarnVariableAddressBuffers(a);
  ClassifyGroupPatterns(a);
  BuildDependencyEdges(a, per_thread_default);
  ListAnalysisStreams(a);
}

// The calls in source order, one per call site: a check macro naming its argument twice (`if (error !=
// SUCCESS) { fprintf(..., error); }` around `cublasLtMatmul(...)`) expands to two calls spelled at one
// place, the second made only when the first failed.
// Whether MPI's data calls are the program's communication: it makes no NCCL call at all (a
// CUDA-aware MPI program, its halos exchanged by MPI_Sendrecv). Where it makes any, its MPI calls
// move set-up data (the NCCL id, a configuration) and are not ops.
bool MpiIsTheCommunication(const std::vector<RawCall>& calls) {
  bool mpi = false;
  for (const RawCall& c : calls) {
    const auto it = c.user_call ? Specs().end() : Specs().find(c.callee);
    if (it == Specs().end()) continue;
    if (c.callee.starts_with("nccl")) return false;
    mpi = mpi || std::string(it->second.kind).starts_with("mpi_");
  }
  return mpi;
}

// A communication op's buffers read: MPI's in-place reduction reads its receive buffer; and the
// elements a send, a receive or a collective of one count touches (an all-gather's receive and a
// reduce-scatter's send hold count per rank: not known here).
void FillCommunicationRanges(AnalyzedOp* op) {
  if (op->send == "MPI_IN_PLACE") {
    op->reads.erase(std::remove(op->reads.begin(), op->reads.end(), "MPI_IN_PLACE"), op->reads.end());
    op->send = op->recv;
    AddBase(&op->reads, op->recv);
  }
  const std::string& api = op->api;
  const bool same_count = op->kind == "p2p" || api == "ncclAllReduce" || api == "ncclBroadcast" || api == "ncclBcast" ||
                          api == "ncclReduce" || api == "MPI_Allreduce" || api == "MPI_Bcast" || api == "MPI_Reduce";
  if (!op->send.empty() && (same_count || api == "ncclAllGather"))
    if (auto r = RangeOfArgument(op->send, op->count)) op->read_ranges[BufferBase(op->send)] = {r->lo, r->hi};
  if (!op->recv.empty() && (same_count || api == "ncclReduceScatter"))
    if (auto r = RangeOfArgument(op->recv, op->count)) op->write_ranges[BufferBase(op->recv)] = {r->lo, r->hi};
}

std::vector<RawCall> CallSitesInOrder(std::vector<RawCall> calls) {
  std::stable_sort(calls.begin(), calls.end(), [](const RawCall& x, const RawCall& y) {
    return std::tie(x.file_index, x.offset) < std::tie(y.file_index, y.offset);
  });
  calls.erase(std::unique(calls.begin(), calls.end(),
                          [](const RawCall& x, const RawCall& y) {
                            return x.file_index == y.file_index && x.offset == y.offset && x.callee == y.callee &&
                                   x.function == y.function;
                          }),
              calls.end());
  return calls;
}

}  // namespace

Analysis BuildAnalysis(const std::vector<std::string>& paths, const std::vector<AnalyzedFunction>& functions,
                       const std::vector<RawCall>& raw_calls, bool per_thread_default) {
  Analysis a;
  a.path = paths.empty() ? std::string() : paths[0];
  a.files = paths;
  a.functions = functions;
  const std::vector<RawCall> calls = CallSitesInOrder(raw_calls);
  // A handle's stream named by a parameter of the function that sets it (a constructor's `st`, kept
  // in a member) names nothing in another function: there it is not known ("").
  auto is_param = [&](const std::string& fn, const std::string& name) {
    for (const auto& f : functions)
      if (f.name == fn && std::find(f.params.begin(), f.params.end(), BufferBase(name)) != f.params.end()) return true;
    return false;
  };
  const std::map<std::string, std::string> getters = GetterMembers(functions);
  std::map<std::string, std::pair<std::string, std::string>> handle_stream;  // handle -> (setter, stream): cublasSetStream
  // Every stream each handle is ever given, anywhere: a global handle set in main after the
  // functions that use it are defined.
  std::map<std::string, std::set<std::string>> handle_streams;
  for (const auto& c : calls)
    if (c.callee == "cublasSetStream" && c.args.size() > 1)
      handle_streams[BufferBase(Arg(c, 0))].insert(is_param(c.function, Arg(c, 1)) ? std::string() : ThroughGetter(getters, Arg(c, 1)));
  std::map<std::string, int> open_group;             // function -> group index while open
  const bool mpi_communicates = MpiIsTheCommunication(calls);
  std::set<std::string> defined;
  for (const auto& f : functions) defined.insert(f.name);
  for (const auto& c : calls) {
    if (c.user_call && (!defined.count(c.callee) || c.callee == c.function)) continue;  // not a helper of this file
    AnalyzedOp op;
    op.index = static_cast<int>(a.ops.size());
    op.api = c.callee;
    op.function = c.function;
    op.record = c.record;
    op.file = c.file_index >= 0 && c.file_index < static_cast<int>(paths.size()) ? paths[c.file_index] : a.path;
    op.line = c.line;
    op.args = c.args;
    op.macro = c.macro;
    if (c.user_call) {
      op.kind = "call";  // reads, writes, stream: CarryHelperEffects below
    } else if (c.kernel_launch) {
      FillKernelLaunchOp(c, &op);
    } else {
      const ApiSpec& s = Specs().at(c.callee);
      op.kind = s.kind;
      if (op.kind.starts_with("mpi_")) {
        if (!mpi_communicates) continue;
        op.kind = op.kind.substr(4);  // "p2p" or "collective"
      }
      op.send = Arg(c, s.send), op.recv = Arg(c, s.recv), op.count = Arg(c, s.count);
      op.datatype = Arg(c, s.datatype), op.red_op = Arg(c, s.op), op.root = Arg(c, s.root);
      op.peer = Arg(c, s.peer), op.comm = Arg(c, s.comm), op.stream = ThroughGetter(getters, Arg(c, s.stream));
      op.buffer = Arg(c, s.buffer);
      op.assigns = BufferBase(Arg(c, s.assigns));
      // A copy's host side is no device buffer: cudaMemcpyHostToDevice reads host memory,
      // cudaMemcpyDeviceToHost writes it.
      const std::string copy_kind = Arg(c, s.direction);
      const bool host_src = copy_kind.find("HostToDevice") != std::string::npos ||
                            copy_kind.find("HostToHost") != std::string::npos;
      const bool host_dst = copy_kind.find("DeviceToHost") != std::string::npos ||
                            copy_kind.find("HostToHost") != std::string::npos;
      if (!host_src)
        for (int i : s.reads) AddBase(&op.reads, Arg(c, i));
      if (!host_dst)
        for (int i : s.writes) AddBase(&op.writes, Arg(c, i));
      if (op.kind == "p2p" || op.kind == "collective") FillCommunicationRanges(&op);
      if (c.callee == "cublasSetStream") handle_stream[BufferBase(Arg(c, 0))] = {c.function, op.stream};
      if (op.kind == "gemm" && op.stream.empty() && c.callee != "cublasLtMatmul") {
        // The handle's stream: set in this file before, else the caller's when the handle is a
        // parameter (left empty: not known), else the one stream it is ever set to, else the default.
        const std::string handle = BufferBase(Arg(c, 0));
        auto it = handle_stream.find(handle);
        bool param = false;
        for (const auto& f : functions)
          if (f.name == c.function) param |= std::find(f.params.begin(), f.params.end(), handle) != f.params.end();
        auto once = handle_streams.find(handle);
        const bool setter_param = it != handle_stream.end() && it->second.first != c.function &&
                                  is_param(it->second.first, it->second.second);
        op.stream = it != handle_stream.end() ? (setter_param ? std::string() : it->second.second)
                    : param                   ? ""
                    : once != handle_streams.end() && once->second.size() == 1 ? *once->second.begin()
                                                                               : "default";
      }
      if (op.kind == "copy" && op.stream.empty()) op.stream = "default (synchronous)";
      if (c.callee == "cudaDeviceSynchronize") op.stream = "all";
    }
    TrackNcclGroup(&op, &open_group, &a);
    a.ops.push_back(std::move(op));
  }
  FinishAnalysis(&a, handle_streams, per_thread_default);
  for (std::string& w : IdOnlyInOwnEnvironment(calls, paths)) a.warnings.push_back(std::move(w));
  return a;
}

}  // namespace analyze_internal

namespace {

// `c ? a : b` at the top level: the first alternative (`c` is not the buffer); else `s`.
std::string FirstAlternativeOf(const std::string& s) {
  int depth = 0;
  size_t question = std::string::npos;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '(' || c == '[' || c == '{') ++depth;
    else if (c == ')' || c == ']' || c == '}') --depth;
    else if (depth == 0 && c == '?' && question == std::string::npos) question = i;
    else if (depth == 0 && c == ':' && question != std::string::npos) {
      if ((i + 1 < s.size() && s[i + 1] == ':') || (i > 0 && s[i - 1] == ':')) continue;  // a::b
      return s.substr(question + 1, i - question - 1);
    }
  }
  return s;
}

}  // namespace

void AddCallers(const Analysis& a, std::set<std::string>* names) {
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& op : a.ops)
      if (op.kind == "call" && names->count(op.api) && !op.function.empty() && names->insert(op.function).second) grew = true;
  }
}

std::string BufferBase(const std::string& expr_in) {
  std::string e = expr_in;
  auto trim = [](const std::string& s) { return Trim(s, " \t\r\n"); };
  auto match = [](const std::string& s, size_t open) -> size_t {
    int d = 0;
    for (size_t i = open; i < s.size(); ++i) {
      if (s[i] == '(') ++d;
      if (s[i] == ')' && --d == 0) return i;
    }
    return std::string::npos;
  };
  for (int guard = 0; guard < 32; ++guard) {
    e = trim(FirstAlternativeOf(e));
    if (e.empty()) return e;
    if (e[0] == '&' || e[0] == '*') {
      e = e.substr(1);
      continue;
    }
    if (e[0] == '(') {
      size_t close = match(e, 0);
      if (close == std::string::npos) return "";
      if (close == e.size() - 1) {
        e = e.substr(1, close - 1);
        continue;
      }
      // `(T*)x`: a C cast when what follows starts an operand; `(a + b) * 2` otherwise.
      std::string rest = trim(e.substr(close + 1));
      std::string inside = e.substr(1, close - 1);
      if (!rest.empty() && (std::isalpha(static_cast<unsigned char>(rest[0])) || rest[0] == '_' || rest[0] == '(' ||
                            rest[0] == '&' || rest[0] == '*') &&
          inside.find_first_of("+-/%") == std::string::npos) {
        e = rest;
        continue;
      }
      e = inside;
      continue;
    }
    // A smart pointer's raw pointer (`thrust::raw_pointer_cast(v.data())`, `std::to_address(p)`): its argument.
    for (const char* unwrap : {"thrust::raw_pointer_cast", "raw_pointer_cast", "std::to_address", "cuda::std::to_address"}) {
      const std::string u = std::string(unwrap) + "(";
      const size_t close = e.rfind(u, 0) == 0 ? match(e, u.size() - 1) : std::string::npos;
      if (close != std::string::npos) {
        e = e.substr(u.size(), close - u.size()) + e.substr(close + 1);
        goto again;
      }
    }
    for (const char* cast : {"static_cast", "reinterpret_cast", "const_cast", "dynamic_cast"}) {
      std::string c = cast;
      if (e.rfind(c, 0) == 0) {
        size_t open = e.find('(');
        if (open != std::string::npos) {
          size_t close = match(e, open);
          if (close != std::string::npos) {
            e = e.substr(open + 1, close - open - 1) + e.substr(close + 1);
            goto again;
          }
        }
      }
    }
    break;
  again:;
  }
  // The postfix chain: ident (. ident | -> ident | [..])*; a trailing call drops its member.
  std::string out;
  size_t i = 0;
  auto ident = [&](size_t p) {
    size_t q = p;
    while (q < e.size() && (std::isalnum(static_cast<unsigned char>(e[q])) || e[q] == '_' ||
                            (e[q] == ':' && q + 1 < e.size() && e[q + 1] == ':')))
      q += e[q] == ':' ? 2 : 1;
    return q;
  };
  size_t q = ident(0);
  if (q == 0) return "";
  out = e.substr(0, q);
  i = q;
  while (i < e.size()) {
    if (e[i] == '[') {
      int d = 0;
      for (; i < e.size(); ++i) {
        if (e[i] == '[') ++d;
        if (e[i] == ']' && --d == 0) break;
      }
      ++i;
      continue;
    }
    size_t sep = e[i] == '.' ? 1 : e.compare(i, 2, "->") == 0 ? 2 : 0;
    if (sep == 0) break;
    size_t r = ident(i + sep);
    if (r == i + sep) break;
    if (r < e.size() && e[r] == '(') break;  // buf.data(): the object
    out += e.substr(i, r - i);
    i = r;
  }
  return out;
}

}  // namespace cuco
