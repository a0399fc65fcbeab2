#include "scaffold/init_bind_buffers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <tuple>

#include "scaffold/array_entries.h"
#include "scaffold/derived_pointers.h"
#include "scaffold/held_accessors.h"
#include "scaffold/host_buffers.h"
#include "scaffold/iteration_use.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/loop_choice.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/pointer_arrays.h"
#include "scaffold/projection.h"
#include "scaffold/swaps.h"
#include "scaffold/tokens.h"
#include "scaffold/unnamed_output.h"
#include "scaffold/object_storage.h"
#include "scaffold/untyped_buffers.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

constexpr const char kRankIndex[] = "cuco_program::rank()";
constexpr size_t kMaxBoundBuffers = 32;  // the harness's inputs and outputs: cuco/protocol.h kMaxBuffers

// A buffer expression main can bind: an lvalue over names main's text declares before the loop.
// A bare name must be declared a pointer there (`float *x`, `const half* y`): a std::vector of
// per-layer pointers indexed by the loop is not one buffer, nor is a host array of device
// pointers (`float** bufs`, `float* bufs[4]`: a process driving several GPUs), whose entries
// the harness would take for the bytes of one.
bool Bindable(const std::string& expr, const std::string& main_before_loop) {
  static const std::regex lvalue(R"(^([A-Za-z_]\w*)((\.|->)[A-Za-z_]\w*|\[[A-Za-z_0-9 +*-]+\])*$)");
  std::smatch m;
  if (!std::regex_match(expr, m, lvalue)) return false;
  auto nameable = [&](const std::string& name) { return std::regex_search(main_before_loop, std::regex("\\b" + name + "\\b")); };
  if (!nameable(m[1].str())) return false;
  // Every name in a subscript too: `experts[local_e].w1` indexed by a variable of the iteration's own
  // loop names nothing where the binds are.
  static const std::regex subscript(R"(\[([^\]]*)\])"), word(R"(\b[A-Za-z_]\w*)");
  const std::string rest = expr.substr(static_cast<size_t>(m.length(1)));
  for (auto s = std::sregex_iterator(rest.begin(), rest.end(), subscript); s != std::sregex_iterator(); ++s) {
    const std::string inside = (*s)[1].str();
    for (auto w = std::sregex_iterator(inside.begin(), inside.end(), word); w != std::sregex_iterator(); ++w)
      if (!nameable(w->str())) return false;
  }
  if (m[2].length() > 0) return true;
  const std::string qualifiers = R"(\s*&?\s*(?:(?:const|volatile|__restrict__|__restrict)\s+)*)";
  const std::regex pointer(R"(\*)" + qualifiers + m[1].str() + "\\b");
  return std::regex_search(main_before_loop, pointer) && !IsPointerArray(main_before_loop, m[1].str());
}

// Whether every allocation the analysis gives `name` has no bytes under the run's defaults
// (`cudaMalloc(&buf_d, 0 * sizeof(int))`, a zero-count all-gather standing for a barrier in
// PARCOACH's benchmarks): a null pointer, nothing to fill or compare.
bool AllocatedEmpty(const Analysis& a, const std::string& name, const ProgramDefaults& run) {
  static const std::regex size_of(R"(\bsizeof\s*\([^()]*\))");  // positive: 1 decides the same
  bool any = false;
  for (const auto& op : a.ops) {
    if (op.kind != "alloc" || op.assigns != name || op.args.size() < 2) continue;
    const std::optional<int64_t> bytes = ValueUnder(std::regex_replace(op.args[1], size_of, "1"), run);
    if (!bytes || *bytes != 0) return false;
    any = true;
  }
  return any;
}

// Whether main gives `name` host memory before the loop (`name = new int[n]`, `malloc(...)`,
// `calloc(...)`, a std::vector): the host side of a copy whose direction the code does not spell
// (`cudaMemcpy(d_x, name, bytes, cudaMemcpyDefault)`), never a device buffer to bind.
// A host array of device pointers (pointer_arrays.h) is not such memory: its entries are buffers.
bool HostAllocated(const std::string& name, const std::string& main_before_loop) {
  return !IsPointerArray(main_before_loop, name) && HostMemoryOf(name, main_before_loop);
}

// Why main cannot bind the buffer `expr` of the iteration (Bindable said no), in words a user can
// act on: a host array of device pointers holding several (the length the program gives it), a
// name the loop's function does not declare before its loop, or neither; "" when `expr` is no
// variable at all (a qualified name, a function the lexical scan took for one).
std::string WhyUnbound(const std::string& expr, const std::string& main_before_loop, const ProgramDefaults& run,
                       const std::string& loop_fn) {
  static const std::regex head(R"(^([A-Za-z_]\w*))");
  std::smatch m;
  if (expr.find("::") != std::string::npos || !std::regex_search(expr, m, head)) return "";
  const std::string base = m[1].str();
  if (IsPointerArray(main_before_loop, base)) {
    const std::string length = PointerArrayLength(main_before_loop, base);
    const std::optional<int64_t> n = length.empty() ? std::nullopt : ValueUnder(length, run);
    return fmt::format("a host array of device pointers (one per GPU the process drives, or per peer or layer; its "
                       "length {}): the harness runs one GPU per rank, and binds such an array only when it holds one "
                       "pointer (the program started to drive one GPU per process)",
                       length.empty() ? "not found" : n ? fmt::format("`{}` = {}", length, *n)
                                                                   : fmt::format("`{}`", length));
  }
  if (std::regex_search(main_before_loop, std::regex("\\b" + base + "\\s*\\("))) return "";  // called: a function
  if (!std::regex_search(main_before_loop, std::regex("\\b" + base + "\\b")))
    return fmt::format("`{}` is not declared in {} before its loop (a helper's local, or a member of an object made "
                       "elsewhere)", base, loop_fn);
  return fmt::format("`{}` is not a pointer {} declares (an element of a per-layer array, or a container)", base, loop_fn);
}

// The README's line for a buffer of the iteration that stays the program's own, unbound: host
// memory (HostAllocated) or an allocation of no bytes (AllocatedEmpty); "" for any other.
std::string OwnUnbound(const Analysis& a, const std::string& marked_expr, const std::string& probe,
                       const std::string& main_before_loop, const ProgramDefaults& run) {
  if (HostAllocated(probe, main_before_loop))
    return fmt::format("`{}`: host memory (main allocates it with new, malloc or a std::vector): the host side of a "
                       "copy, not a device buffer; the program's own is used", marked_expr);
  if (AllocatedEmpty(a, probe, run))
    return fmt::format("`{}`: allocated with no bytes (a null pointer): nothing to fill or compare, the program's own "
                       "is used", marked_expr);
  return "";
}

// ": " and `why`, or "" when there is no why.
std::string Clause(const std::string& why) { return why.empty() ? "" : ": " + why; }

// LoopWhereOutputIsNamed's: main's file first, then the other sources in order.
std::optional<LoopNamingOutput> HelperLoopNamingOutput(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                                       const FoundLoop& found) {
  const UnnamedOutputWhy why = UnnamedOutput(*f.analysis, found.loop_fn);
  if (why.made_in.empty() || why.made_in == found.loop_fn) return std::nullopt;
  const Result<TimedLoop> here = FindTimedLoop(f.file, f.raw, found.comm, why.made_in);
  if (here.ok()) return LoopNamingOutput{f.file, here->line, why.made_in};
  LoopSearch elsewhere;
  elsewhere.main_elsewhere = true;
  for (const ProgramFile& o : others) {
    if (!o.source) continue;
    const Result<TimedLoop> there = FindTimedLoop(o.name, o.text, found.comm, why.made_in, std::string::npos, elsewhere);
    if (there.ok()) return LoopNamingOutput{o.name, there->line, why.made_in};
  }
  return std::nullopt;
}

// Why the iteration has no output main can bind: the first output main cannot bind, or else where the
// NCCL calls' output comes from; then the `--loop` that serves the timed loop of the function making
// that output, where main's file defines that function (the buffer is named there).
std::string NoOutputWhy(const ProgramFacts& f, const std::vector<ProgramFile>& others, const FoundLoop& found,
                        const std::string& unbound_output) {
  const UnnamedOutputWhy why = UnnamedOutput(*f.analysis, found.loop_fn);
  std::string clause = unbound_output.empty() ? why.clause : unbound_output;
  const std::string host = HostOnlyResult(*f.analysis, found.loop_fn.empty() ? "main" : found.loop_fn, f.file,
                                          found.loop.line, found.loop.end_line);
  if (!host.empty()) clause = clause.empty() ? host : clause + "; " + host;
  const std::optional<LoopNamingOutput> there = HelperLoopNamingOutput(f, others, found);
  if (!there) return clause;
  return clause + fmt::format("; `cuco init --loop {}:{}` serves the loop of {} there, where it is named", there->file,
                              there->line, there->function);
}

// The skeleton's words for an output main cannot bind (`probe`, as marked `marked_expr`), or "".
std::string UnboundOutput(const std::string& marked_expr, const std::string& probe, const std::string& main_before_loop,
                          const ProgramDefaults& run, const std::string& loop_fn) {
  const std::string why = WhyUnbound(probe, main_before_loop, run, loop_fn);
  return why.empty() ? "" : fmt::format("`{}`, which it writes: {}", marked_expr, why);
}

// `expr` (`bufs`, or `bufs[i]` inside a per-GPU loop) names a host array of device pointers that
// holds one pointer in the run the harness starts (pointer_arrays.h): its entry 0, the one buffer,
// with the length the program gives the array (`nDev`); nullopt otherwise.
struct OneEntry {
  std::string entry, length;
};
std::optional<OneEntry> OnlyEntry(const std::string& expr, const std::string& main_before_loop, const ProgramDefaults& run) {
  static const std::regex array_or_entry(R"(^([A-Za-z_]\w*)(\[[A-Za-z_0-9 +*-]+\])?$)");
  std::smatch m;
  if (!std::regex_match(expr, m, array_or_entry) || !IsPointerArray(main_before_loop, m[1].str())) return std::nullopt;
  const std::string length = PointerArrayLength(main_before_loop, m[1].str());
  if (length.empty() || ValueUnder(length, run) != 1) return std::nullopt;
  return OneEntry{m[1].str() + "[0]", length};
}

// `expr` (`args->recvbuffs`) a member array of device pointers (pointer_arrays.h): its entry 0 where
// it holds one pointer in the run the harness starts (nccl-tests' per-GPU arrays of one GPU a
// process); nullopt for no such member. *why, where it holds several or its length is not found,
// says why it cannot be bound (then `entry` is "").
std::optional<OneEntry> OnlyMemberEntry(const std::string& expr, const std::string& program_code,
                                        const ProgramDefaults& run, std::string* why) {
  const std::optional<MemberPointerArray> arr = MemberPointerArrayOf(expr, program_code);
  if (!arr) return std::nullopt;
  const std::optional<int64_t> n = arr->length.empty() ? std::nullopt : ValueUnder(arr->length, run);
  if (n == 1) return OneEntry{expr + "[0]", arr->length};
  *why = fmt::format("a member array of device pointers (`{}`, its length {}): the harness binds one pointer per "
                     "buffer, and an entry of such an array only when it holds one (a per-GPU array of a process "
                     "driving one GPU)",
                     arr->field, arr->length.empty() ? "not found" : n ? fmt::format("`{}` = {}", arr->length, *n)
                                                                         : fmt::format("`{}`", arr->length));
  return OneEntry{"", arr->length};
}

// A buffer the loop swaps (`start`, its name when the iteration starts) is read by the next pass:
// the name holding it when the iteration ends is first read in the iteration (a stencil's new grid,
// read as `a` next), not first written (a ring's receive buffer, refilled every pass: scratch).
bool FlowsOn(const std::string& start, const std::vector<Swap>& swaps, const std::map<std::string, bool>& first_read) {
  std::set<std::string> names;
  for (const Swap& w : swaps) names.insert({w.a, w.b});
  for (const std::string& holder : names)
    if (NameAtStart(holder, std::numeric_limits<int>::max(), swaps) == start) {
      auto it = first_read.find(holder);
      return it != first_read.end() && it->second;
    }
  return false;
}


// `probe`, an object main declared before the loop that the iteration reaches through an accessor
// (`v.data()`: held_accessors.h), held in a pointer the harness can rebind; nullopt for a pointer
// variable, a projected program's, an iteration bound by copy, or an object reached otherwise (said
// in `trace`).
std::optional<HeldAccessor> HeldByAccessor(const std::string& probe, const std::string& raw, const FoundLoop& found,
                                           const IterationCode& code, const std::string& before_loop,
                                           const std::string& program_code, InitPassTrace* trace) {
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (found.projected || code.by_copy || !std::regex_match(probe, identifier) || Bindable(probe, before_loop) ||
      !std::regex_search(before_loop, std::regex("\\b" + probe + "\\b")))
    return std::nullopt;
  // A host array of device pointers (`std::vector<const half*> w(E, d_w)`, an MoE's per-expert weights
  // handed on as `w.data()`): its accessor gives the array, host memory, not one buffer.
  if (IsPointerArray(before_loop, probe)) {
    trace->Add(fmt::format("`{}`: a host array of device pointers, reached through an accessor: not one buffer", probe));
    return std::nullopt;
  }
  // The loop's body and main's lambdas it calls: a lambda capturing by reference sees the pointer
  // declared in front of it (held_accessors.h's UseHeldInLambdas).
  std::string reached = found.loop.body, why;
  for (const auto& l : found.loop.lambdas) {
    const std::string lambda = raw.substr(l.begin, l.end - l.begin);
    if (!std::regex_search(lambda, std::regex("\\b" + probe + "\\b"))) continue;
    if (!CapturesByReference(lambda)) {
      trace->Add(fmt::format("`{}`: an object, not a pointer, and not held: a lambda the loop calls (line {}) uses it "
                             "and captures otherwise than by reference by default (`[&]`)", probe, l.line));
      return std::nullopt;
    }
    reached += "\n" + lambda;
  }
  std::optional<HeldAccessor> held = HoldAccessor(probe, reached, &why, program_code);
  trace->Add(held ? fmt::format("`{}`: reached through `{}`, held in `{}` before the loop (the bind rebinds that pointer)",
                                probe, held->expr, held->local)
                  : fmt::format("`{}`: an object, not a pointer, and not held: {}", probe, why));
  return held;
}

// How one buffer is bound, and why (the README's line).
struct Role {
  bool in = false, out = false, both = false, swapped = false;
  bool root_only = false;  // written by a reduce or gather, which only its root writes
  bool either_side = false;  // written only in one arm of an `if` ... `else`, read only in the other
  bool array_entry = false;  // an entry of an array (array_entries.h): its role is the whole array's
  int partly_first = 0;  // the line of its first access, a write to part of it past its start; 0: none
  bool read_after_written = false;  // an output for its copy after the loop, read in the iteration after its writes
  // The one floating type the iteration's collectives move it as (untyped_buffers.h), as C++ and as
  // the datatype the program names; "" when not one.
  std::string float_type, datatype;
  // Where there is no such type: a datatype the program chooses at run time (`dt.ncclType`), "" when none.
  std::string chosen_datatype;
  std::string last;  // its last access, as the README says it
};

std::string RoleGuess(const std::string& expr, const Role& r, bool projected) {
  const std::string first =
      r.partly_first > 0 ? fmt::format("a write to part of it at line {}, past its start, the rest what it held", r.partly_first)
      : r.in && !r.read_after_written ? "a read"
                                       : "a write";
  return fmt::format("`{}`: {} of the iteration (its first access {}, its last {}){}", expr,
                     r.in && r.out ? "an input and an output" : r.in ? "an input" : "an output", first,
                     r.last,
                     r.read_after_written ? "; bound as input and output: the iteration reads it after its writes, "
                                            "which may leave some of it alone: both sides start from the same values there"
                     : r.array_entry ? r.out ? "; an entry of an array the iteration reads and writes (its accesses "
                                             "name the array, not the entry): bound as input and output"
                                           : "; an entry of an array the iteration only reads"
                     : r.both && (!r.in || (r.partly_first > 0 && (r.swapped || r.either_side || r.root_only)))
                         ? projected ? "; bound as input and output, since a GPU may not write it"
                                       : r.swapped ? "; swapped with another pointer in the loop, and bound as "
                                                     "input and output: what the iteration does not write is "
                                                     "what it held"
                                                   : r.either_side ? "; bound as input and output: it is written only in "
                                                                     "one arm of an `if` and read only in the other, so "
                                                                     "a rank may only read it (what it held) or only "
                                                                     "write it"
                                                   : r.root_only ? "; bound as input and output: a reduce or "
                                                                   "gather writes it on its root only, the other ranks keep what "
                                                                   "it held"
                                                   : "; bound as input and output: it is written only under an "
                                                     "`if`, which a rank may skip"
                     : r.swapped ? "; swapped with another pointer in the loop: bound by what it "
                                   "holds when the iteration starts"
                                 : "");
}

// What of `e` the iteration may read without having written it, beyond its first access: a first
// receive into part of it past its start (the rest is what it held), or, for an output only for its
// copy after the loop (`copied_out`), a read after its writes (a Game of Life's second grid, read by
// the next step's kernel), which may see what they leave alone (a kernel writing the interior).
// Poisoned as an output, the candidate's read would differ from the reference's: input and output.
void MarkUnwrittenReads(const BufferUse& u, const std::string& e, bool copied_out, Role* r) {
  if (const auto partly = u.partly_written_first.find(e); partly != u.partly_written_first.end())
    r->partly_first = partly->second;
  if (copied_out && r->out && !r->in) r->in = r->read_after_written = true;
}

// The README's and the trace's line for each buffer of the iteration main cannot bind.
void NoteUnnamed(const std::set<std::string>& unnamed, BoundBuffers* h, InitPassTrace* trace) {
  for (const auto& un : unnamed) {
    h->guesses.push_back(fmt::format("`{}`: a buffer of the iteration that main cannot bind (a helper's local, a class's "
                                     "member, a per-layer array's element, a host array of device pointers): the program's "
                                     "own buffer is used, not refilled with fresh inputs nor compared", un));
    trace->Add(h->guesses.back());
  }
}


// What BindTarget and TargetsOf read: the program, its loop, the iteration's code and its names.
struct BindContext {
  const ProgramFacts& f;
  const FoundLoop& found;
  const IterationCode& code;
  const DeviceIndexing& per_gpu;
  std::string before_loop;   // NameableBeforeLoop
  std::string program_code;  // every file of the program, headers too
  bool one_comm = false;     // OneCommunicator
};

// Whether the program's NCCL calls name one communicator of the process (`comm`, `ctx->comm`), never
// an entry of an array of them (`comms[i]`): its arrays of buffers are then per layer, per peer or
// double buffers, not per GPU.
bool OneCommunicator(const Analysis& a) {
  bool any = false;
  for (const auto& op : a.ops) {
    if (!IsCommOp(op) || op.comm.empty()) continue;
    if (op.comm.find('[') != std::string::npos || op.comm.find("at(") != std::string::npos) return false;
    any = true;
  }
  return any;
}

// One expression a bind names for a buffer: `expr` as the bind writes it (`d_w[cuco_program::rank()]`)
// and `probe` as main's text has it (`d_w[0]`).
struct Target {
  std::string expr, probe;
};

// A projected program's per-GPU array of arrays of device pointers (`float *d_x[MAX_GPUS][DEPTH]`, a
// pipeline's buffers on each GPU, used as `d_x[g][buf]`): `t` names the rank's row, which is no
// pointer; its targets are the row's entries (`d_x[cuco_program::rank()][0]` ...). nullopt where `t`
// names no such array; empty, with *why, where the row's length is not one number under the run.
std::optional<std::vector<Target>> PerGpuRowEntries(const BindContext& c, const Target& t, std::string* why) {
  const std::string rank_index = std::string("[") + kRankIndex + "]";
  if (t.expr.size() <= rank_index.size() || t.expr.compare(t.expr.size() - rank_index.size(), rank_index.size(), rank_index))
    return std::nullopt;
  const std::string base = t.expr.substr(0, t.expr.size() - rank_index.size());
  static const std::regex identifier(R"(^[A-Za-z_]\w*$)");
  if (!std::regex_match(base, identifier)) return std::nullopt;
  std::smatch m;
  if (!std::regex_search(c.program_code, m, std::regex(R"(\*\s*)" + base + R"(\s*\[[^\[\]]+\]\s*\[([^\[\]]+)\])")))
    return std::nullopt;
  const std::string length = m[1].str();
  std::optional<int64_t> n = ValueUnder(length, c.f.run_defaults);
  for (const FoundConstant& k : c.f.constants)  // a `#define DEPTH 3` or a `const int`, which the run's defaults lack
    if (!n && k.name == length && !Passed(k)) n = k.value;
  if (!n || *n < 1 || *n > static_cast<int64_t>(kMaxBoundBuffers)) {
    *why = fmt::format("each GPU's entry of `{}` is itself an array of device pointers, of length `{}`{}", base, length,
                       n ? fmt::format(" = {}, more than the harness binds", *n) : ", not a number cuco can read");
    return std::vector<Target>{};
  }
  std::vector<Target> out;
  for (int64_t k = 0; k < *n; ++k) out.push_back({fmt::format("{}[{}]", t.expr, k), fmt::format("{}[0][{}]", base, k)});
  return out;
}

// The expressions the binds of buffer `marked_expr` name: the buffer itself (a projected program's
// per-GPU array at the rank's entry); entry 0 of an array of device pointers that holds one in this
// run (pointer_arrays.h), local or member; each entry of an array of a process with one communicator
// (array_entries.h), *entries then set. Empty, with *why, where such an array cannot be bound.
std::vector<Target> TargetsOf(const BindContext& c, const std::string& marked_expr, bool* entries, std::string* why,
                              InitPassTrace* trace) {
  const ProgramDefaults& run = c.f.run_defaults;  // as the harness starts it
  // "@": the index of a per-GPU array (projected programs): this rank's entry.
  Target t{marked_expr, marked_expr};
  for (size_t at; (at = t.expr.find("[@]")) != std::string::npos;) t.expr.replace(at, 3, std::string("[") + kRankIndex + "]");
  for (size_t at; (at = t.probe.find("[@]")) != std::string::npos;) t.probe.replace(at, 3, "[0]");
  if (c.found.projected) {
    if (std::optional<std::vector<Target>> row = PerGpuRowEntries(c, t, why)) {
      if (!row->empty())
        trace->Add(fmt::format("`{}`: each GPU's entry is an array of {} device pointers: each of the rank's bound",
                               marked_expr, row->size()));
      *entries = !row->empty();
      return *row;
    }
    return {t};
  }
  if (std::optional<OneEntry> only = OnlyEntry(t.probe, c.before_loop, run)) {
    trace->Add(fmt::format("`{}`: a host array of device pointers that holds one in this run (its length `{}`): its entry "
                           "0, `{}`, is the buffer",
                           marked_expr, only->length, only->entry));
    return {{only->entry, only->entry}};
  }
  std::string member_why;
  if (std::optional<OneEntry> only = OnlyMemberEntry(t.probe, c.program_code, run, &member_why); only && !only->entry.empty()) {
    trace->Add(fmt::format("`{}`: a member array of device pointers that holds one in this run (its length `{}`): its "
                           "entry 0, `{}`, is the buffer",
                           marked_expr, only->length, only->entry));
    return {{only->entry, only->entry}};
  }
  std::string entries_why;
  const std::optional<ArrayEntries> arr = c.one_comm ? EntriesOf(t.probe, c.program_code, run, kMaxBoundBuffers, &entries_why)
                                                     : std::nullopt;
  if (arr && !arr->entries.empty()) {
    trace->Add(fmt::format("`{}`: an array of {} buffers (`{}`, its length `{}`; the process makes one communicator, so "
                           "they are per layer, per peer or double buffers, not per GPU): each entry bound, with the role "
                           "of the array",
                           marked_expr, arr->entries.size(), arr->array, arr->length));
    std::vector<Target> out;
    for (const std::string& e : arr->entries) out.push_back({e, e});
    *entries = true;
    return out;
  }
  if (!member_why.empty() || arr) {
    *why = !member_why.empty() ? member_why : entries_why;
    return {};
  }
  return {t};
}

// Whether `op` allocates `name` in the loop's file (the iteration's code, or main's before it).
bool AllocatesInLoopFile(const BindContext& c, const AnalyzedOp& op, const std::string& name) {
  return op.kind == "alloc" && op.assigns == name && (op.file.empty() ? c.f.file : SourceFileName(op.file)) == c.f.file;
}

// The skeleton's words for an output the iteration itself allocates (`cudaMalloc(&d_recv, ...)` in
// the loop, or in a lambda defined there, as a benchmark's per-call receive buffer): a buffer made
// anew every pass, which nothing before the loop names (or, `declared`, which a pointer declared there
// holds only once the pass has allocated it); "" when the iteration allocates no `name`.
std::string AllocatedEachPass(const BindContext& c, const std::string& marked_expr, const std::string& name,
                              bool declared = false) {
  for (const auto& op : c.f.analysis->ops) {
    if (!AllocatesInLoopFile(c, op, name) || !InLineRanges(c.code.ranges, op.line)) continue;
    return fmt::format("`{}`, which it writes: allocated inside the iteration ({}:{}), a new buffer every pass {}, so "
                       "the harness cannot fill or compare it; allocate it once before the loop",
                       marked_expr, c.f.file, op.line,
                       declared ? "(its pointer is declared before the loop, but holds no buffer until the pass "
                                  "allocates one)"
                                : "that no name before the loop holds");
  }
  return "";
}

// Whether `name` (declared before the loop) gets its memory only inside the iteration: every allocation
// of it in the loop's file lies in the iteration's lines (`char *d_recv;` before a loop whose body
// cudaMallocs and frees it, bruck-steps' one-pass sweep). Bound, it would point at nothing the
// harness can size before the first pass, and the body would replace the harness's buffer anyway.
bool AllocatedOnlyInIteration(const BindContext& c, const std::string& name) {
  bool inside = false;
  for (const auto& op : c.f.analysis->ops) {
    if (!AllocatesInLoopFile(c, op, name)) continue;
    if (!InLineRanges(c.code.ranges, op.line)) return false;
    inside = true;
  }
  return inside;
}

// The objects of `order` whose device storage would be bound by copy through an accessor
// (object_storage.h) that returns a member (`double* get_ptr_device() { return array_d; }`) which
// `order` names as well (`abs_errors.array_d`, reached through the object's methods): that member's
// expression -> the object, each traced. Bound twice, the copy through the accessor would read and write
// what the bind of the member points it at, the harness's buffer of another iteration (wave3d's late writes).
std::map<std::string, std::string> StorageMembersBound(const BindContext& c, const std::vector<std::string>& order,
                                                       InitPassTrace* trace) {
  std::map<std::string, std::string> out;
  for (const std::string& object : order) {
    const std::optional<std::string> storage = ObjectDeviceStorage(object, c.program_code);
    if (!storage || c.found.projected) continue;
    const size_t dot = storage->rfind('.'), paren = storage->rfind('(');
    if (dot == std::string::npos || paren == std::string::npos || paren < dot) continue;
    const std::string method = storage->substr(dot + 1, paren - dot - 1);
    for (const AnalyzedFunction& fn : c.f.analysis->functions)
      if (fn.name == method && !fn.returns_member.empty() &&
          std::count(order.begin(), order.end(), object + "." + fn.returns_member) && !out.count(object + "." + fn.returns_member)) {
        out[object + "." + fn.returns_member] = object;
        trace->Add(fmt::format("`{}`: bound through `{}.{}`, the member its accessor returns, which the iteration names too "
                               "(one buffer bound once)", object, object, fn.returns_member));
      }
  }
  return out;
}

// The bind of `t`, one expression of buffer `marked_expr` with role `r`, added to `h`; where main
// cannot bind it (a helper's local, a class's member it cannot name) it is added to u->unnamed and,
// an output, named in *unbound_output; host memory and empty allocations stay the program's own.
void BindTarget(const BindContext& c, const std::string& marked_expr, Target t, Role r, BufferUse* u, BoundBuffers* h,
                std::string* unbound_output, InitPassTrace* trace) {
  const ProgramDefaults& run = c.f.run_defaults;
  if (const std::string own = OwnUnbound(*c.f.analysis, marked_expr, t.probe, c.before_loop, run); !own.empty()) {
    h->guesses.push_back(own);
    trace->Add(own);
    return;
  }
  if (AllocatedOnlyInIteration(c, t.probe)) {  // nameable, but made anew by every pass
    u->unnamed.insert(t.expr);
    if (r.out && unbound_output->empty()) *unbound_output = AllocatedEachPass(c, marked_expr, t.probe, true);
    return;
  }
  std::optional<HeldAccessor> held_by = HeldByAccessor(t.probe, c.f.raw, c.found, c.code, c.before_loop, c.program_code, trace);
  // An object the loop hands whole to functions (or an entry of an array of them), its device storage
  // behind an accessor, named where the binds are: bound by copy through it (object_storage.h), never
  // as the object itself, which is no pointer.
  std::optional<std::string> storage;
  if (!held_by && !c.found.projected)
    if ((storage = ObjectDeviceStorage(t.probe, c.program_code)) &&
        !std::regex_search(c.before_loop, std::regex("\\b" + t.probe.substr(0, t.probe.find('[')) + "\\b")))
      storage.reset();
  if (held_by) {
    t.expr = held_by->local;
    h->held.push_back(*held_by);
  } else if (storage) {
    t.expr = *storage;
  } else if (!Bindable(t.probe, c.before_loop) ||
             (c.found.projected && c.per_gpu.NamesAnArray(marked_expr, c.found.all_code))) {
    u->unnamed.insert(t.expr);
    if (r.out && unbound_output->empty()) *unbound_output = AllocatedEachPass(c, marked_expr, t.probe);
    if (r.out && unbound_output->empty())
      *unbound_output = UnboundOutput(marked_expr, t.probe, c.before_loop, run, c.found.loop_fn);
    return;
  }
  const bool held = !h->held.empty() && h->held.back().local == t.expr;  // named as the program writes it
  const std::string name = BindName(held || storage ? t.probe : t.expr);
  for (const ChainName& n : ChainNames(t.expr))  // a member of a class: its class is opened
    for (const auto& [record, fields] : c.f.analysis->record_fields)
      if (!n.head && std::count(fields.begin(), fields.end(), n.name)) h->member_records.insert(record);
  // A projected program's output may be one some GPUs never write (a pipeline's first stage never
  // receives), and so may one written only under an `if`: bound as inout, such a rank's output is
  // its input on both sides.
  const bool maybe_unwritten = c.found.projected || !u->written_always.count(marked_expr) || r.swapped;
  r.both = (r.in && r.out) || (maybe_unwritten && r.out);
  const char* how = r.both ? "inout" : r.in ? "input" : "output";
  // An untyped pointer the collectives move as one floating type gets that type (untyped_buffers.h).
  const std::string as = !r.float_type.empty() && DeclaredUntyped(c.program_code, t.expr)
                             ? fmt::format("as<{}>().", r.float_type)
                             : "";
  std::string derived;  // pointers the program keeps into the buffer: bound by copy (derived_pointers.h)
  const bool copy = h->by_copy || storage ||
                    (!held && PointersDerivedBeforeLoop(c.before_loop, c.program_code, t.probe, &derived));
  h->binds.push_back(fmt::format("cuco_bind.{}{}{}(\"{}\", {});", as, how, copy ? "_copy" : "", name, t.expr));
  if (r.in || r.both) h->inputs.push_back(name);
  if (r.out) h->outputs.push_back(r.both ? name + "_out" : name);
  if (r.out) {
    std::string type = as.empty() ? DeclaredFloatType(c.program_code, t.expr) : r.float_type;
    if (type.empty() && held) type = DeclaredFloatType(c.program_code, t.probe);
    h->output_types.push_back({t.expr, type});
  }
  h->guesses.push_back(RoleGuess(held ? h->held.back().expr : t.expr, r, c.found.projected));
  if (!as.empty())
    h->guesses.back() += fmt::format("; its pointer is untyped and the collectives move it as `{}`: bound as {}",
                                     r.datatype, r.float_type);
  else if (!r.chosen_datatype.empty() && (r.in || r.both) && DeclaredUntyped(c.program_code, t.expr))
    h->guesses.back() += fmt::format(
        "; its pointer is untyped and its collectives' type, `{}`, is chosen at run time: bound as bytes, its fresh "
        "inputs are the program's own bytes (write `cuco_bind.as<T>()` in front of the bind, T the type the run "
        "moves, for fresh values of it)",
        r.chosen_datatype);
  if (!derived.empty())
    h->guesses.back() += fmt::format("; bound by copy: {}, a pointer into the program's own buffer", derived);
  if (storage)
    h->guesses.back() += fmt::format("; an object the loop hands whole to functions: bound by copy through `{}`", *storage);
  trace->Add(fmt::format("cuco_bind.{}{}{}(\"{}\"): {}", as, how, copy ? "_copy" : "", name, h->guesses.back()));
}
}  // namespace

std::optional<LoopNamingOutput> LoopWhereOutputIsNamed(const ProgramFacts& f, const std::vector<ProgramFile>& others,
                                                       const FoundLoop& found) {
  return HelperLoopNamingOutput(f, others, found);
}

Result<BoundBuffers> BindBuffers(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, const FoundLoop& found,
                                 InitPassTrace* trace) {
  const TimedLoop& loop = found.loop;
  BoundBuffers h;
  const IterationCode code = IterationCodeOf(f, found, &h.guesses);
  h.by_copy = code.by_copy;
  h.ranges = code.ranges;
  const DeviceIndexing per_gpu(found.projected ? f.raw.substr(0, loop.begin) + code.walked : std::string(), found.gpu_count);
  BufferUse u = UseOf(f, other_files, found, code, per_gpu);
  for (const std::string& g : h.guesses) trace->Add(g);  // the capture bound by copy
  std::string program_code = f.raw;  // every file, headers too: where a struct declares its members
  for (const ProgramFile& pf : other_files) program_code += "\n" + pf.text;
  auto copied_of = [&](const std::string& e) {
    return u.last_write[e] || !u.written.count(e) ? u.copied_out.end() : u.copied_out.find(e);
  };
  // A swapped buffer the iteration writes is what the next iteration reads under the other name (a
  // stencil's new grid, read by halo sends before the swap): an output, bound as input and output,
  // since the part it does not write (the boundary) is what the buffer held, on both sides.
  auto is_output = [&](const std::string& e) {
    return copied_of(e) != u.copied_out.end() ||
           (Swapped(e, u.swaps) ? u.written.count(e) && FlowsOn(e, u.swaps, u.first_read)
                                : u.LastWritten(e) || (u.first_read.at(e) && u.written.count(e)));
  };
  // Where nothing else is an output, a buffer the iteration writes and last copies to the host is: the
  // result the program reads back (an all-reduce's receive buffer, copied out and printed).
  const bool any_output = std::any_of(u.order.begin(), u.order.end(), is_output);
  const BindContext c{f, found, code, per_gpu, NameableBeforeLoop(f.raw, loop.begin, found.loop_fn), program_code,
                      OneCommunicator(*f.analysis)};
  std::string unbound_output;  // the first output main cannot bind, and why (the skeleton's reason)
  const std::map<std::string, std::string> object_of = StorageMembersBound(c, u.order, trace);  // member -> object
  for (const auto& marked_expr : u.order) {
    if (std::any_of(object_of.begin(), object_of.end(), [&](const auto& m) { return m.second == marked_expr; })) continue;
    Role r;
    r.in = u.first_read[marked_expr];
    const auto copied = copied_of(marked_expr);
    r.swapped = Swapped(marked_expr, u.swaps);
    r.root_only = u.written_by_root.count(marked_expr) && !u.written_always.count(marked_expr);
    r.either_side = !r.root_only && u.EitherSide(marked_expr);
    r.out = is_output(marked_expr) || r.either_side;
    if (const auto o = object_of.find(marked_expr); o != object_of.end())  // the object's accesses are its too
      r.in = r.in || u.first_read[o->second], r.out = r.out || is_output(o->second);
    MarkUnwrittenReads(u, marked_expr, copied != u.copied_out.end(), &r);
    if (const auto moved = u.datatypes.find(marked_expr); moved != u.datatypes.end()) {
      std::set<std::string> constants;  // a datatype variable the program gives one constant: that constant
      for (const std::string& d : moved->second) constants.insert(DatatypeValue(program_code, d));
      r.float_type = FloatTypeOfDatatypes(constants);
      r.datatype = r.float_type.empty() ? "" : *constants.begin();
      for (const std::string& d : constants)
        if (r.float_type.empty() && d.rfind("nccl", 0) != 0) r.chosen_datatype = d;
    }
    const auto back = u.read_back.find(marked_expr);
    const bool read_back = !any_output && !r.in && !r.out && u.written.count(marked_expr) && back != u.read_back.end();
    r.out = r.out || read_back;
    if (!r.in && !r.out) {  // scratch: the program's own buffer
      trace->Add(fmt::format("`{}`: scratch (first written, last read, not copied out in the loop's function): the program's own, not bound",
                             marked_expr));
      continue;
    }
    r.last = read_back ? fmt::format("a copy to the host ({}:{}), the result the program reads back", f.file, back->second)
             : copied != u.copied_out.end()
                 ? fmt::format("a read, and {}:{} copies it to the host {}", f.file, copied->second,
                               copied->second > found.loop.end_line ? "after the loop" : "for the code after the loop")
                 : std::string(u.last_write[marked_expr] ? "a write" : "a read") +
                       (r.swapped && r.out ? ", and the next pass reads it through the swap" : "");
    std::string why;
    bool entries = false;
    const std::vector<Target> targets = TargetsOf(c, marked_expr, &entries, &why, trace);
    if (entries) {  // the array's accesses merged: an entry read first may be another's write
      r.in = true;
      r.out = u.written.count(marked_expr) > 0;
      r.array_entry = true;
    }
    if (targets.empty()) {
      u.unnamed.insert(marked_expr);
      if (r.out && unbound_output.empty()) unbound_output = fmt::format("`{}`, which it writes: {}", marked_expr, why);
      trace->Add(fmt::format("`{}`: not bound: {}", marked_expr, why));
      continue;
    }
    for (const Target& t : targets) BindTarget(c, marked_expr, t, r, &u, &h, &unbound_output, trace);
  }
  NoteUnnamed(u.unnamed, &h, trace);
  if (h.outputs.empty())  // a result the iteration's helpers copy to host memory (host_buffers.h)
    for (const HostBind& b : HostBinds(*f.analysis, found.loop_fn.empty() ? "main" : found.loop_fn, f.file, loop.line,
                                       loop.end_line, c.before_loop)) {
      h.binds.push_back(b.statement);
      if (b.in) h.inputs.push_back(b.name);
      if (b.out) h.outputs.push_back(b.in ? b.name + "_out" : b.name);
      h.guesses.push_back(b.guess);
      trace->Add(b.statement + ": " + b.guess);
    }
  if (h.outputs.empty())
    return Status::NotFound(fmt::format("{}:{}: no output of the iteration could be named in {}, so nothing would be "
                                        "checked{}",
                                        f.file, loop.line, found.loop_fn.empty() ? "main" : found.loop_fn,
                                        Clause(NoOutputWhy(f, other_files, found, unbound_output))));
  if (h.inputs.size() + h.outputs.size() > kMaxBoundBuffers)
    return Status::InvalidArgument(fmt::format("{}:{}: the iteration has {} buffers; the harness takes at most {}", f.file,
                                               loop.line, h.inputs.size() + h.outputs.size(), kMaxBoundBuffers));
  return h;
}

// What the loop's function can name before its loop: the code before the loop, less what is out
// of scope there. Blanked: comments and literals, the inside of every brace pair closed before the loop (a helper's or
// lambda's locals, a class's members, an earlier block's), every parenthesised list before the loop
// function (parameters of other functions and kernels), and, in the loop function, the headers of
// earlier for/if/while/switch/catch statements (and the body of a for/if/while without braces) and
// lambdas' parameter lists.
std::string NameableBeforeLoop(const std::string& raw, size_t loop_begin, const std::string& loop_fn) {
  size_t fn_begin = loop_begin, fn_end = 0;
  if (DefinitionLines(raw, loop_fn, &fn_begin, &fn_end) && fn_begin > loop_begin) fn_begin = loop_begin;
  const std::string masked = BlankCommentsAndLiteralContents(raw.substr(0, loop_begin));
  std::string text = masked;  // a name in a comment or a string is not declared
  auto blank = [&](size_t from, size_t to) {  // [from, to)
    for (size_t i = from; i < to && i < text.size(); ++i)
      if (text[i] != '\n') text[i] = ' ';
  };
  // The word (or ']') just before `at`, skipping blanks.
  auto before = [&](size_t at) {
    size_t e = at;
    while (e > 0 && std::isspace(static_cast<unsigned char>(masked[e - 1]))) --e;
    if (e > 0 && masked[e - 1] == ']') return std::string("]");
    size_t b = e;
    while (b > 0 && (std::isalnum(static_cast<unsigned char>(masked[b - 1])) || masked[b - 1] == '_')) --b;
    return masked.substr(b, e - b);
  };
  std::vector<size_t> braces, parens;
  std::vector<std::pair<size_t, size_t>> spans;
  for (size_t i = 0; i < masked.size(); ++i) {
    const char c = masked[i];
    if (c == '{') {
      braces.push_back(i);
    } else if (c == '}' && !braces.empty()) {
      spans.push_back({braces.back() + 1, i});
      braces.pop_back();
    } else if (c == '(') {
      parens.push_back(i);
    } else if (c == ')' && !parens.empty()) {
      const size_t open = parens.back();
      parens.pop_back();
      const std::string w = before(open);
      if (open < fn_begin || w == "for" || w == "if" || w == "while" || w == "switch" || w == "catch" || w == "]")
        spans.push_back({open + 1, i});
      if (open >= fn_begin && (w == "for" || w == "while" || w == "if")) {  // a body without braces: to its ';'
        size_t j = i + 1;
        while (j < masked.size() && std::isspace(static_cast<unsigned char>(masked[j]))) ++j;
        size_t k = j;
        int depth = 0;
        for (; k < masked.size(); ++k) {  // a `{` first (braces) or another `{` or `}` on the way: no such body
          if (masked[k] == '(') ++depth;
          if (masked[k] == ')') --depth;
          if ((masked[k] == ';' && depth == 0) || masked[k] == '{' || masked[k] == '}') break;
        }
        if (k < masked.size() && masked[k] == ';') spans.push_back({j, k});
      }
    }
  }
  for (const auto& [from, to] : spans) blank(from, to);
  return text;
}

std::string BindName(const std::string& expr_in) {
  std::string expr = expr_in, indexed = "[";  // built piece by piece: GCC 12's false -Wrestrict
  indexed += kRankIndex;
  indexed += ']';
  for (size_t at; (at = expr.find(indexed)) != std::string::npos;)
    expr.erase(at, std::char_traits<char>::length(kRankIndex) + 2);
  std::string n;
  for (char c : expr) {
    const char d = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    if (d != '_' || n.empty() || n.back() != '_') n += d;  // a run of '_' is one
  }
  while (!n.empty() && n.back() == '_') n.pop_back();
  return n.substr(0, 40);
}

}  // namespace cuco::scaffold_internal
