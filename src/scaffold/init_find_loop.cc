#include "scaffold/init_find_loop.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include "scaffold/branches_run.h"
#include "scaffold/handed_lambdas.h"
#include "scaffold/helper_loop.h"
#include "scaffold/init_loop_arguments.h"
#include "scaffold/init_project.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/loop_choice.h"
#include "scaffold/program_arguments.h"
#include "scaffold/program_text.h"
#include "scaffold/projection.h"
#include "scaffold/task_starts.h"
#include "scaffold/tokens.h"
#include "scaffold/unreached_comm.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

std::set<std::string> CommNamesOf(const Analysis& a, const std::string& loop_fn, std::set<std::string>* direct) {
  std::set<std::string> names;
  for (const auto& op : a.ops)
    if (IsCommOp(op)) {
      names.insert(op.api);
      if (!op.function.empty()) names.insert(op.function), direct->insert(op.function);
    }
  AddCallers(a, &names);
  for (const std::string& outer : {std::string("main"), loop_fn}) {  // the loop's own function is not a block
    names.erase(outer);
    direct->erase(outer);
  }
  return names;
}

int CallsPerRun(const std::string& body, const std::string& name) {
  const std::vector<Tok> t = Scan(body);
  // Each if / else if / else chain not itself an else's: its branches, as token ranges [first, last].
  std::vector<std::vector<std::pair<size_t, size_t>>> chains;
  for (size_t c = 0; c < t.size(); ++c) {
    if (t[c].text != "if" || !t[c].ident || (c > 0 && t[c - 1].text == "else")) continue;
    std::vector<std::pair<size_t, size_t>> branches;
    for (size_t k = c; k + 1 < t.size() && t[k + 1].text == "(";) {
      const size_t close = Match(t, k + 1);
      if (close + 1 >= t.size()) break;
      const size_t end = StatementEnd(t, close + 1);
      if (end >= t.size()) break;
      branches.push_back({close + 1, end});
      if (end + 1 >= t.size() || t[end + 1].text != "else") break;
      if (end + 2 < t.size() && t[end + 2].text == "if") {
        k = end + 2;
        continue;
      }
      if (end + 2 < t.size()) branches.push_back({end + 2, StatementEnd(t, end + 2)});
      break;
    }
    if (branches.size() > 1) chains.push_back(std::move(branches));
  }
  int alone = 0;
  std::map<std::pair<size_t, size_t>, int> per_branch;  // (chain, branch) -> sites
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].ident || t[i].text != name || (t[i + 1].text != "(" && t[i + 1].text != "<")) continue;
    for (size_t k = 0; k < i; ++k) {  // a site in a loop runs more than once
      if (!t[k].ident || (t[k].text != "for" && t[k].text != "while" && t[k].text != "do")) continue;
      const size_t loop_end = StatementEnd(t, k);
      if (loop_end > i && loop_end < t.size()) return 2;
    }
    std::optional<std::pair<size_t, size_t>> where;  // the innermost chain's branch holding it
    size_t span = t.size();
    for (size_t ch = 0; ch < chains.size(); ++ch)
      for (size_t br = 0; br < chains[ch].size(); ++br)
        if (chains[ch][br].first <= i && i <= chains[ch][br].second && chains[ch][br].second - chains[ch][br].first < span)
          where = std::make_pair(ch, br), span = chains[ch][br].second - chains[ch][br].first;
    if (where) ++per_branch[*where];
    else ++alone;
  }
  std::map<size_t, int> per_chain;  // a chain runs one branch: its most sites in one
  for (const auto& [at, n] : per_branch) per_chain[at.first] = std::max(per_chain[at.first], n);
  for (const auto& [ch, n] : per_chain) alone += n;
  return alone;
}

namespace {

// The function of `file` that `caller` calls once a run and that reaches the communication (`comm`,
// as seen from `caller`), the last such call in `caller` that runs under `defaults` (what caller's
// variables hold as the program is started): where a program that times in a helper (`benchmark(...)`)
// has its timed loop. "" when there is none, or when that call is made only under a condition the
// defaults do not decide and others reach the communication too (a `switch (cfg.mode)` over modes
// read from a string): which one runs is not known, and *why (when given) says so.
std::string TimingFunction(const std::string& raw, const Analysis& a, const std::string& file,
                           const std::set<std::string>& comm, const std::string& caller, const ProgramDefaults& defaults,
                           std::string* why = nullptr) {
  size_t b = 0, e = 0;
  if (!DefinitionLines(raw, caller, &b, &e)) return "";
  const std::string caller_def = raw.substr(b, e - b);
  const std::set<std::string> never = CalledOnlyWhereNeverRun(raw, b, e, defaults);
  std::vector<std::string> order;
  for (const auto& [name, args] : CallsIn(caller_def))
    if (name != "main" && name != caller && comm.count(name) && !never.count(name) &&
        std::find(order.begin(), order.end(), name) == order.end())
      order.push_back(name);
  std::vector<std::string> once;  // last first
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const AnalyzedFunction* fn = FindFunction(a, *it);
    if (CallsPerRun(caller_def, *it) == 1 && fn != nullptr && SourceFileName(fn->file) == file) once.push_back(*it);
  }
  if (once.empty()) return "";
  const std::vector<std::pair<int, int>> conditional = BranchLinesIn(raw, b, e, defaults).conditional;
  const std::vector<Tok> t = Scan(raw);
  bool undecided = once.size() > 1;
  for (size_t i = 0; undecided && i + 1 < t.size(); ++i)
    if (t[i].ident && t[i].text == once.front() && t[i].begin >= b && t[i].begin < e &&
        (t[i + 1].text == "(" || t[i + 1].text == "<"))
      undecided = std::any_of(conditional.begin(), conditional.end(),
                              [&](const auto& r) { return t[i].line >= r.first && t[i].line <= r.second; });
  if (!undecided) return once.front();
  if (why != nullptr)
    *why = fmt::format("{} calls {} each under a condition its values as the program starts do not decide: which one "
                       "runs is not known, so none is looked in; `cuco init --loop FILE:LINE` names the loop to serve",
                       caller, fmt::join(once.rbegin(), once.rend(), ", "));
  return "";
}

// TimingFunction below `caller`, a function main reaches, read under what its callers pass it
// (HelperDefaults); where which one runs is not known, the trace says so.
std::string TimingFunctionTraced(const ProgramFacts& f, const std::set<std::string>& comm, const std::string& caller,
                                 InitPassTrace* trace) {
  std::string undecided;
  std::string fn = TimingFunction(f.raw, *f.analysis, f.file, comm, caller, HelperDefaults(f, caller), &undecided);
  if (!undecided.empty()) trace->Add(undecided);
  return fn;
}

// How far below main a timed loop is looked for, one function called once at each step
// (main -> run_benchmark -> time_all_reduce<T>).
constexpr int kCalleeDepth = 4;

// Why a program without an iteration has none, when it is not the loop: it communicates from its
// kernels (NCCL's device API), which the reference cannot emulate, or only sets communicators up.
Status CommunicatesFromTheHost(const ProgramFacts& f) {
  const Analysis& a = *f.analysis;
  if (std::any_of(a.ops.begin(), a.ops.end(), [](const AnalyzedOp& op) { return IsCommOp(op); })) return Status::Ok();
  static const std::regex device_api(R"(\b(ncclDevCommCreate|ncclGetLsaPointer|ncclGin\w*)\s*[(<])");
  std::vector<std::pair<std::string, const std::string*>> texts = {{f.file, &f.code}};  // what this build compiles
  for (const auto& [name, code] : f.other_code) texts.push_back({name, &code});
  for (const auto& [name, text] : texts) {
    const std::string code = BlankCommentsAndLiterals(*text);
    std::smatch m;
    if (std::regex_search(code, m, device_api))
      return Status::InvalidArgument(fmt::format(
          "{}:{}: {}: the program communicates from its kernels (NCCL's device API), which cuco's reference (NCCL "
          "emulated between threads) cannot run; cuco init makes harnesses of programs that communicate through host "
          "NCCL calls",
          name, LineOf(*text, static_cast<size_t>(m.position(0))), m[1].str()));
  }
  std::string setup;
  for (const auto& op : a.ops)
    if (setup.empty() && op.api.rfind("nccl", 0) == 0)
      setup = fmt::format(" ({} at {}:{})", op.api, SourceFileName(op.file.empty() ? f.file : op.file), op.line);
  return Status::InvalidArgument(fmt::format("{}: the program makes no NCCL communication call, it only sets "
                                             "communicators up{}: a harness has nothing to run",
                                             f.file, setup));
}

}  // namespace

std::optional<std::pair<size_t, size_t>> CapturingLoop(const std::string& raw, const std::set<std::string>& comm) {
  const std::vector<Tok> t = Scan(raw);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "cudaStreamBeginCapture") continue;
    size_t j = i;
    while (j < t.size() && t[j].text != "cudaStreamEndCapture") ++j;
    if (j >= t.size() || !Calls(t, i, j, comm)) continue;
    for (size_t k = i; k-- > 0;) {  // the innermost loop holding both
      if (!IsLoopAt(t, k)) continue;
      const size_t end = StatementEnd(t, k);
      if (end < t.size() && end >= j) return std::make_pair(t[k].begin, t[end].end);
    }
    return std::make_pair(t[i].begin, t[j].end);
  }
  return std::nullopt;
}

std::set<std::string> GraphLaunchers(const ProgramFacts& f) {
  const std::set<std::string> launch_calls = {"cudaGraphLaunch", "cudaGraphExecLaunch"};
  std::set<std::string> names = launch_calls;
  const std::string code = BlankCommentsAndLiterals(f.raw);
  for (const auto& fn : f.analysis->functions) {
    size_t b = 0, e = 0;
    if (fn.name == "main" || SourceFileName(fn.file) != f.file || !DefinitionLines(code, fn.name, &b, &e)) continue;
    const std::vector<Tok> t = Scan(code.substr(b, e - b));
    if (!t.empty() && Calls(t, 0, t.size() - 1, launch_calls)) names.insert(fn.name);
  }
  AddCallers(*f.analysis, &names);
  names.erase("main");
  return names;
}

std::string FunctionAt(const std::string& raw, const Analysis& a, const std::string& file, int line) {
  std::string best;
  int best_span = 0;
  for (const auto& fn : a.functions) {
    size_t b = 0, e = 0;
    if (SourceFileName(fn.file) != file || !DefinitionLines(raw, fn.name, &b, &e)) continue;
    const int first = LineOf(raw, b), last = LineOf(raw, e > b ? e - 1 : b);
    if (line >= first && line <= last && (best.empty() || last - first < best_span)) best = fn.name, best_span = last - first;
  }
  return best;
}

namespace {

// Where the program stores one of `names` in a function pointer: adds that pointer to `names` and,
// through the text of the program's functions, every function calling one of `names` (a call through
// the pointer, or one the analysis lacks), until nothing is added. Nothing without such a pointer.
void AddPointerCallers(const ProgramFacts& f, const std::string& fn, std::set<std::string>* names) {
  const std::map<std::string, std::vector<std::string>>& pointers = f.pointer_targets;
  if (pointers.empty()) return;
  std::map<std::string, std::vector<Tok>> bodies;  // each function of the program: its definition's tokens
  for (const AnalyzedFunction& g : f.analysis->functions) {
    if (g.name == fn || g.name == "main") continue;
    std::string text = f.code;
    for (const auto& [name, code] : f.other_code)
      if (name == SourceFileName(g.file)) text = code;
    size_t b = 0, e = 0;
    if (SourceFileName(g.file) == f.file || text != f.code)
      if (DefinitionLines(text, g.name, &b, &e)) bodies[g.name] = Scan(text.substr(b, e - b));
  }
  for (bool grew = true; grew;) {
    grew = false;
    bool held = false;  // a pointer holding one of `names`: it reaches the communication too
    for (const auto& [pointer, stored] : pointers)
      for (const std::string& target : stored)
        if (names->count(target)) held = true, grew |= names->insert(pointer).second;
    if (!held) return;
    for (const auto& [name, t] : bodies)  // by their text: the analysis may lack a call a macro wraps
      if (!names->count(name) && !t.empty() && Calls(t, 0, t.size() - 1, *names)) {
        names->insert(name);
        AddCallers(*f.analysis, names);
        grew = true;
      }
  }
}

// The names reaching the communication from `fn` (through the program's function pointers too, a
// graph's launch when the program captures it, and the program's functions that launch one:
// GraphLaunchers).
std::set<std::string> CommNamesIn(const ProgramFacts& f, const std::string& fn, std::set<std::string>* direct) {
  std::set<std::string> names = CommNamesOf(*f.analysis, fn, direct);
  AddPointerCallers(f, fn, &names);
  names.erase("main");  // (AddCallers may add them back)
  names.erase(fn);
  if (CapturingLoop(f.raw, names).has_value())
    for (const std::string& n : GraphLaunchers(f))
      if (n != fn) names.insert(n);
  return names;
}

// The functions among `comm` that are barriers: named so (`nccl_barrier`, `ncclBarrier`), each NCCL call
// of theirs moving at most one element (an all-reduce of a token). Empty where the program communicates
// through nothing else. A loop reaching only them orders the ranks (`for (r ...) { nccl_barrier(...);
// if (rank == r) print(...); }`) and is not the program's work (fasrc's ncclAllGather_nompi.cu, whose
// all-gather runs once before such a loop).
std::set<std::string> BarrierHelpers(const ProgramFacts& f, const std::set<std::string>& comm) {
  static const std::regex named(R"(barrier)", std::regex::icase);
  std::set<std::string> barriers;
  bool other = false;  // communication outside them
  std::map<std::string, bool> small;  // function -> every NCCL call of it moves at most one element
  for (const auto& op : f.analysis->ops) {
    if (!IsCommOp(op)) continue;
    const bool tiny = op.count == "0" || op.count == "1";
    if (std::regex_search(op.function, named) && comm.count(op.function)) {
      auto [it, added] = small.emplace(op.function, tiny);
      if (!added) it->second = it->second && tiny;
    } else {
      other = true;
    }
  }
  for (const auto& [fn, tiny] : small)
    if (tiny) barriers.insert(fn);
    else other = true;
  return other ? barriers : std::set<std::string>{};
}

// `comm` less its barriers (BarrierHelpers), each traced: what makes a loop the iteration.
std::set<std::string> WithoutBarriers(const ProgramFacts& f, const std::set<std::string>& comm, InitPassTrace* trace) {
  std::set<std::string> out = comm;
  for (const std::string& b : BarrierHelpers(f, comm)) {
    out.erase(b);
    trace->Add(fmt::format("{}: a barrier (its NCCL calls move one element at most): a loop reaching only it orders the "
                           "ranks, and is not chosen for that",
                           b));
  }
  return out;
}

// Member calls in `fn`'s definition (`fc1.forward(...)`, `p->forward(...)`) whose object is
// declared with a class (`ColumnLinear fc1(...)`) whose own method of that name reaches none of
// `comm`, though a method of that name in another class does: "object.method" for each, which
// Calls() then reads as reaching nothing (tokens.h). Methods of one name in two classes are two
// functions. Only where clang's parse gave every op of such a method its class.
std::set<std::string> QuietMemberCalls(const ProgramFacts& f, const std::string& fn, const std::set<std::string>& comm) {
  std::set<std::string> quiet;
  const Analysis& a = *f.analysis;
  std::map<std::string, std::set<std::string>> records;  // method name -> the classes defining it
  for (const auto& d : a.functions)
    if (!d.record.empty()) records[d.name].insert(d.record);
  size_t b = 0, e = 0;
  if (!DefinitionLines(f.raw, fn, &b, &e)) return quiet;
  const std::string code = BlankCommentsAndLiterals(f.raw);
  const std::string def = code.substr(b, e - b);
  const std::vector<Tok> t = Scan(def);
  for (size_t i = 2; i + 1 < t.size(); ++i) {
    if (!t[i].ident || !comm.count(t[i].text) || t[i + 1].text != "(") continue;
    const auto defining = records.find(t[i].text);
    if (defining == records.end() || defining->second.size() < 2) continue;  // one class: no two methods to tell apart
    const size_t object = MemberObject(t, i);
    if (object >= t.size()) continue;
    const std::string& obj = t[object].text;
    std::string type;
    for (const std::string& r : defining->second) {  // `R obj`, `R* obj`, `R& obj`, in fn or anywhere (a global)
      const std::regex decl("\\b" + r + "\\s*[*&]?\\s*\\b" + obj + "\\b\\s*[({;=,\\[]");
      if (std::regex_search(code, decl)) {  // fn's definition is part of the code
        if (!type.empty() && type != r) type = "?";
        else type = r;
      }
    }
    if (type.empty() || type == "?") continue;
    bool reaches = false, unknown = false;
    for (const auto& op : a.ops) {
      if (op.function != t[i].text) continue;
      if (op.record.empty()) unknown = true;  // an op clang did not place (the lexical cross-check's)
      if (op.record != type) continue;
      if (IsCommOp(op) || (op.kind == "call" && op.api != t[i].text && comm.count(op.api))) reaches = true;
    }
    if (!reaches && !unknown) quiet.insert(obj + "." + t[i].text);
  }
  return quiet;
}

// The function main hands the timing to when it times nothing itself: the one it calls once to time
// it, or the one it hands another file by pointer (`run_example(argc, argv, allreduce)`, called once
// per rank); "" when none.
std::string CalleeTiming(const ProgramFacts& f, const std::set<std::string>& comm, InitPassTrace* trace) {
  const Analysis& a = *f.analysis;
  std::string undecided;
  std::string callee = TimingFunction(f.raw, a, f.file, comm, f.entry, f.run_defaults, &undecided);
  if (!undecided.empty()) {
    trace->Add(undecided);
    return "";
  }
  if (callee.empty()) {
    size_t b = 0, e = 0;
    std::set<std::string> reaching;
    for (const auto& fn : a.functions)
      if (SourceFileName(fn.file) == f.file && fn.name != "main" && fn.name != f.entry && comm.count(fn.name))
        reaching.insert(fn.name);
    if (DefinitionLines(f.raw, f.entry, &b, &e)) callee = PassedFunction(f.raw.substr(b, e - b), reaching);
  }
  return callee;
}

std::string Joined(const std::set<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// The program's function pointers reaching the communication: each call through one is followed into
// the first function stored in it that does (r->pointer_calls), said in the trace.
void FollowPointerCalls(const ProgramFacts& f, FoundLoop* r, InitPassTrace* trace) {
  for (const auto& [pointer, stored] : f.pointer_targets)
    for (const std::string& target : stored)
      if (r->comm.count(pointer) && r->comm.count(target) && r->pointer_calls.emplace(pointer, target).second)
        trace->Add(fmt::format("`{}` is a function pointer the program stores {} in: a call through it is followed into {}",
                               pointer, fmt::join(stored, ", "), target));
}

// The trace's line naming what reaches the communication from r.loop_fn, and those of the program's
// own functions among them that no call cuco can follow from it reaches (function pointers, threads,
// code main never runs).
void TraceCommunicationReached(const ProgramFacts& f, const FoundLoop& r, InitPassTrace* trace) {
  std::set<std::string> unreached;
  const std::set<std::string> called = CalledFrom(*f.analysis, r.loop_fn);
  for (const AnalyzedFunction& d : f.analysis->functions)  // the program's own functions, not the APIs
    if (r.comm.count(d.name) && !called.count(d.name)) unreached.insert(d.name);
  trace->Add(fmt::format("in {}, the communication is reached through: {} (issuing NCCL calls themselves: {}){}", r.loop_fn,
                         Joined(r.comm), Joined(r.direct),
                         unreached.empty() ? "" : "; of these, no call cuco can follow from " + r.loop_fn + " reaches " +
                                                      Joined(unreached)));
}

// The benchmark helpers of any of the program's texts (Repeaters).
std::set<std::string> ProgramRepeaters(const ProgramFacts& f) {
  std::set<std::string> repeaters = Repeaters(f.code);
  for (const auto* texts : {&f.other_code, &f.header_code})
    for (const auto& [name, code] : *texts)
      for (const std::string& r : Repeaters(code)) repeaters.insert(r);
  return repeaters;
}

// Why the forced loop is served: `by_option` where --loop named it, else init's own reason.
std::string WhyForced(const ProgramFacts& f, const char* by_option) {
  return f.forced_loop_why.empty() ? by_option : f.forced_loop_why;
}

// The function holding the loop --loop names (ProgramFacts::forced_loop_line), which r->loop_fn
// becomes, and what a helper's code is read under there: what main's calls give its parameters (a
// send loop and a receive loop in the arms of `if (RANK == 0)` of a `benchmark_inner<RANK>`).
Status ForcedLoopHolder(const ProgramFacts& f, FoundLoop* r, size_t* thread_lambda, ProgramDefaults* helper_defaults,
                        InitPassTrace* trace) {
  const std::string holder = FunctionAt(f.raw, *f.analysis, f.file, f.forced_loop_line);
  if (holder.empty())
    return Status::InvalidArgument(fmt::format("{}:{}: --loop names a line outside every function of {}", f.file,
                                               f.forced_loop_line, f.file));
  if (holder != r->loop_fn) r->loop_fn = holder, *thread_lambda = std::string::npos;
  trace->Add(fmt::format("{}:{}: {}, in {}", f.file, f.forced_loop_line, WhyForced(f, "named by --loop"), holder));
  if (holder != f.entry) *helper_defaults = HelperDefaults(f, holder);
  return Status::Ok();
}

// The iteration the harness serves, and where: the loop of r->loop_fn the rules choose (main_rewrite.h,
// loop_choice.h: the branches the program takes without arguments, a group or the GPUs run whole),
// or the timed loop of the function main calls once to time (r->loop_fn becomes it), or, when no loop
// reaches the communication, the statements of r->loop_fn that do. --loop (ProgramFacts::forced_loop_line)
// names the loop instead, in whichever function of main's file holds it. Sets r->comm and r->direct.
Result<TimedLoop> LocateIteration(const ProgramFacts& f, size_t thread_lambda, FoundLoop* r, InitPassTrace* trace) {
  LoopSearch search;
  search.gpu_count = r->gpu_count;
  search.defaults = &f.run_defaults;  // as the harness starts it
  search.forced_line = f.forced_loop_line;
  search.forced_why = WhyForced(f, "--loop names it");
  search.main_elsewhere = f.entry != "main";
  search.trace = &trace->lines;
  const std::set<std::string> repeaters = ProgramRepeaters(f);
  search.repeaters = &repeaters;
  const std::map<int, LineWork> work = DeviceWorkByLine(*f.analysis, f.file);
  search.work = &work;
  ProgramDefaults helper_defaults;
  if (f.forced_loop_line > 0) {
    CUCO_RETURN_IF_ERROR(ForcedLoopHolder(f, r, &thread_lambda, &helper_defaults, trace));
    if (r->loop_fn != f.entry && !r->threads) search.defaults = &helper_defaults;
  }
  r->comm = CommNamesIn(f, r->loop_fn, &r->direct);
  TraceCommunicationReached(f, *r, trace);
  // The iteration is chosen among the code this build compiles (what the preprocessor skips blanked,
  // never served). A choice holding skipped lines (a conditional inside the loop) is made again with
  // its own lines as written, so that the served text keeps the conditional whole.
  const std::string active = WithoutInactiveLines(*f.analysis, f.path.empty() ? f.analysis->path : f.path, f.raw);
  std::map<std::string, std::set<std::string>> quiet_of;  // fn -> its QuietMemberCalls, found once (and traced once)
  auto find = [&](const std::set<std::string>& fn_comm, const std::string& fn, size_t lambda, const LoopSearch& s) {
    if (!quiet_of.count(fn)) {
      quiet_of[fn] = QuietMemberCalls(f, fn, fn_comm);
      for (const std::string& q : quiet_of[fn])
        trace->Add(fmt::format("{}: reaches no communication (its class's method of that name does not; another class's does)", q));
    }
    std::set<std::string> comm = fn_comm;
    comm.insert(quiet_of[fn].begin(), quiet_of[fn].end());
    Result<TimedLoop> chosen = FindTimedLoop(f.file, active, comm, fn, lambda, s);
    if (active == f.raw || !chosen.ok() ||
        active.compare(chosen->begin, chosen->end - chosen->begin, f.raw, chosen->begin, chosen->end - chosen->begin) == 0)
      return chosen;
    // Only the chosen code is read as written (the offsets are the same): the code around it stays as
    // this build compiles it, so that a skipped `#ifdef FLAG ncclGroupStart() #endif` before it does
    // not become part of it.
    std::string as_written = active;
    as_written.replace(chosen->begin, chosen->end - chosen->begin, f.raw, chosen->begin, chosen->end - chosen->begin);
    return FindTimedLoop(f.file, as_written, comm, fn, lambda, s);
  };
  const std::set<std::string> choice_comm = WithoutBarriers(f, r->comm, trace);
  Result<TimedLoop> loop = find(choice_comm, r->loop_fn, thread_lambda, search);
  auto not_found = [&] { return !loop.ok() && loop.status().code() == Status::Code::kNotFound; };
  std::string callee;
  if (not_found() && !r->threads && f.forced_loop_line == 0) callee = CalleeTiming(f, r->comm, trace);
  std::set<std::string> callee_direct, callee_comm;
  if (!callee.empty()) {
    callee_comm = CommNamesIn(f, callee, &callee_direct);
    trace->Add(fmt::format("{} times nothing itself: looking in {}, which main calls once (or hands on by pointer)", r->loop_fn,
                           callee));
  }
  auto try_callee = [&](const LoopSearch& s) {
    if (callee.empty() || !not_found()) return;
    Result<TimedLoop> inner = find(callee_comm, callee, std::string::npos, s);
    if (inner.ok() || inner.status().code() != Status::Code::kNotFound)
      loop = std::move(inner), r->loop_fn = callee, r->comm = callee_comm, r->direct = callee_direct;
  };
  try_callee(search);
  // Further down: the function main calls once calls the next once, and so on, to the timed loop.
  std::set<std::string> seen = {r->loop_fn, callee};
  std::string below = callee;
  for (int depth = 1; depth < kCalleeDepth && not_found() && !below.empty(); ++depth) {
    std::set<std::string> below_direct;
    const std::set<std::string> below_comm = CommNamesIn(f, below, &below_direct);
    const std::string next = TimingFunctionTraced(f, below_comm, below, trace);
    if (next.empty() || !seen.insert(next).second) break;
    trace->Add(fmt::format("{} times nothing itself: looking in {}, which it calls once", below, next));
    std::set<std::string> next_direct;
    const std::set<std::string> next_comm = CommNamesIn(f, next, &next_direct);
    Result<TimedLoop> inner = find(next_comm, next, std::string::npos, search);
    if (inner.ok() || inner.status().code() != Status::Code::kNotFound)
      loop = std::move(inner), r->loop_fn = next, r->comm = next_comm, r->direct = next_direct;
    below = next;
  }
  if (not_found()) {  // no loop communicates: the statements that do, in main or else in that function
    trace->Add("no loop reaches the communication: the statements that do, run whole");
    search.allow_region = true;
    loop = find(choice_comm, r->loop_fn, thread_lambda, search);
    try_callee(search);
  }
  if (not_found() && f.forced_loop_line == 0)
    if (auto unreached = UnreachedCommunication(f, r->loop_fn, r->direct)) {
      trace->Add(*unreached);
      return Status::InvalidArgument(*unreached);
    }
  if (!loop.ok()) return Status::InvalidArgument(loop.status().message());
  // Served statements hold every conditional they touch whole (the EVOLVE block around them cannot
  // hold half of one).
  if (const int line = UnbalancedConditional(f.raw, loop->begin, loop->end); line > 0)
    return Status::InvalidArgument(fmt::format(
        "{}:{}: the iteration cuco init found ({}:{}-{}) holds part of a preprocessor conditional, the directive at line {} "
        "belonging to one outside it; serve a loop that holds the whole #if ... #endif (`cuco init --loop FILE:LINE`) or "
        "build with the definitions you run with (-D after `--`)",
        f.file, loop->line, f.file, loop->line, loop->end_line, line));
  FollowPointerCalls(f, r, trace);
  return loop;
}

// A program with a thread per GPU: the function its threads run (r->loop_fn), or main, holding the
// lambda they run at byte *thread_lambda of f.raw.
Status ThreadsLoopFunction(const ProgramFacts& f, FoundLoop* r, size_t* thread_lambda, InitPassTrace* trace) {
  std::set<std::string> defined;
  for (const auto& fn : f.analysis->functions)
    if (SourceFileName(fn.file) == f.file) defined.insert(fn.name);
  // The function the threads start in: main, or a function of main's file that main calls (a
  // benchmark per message size, `run_collective_benchmark(...)` in a sweep), which then stands for
  // main here: its thread function or its lambda holds the timed loop.
  std::string starter = "main";
  const auto& [start_file, start_line] = f.thread_start;
  const std::string holder =
      start_line > 0 && start_file == f.file ? FunctionAt(f.raw, *f.analysis, f.file, start_line) : "";
  size_t starter_b = 0, starter_e = 0;
  std::string starter_def;
  if (!holder.empty() && holder != "main" && defined.count(holder) && DefinitionLines(f.raw, holder, &starter_b, &starter_e)) {
    starter_def = f.raw.substr(starter_b, starter_e - starter_b);
    // A helper starting threads on a function it is handed (`pthread_create(&t, 0, fn, arg)`) names
    // no thread function of its own: main, which hands it one, is read instead.
    if (!ThreadFunction(starter_def, defined).empty() || ThreadLambdaBody(starter_def) != std::string::npos) {
      starter = holder;
      trace->Add(fmt::format("{}:{}: the threads start in {}, which the program calls", f.file, start_line, holder));
    }
  }
  if (starter == "main")
    starter_def = DefinitionLines(f.raw, "main", &starter_b, &starter_e) ? f.raw.substr(starter_b, starter_e - starter_b) : "";
  r->loop_fn = ThreadFunction(starter_def, defined);
  // The threads start in another file (a helper's pthread_create) with main's function by pointer.
  if (r->loop_fn.empty() && ThreadLambdaBody(starter_def) == std::string::npos) r->loop_fn = PassedFunction(starter_def, defined);
  if (!r->loop_fn.empty()) {
    trace->Add("the threads run " + r->loop_fn + ": its loop is looked for");
    return Status::Ok();
  }
  // A lambda: its body, inside the starter, holds the timed loop.
  const size_t body = starter_def.empty() ? std::string::npos : ThreadLambdaBody(starter_def);
  if (body == std::string::npos) {
    // Started outside main's file (a benchmark template another file defines): say where, not what they run.
    const std::string* text = SourceText(f, start_file);
    const std::string elsewhere = start_line > 0 && text != nullptr ? FunctionAt(*text, *f.analysis, start_file, start_line) : "";
    static const std::regex starts(R"(\bstd::j?thread\s*(?:\w+\s*)?[({]|\bpthread_create\s*\(|\bemplace_back\s*\()");
    if ((!elsewhere.empty() && elsewhere != starter) || !std::regex_search(BlankCommentsAndLiterals(starter_def), starts))
      return Status::InvalidArgument(f.launcher_source + ": the threads start " +
                                     (elsewhere.empty() || elsewhere == "main" ? std::string("outside main") : "in " + elsewhere + ", not in main") +
                                     ", so cuco init cannot find their timed loop (it follows a thread per GPU that main, "
                                     "or a function of " + f.file + " it calls, starts on a function of " + f.file +
                                     " or a lambda written there)");
    return Status::InvalidArgument(f.launcher_source + ": the threads run neither a function of " + f.file +
                                   " nor a lambda written where they start, so cuco init cannot find their timed "
                                   "loop: start them with `std::thread(fn, ...)` or a lambda");
  }
  r->loop_fn = starter;
  *thread_lambda = starter_b + body;
  // A lambda with no loop of its own that calls the program's function for a thread: that
  // function's loop (the text up to the first `}` is the whole body when it has no loop).
  const std::string lambda_text = starter_def.substr(body, starter_def.find('}', body) - body);
  for (const auto& [name, args] : CallsIn(lambda_text))
    if (defined.count(name) && name != "main" && lambda_text.find("for") == std::string::npos &&
        lambda_text.find("while") == std::string::npos) {
      r->loop_fn = name;
      *thread_lambda = std::string::npos;
      trace->Add(fmt::format("the threads' lambda ({}:{}) has no loop and calls {}: its loop is looked for", f.file,
                             LineOf(f.raw, starter_b + body), name));
      return Status::Ok();
    }
  trace->Add(fmt::format("the threads run the lambda at {}:{}: its loop is looked for", f.file, LineOf(f.raw, starter_b + body)));
  return Status::Ok();
}

// kInvalidArgument when clang could not parse the program: the lexical scan's accesses are too rough.
Status ParsedByClang(const ProgramFacts& f) {
  const Analysis& a = *f.analysis;
  if (a.parse_path != "lexical") return Status::Ok();
  // The file clang could not parse, and why (a header it did not find, named with its line).
  const std::string why = a.parse_failures.empty() ? f.file + ": libclang-14 did not load (`cuco doctor`)" : a.parse_failures[0];
  const bool header = why.find("' not found") != std::string::npos;
  return Status::InvalidArgument(why + "; clang could not parse the program, and the lexical scan's guesses of what "
                                 "the iteration reads and writes are too rough to bind buffers by" +
                                 (header ? ": give the header's folder (-I DIR in the build command after `--`)"
                                         : ": with libclang, cuco init makes the harness"));
}

// The guesses of the loop found: the host timing dropped from its body, the sizes passed, how a
// projected program runs, and the loop itself.
void DescribeLoop(const ProgramFacts& f, FoundLoop* r) {
  TimedLoop* loop = &r->loop;
  {  // the program's own host timing in the loop: the harness times the iteration itself
    std::vector<DroppedStatement> dropped;
    const std::string body = DropHostTiming(loop->body, &dropped);
    const size_t body_at = f.raw.find(loop->body, loop->begin);
    for (const DroppedStatement& d : dropped) {
      const bool clock = d.kind == HostOnly::kClock, profiler = d.kind == HostOnly::kProfiler;
      r->guesses.push_back(fmt::format("{}:{}: {} is left out of the iteration: {}", f.file,
                                       body_at == std::string::npos ? loop->line : LineOf(f.raw, body_at + d.at),
                                       clock      ? "the program's own timing (a host clock)"
                                       : profiler ? "the program's profiler start or stop"
                                                  : "the program's pause (a host sleep)",
                                       clock      ? "the harness times it"
                                       : profiler ? "it changes no result, and candidates may not call it"
                                                  : "it changes no result, and the harness would time it as work"));
    }
    loop->body = body;
  }
  loop->size_flags = PassedSizes(f, *loop, &r->guesses);
  if (r->projected)
    r->guesses.push_back(fmt::format("{}: each rank runs the program's host code and does only its own GPU's part: rank r "
                                     "is GPU r (cuco/program/impl/projection.h){}",
                                     f.launcher_source,
                                     r->gpu_count.empty() ? "" : fmt::format("; `{}` GPUs, so arrays indexed per GPU bind "
                                                                             "their rank's entry", r->gpu_count)));
  // A function --loop names may be called more than once (once per data type): the harness serves
  // its first call.
  const std::string where = r->loop_fn == "main" ? "main"
                            : r->threads         ? r->loop_fn + " (each thread's function)"
                            : f.forced_loop_line > 0 ? r->loop_fn + " (the harness serves main's first call of it)"
                                                     : r->loop_fn + " (which main calls once)";
  const std::string chosen = f.forced_loop_line > 0 ? WhyForced(f, "the loop --loop names") + ", in " + where
                                                    : "the last loop of " + where + " that reaches the communication";
  if (loop->region)
    r->guesses.push_back(fmt::format("{}:{}: the iteration, in {}: {}; one harness iteration runs it", f.file, loop->line,
                                     where, loop->what));
  else
    r->guesses.push_back(fmt::format("{}:{}: the timed loop ({}{}): one harness iteration per pass", f.file, loop->line,
                                     loop->what.empty() ? chosen : loop->what,
                                     loop->sweep_line == 0 ? ""
                                                           : fmt::format(", timed inside the untimed loop at line {}, whose "
                                                                         "first pass it runs in: to time another "
                                                                         "size, give `--args` that start that loop "
                                                                         "there",
                                                                         loop->sweep_line)));
  if (!loop->earlier_other.empty())
  {
    const bool one = loop->earlier_other.size() == 1;
    r->guesses.push_back(fmt::format("{}: {} at {} {} before it and {} other NCCL calls: {}, run once in the harness's "
                                     "set-up and not timed (`cuco init --loop FILE:LINE` serves {} instead)",
                                     f.file, one ? "the loop" : "the loops", fmt::join(loop->earlier_other, ", "),
                                     one ? "runs" : "run", one ? "issues" : "issue",
                                     one ? "a step before it, not a warm-up" : "steps before it, not warm-ups",
                                     one ? "it" : "one of them"));
  }
}

// kInvalidArgument, naming the line, when main (or r.loop_fn) starts a task (std::async, a thread)
// running the iteration's function or one reaching the communication, other than inside the
// iteration: the harness would serve the program without the task's communication (its warm-up
// exchange as the program, say), or the task's loop without the work main does beside it. A task
// started inside the iteration is served with it. Threads that are the ranks are not tasks.
Status TasksOutsideTheIteration(const ProgramFacts& f, const FoundLoop& r) {
  if (r.threads) return Status::Ok();
  std::set<std::string> running = r.comm;
  if (r.loop_fn != "main") running.insert(r.loop_fn);
  for (const std::string& starter : std::set<std::string>{"main", r.loop_fn}) {
    size_t b = 0, e = 0;
    if (!DefinitionLines(f.raw, starter, &b, &e)) continue;
    for (const TaskStart& t : TaskStarts(f.raw.substr(b, e - b), running)) {
      const size_t at = b + t.offset;
      if (starter == r.loop_fn && at >= r.loop.begin && at < r.loop.end) continue;
      return Status::InvalidArgument(fmt::format(
          "{}:{}: the communication runs in {}, which {} starts here as a task{}: cuco init serves an iteration the "
          "program runs itself, which would leave out the task's communication or the work beside it; call {} from "
          "the timed loop instead of starting it as a task",
          f.file, LineOf(f.raw, at), t.function, t.api,
          t.function == r.loop_fn ? fmt::format(" (its loop, {}:{}, would be served alone)", f.file, r.loop.line)
                                  : fmt::format(", outside the iteration cuco init found ({}:{})", f.file, r.loop.line),
          t.function));
    }
  }
  return Status::Ok();
}

}  // namespace

Result<FoundLoop> FindLoop(const ProgramFacts& f, const std::vector<ProgramFile>& other_files, InitPassTrace* trace) {
  FoundLoop r;
  r.loop_fn = f.entry;
  // One process driving every GPU is run one GPU per rank (projection.h); with a thread per GPU,
  // every rank starts the threads and only its own GPU's thread works.
  r.projected = f.launcher == "single";
  r.threads = r.projected && f.launcher_source.find("a thread per GPU") != std::string::npos;
  trace->Add(r.threads     ? f.launcher_source + ": a thread per GPU; each rank starts them and only its own GPU's works"
             : r.projected ? f.launcher_source + ": one process drives every GPU; each rank does its own GPU's part"
                           : "a process per rank (launcher " + f.launcher + ")");
  size_t thread_lambda = std::string::npos;  // the `{` of the threads' lambda in main, when they run one
  if (r.threads) CUCO_RETURN_IF_ERROR(ThreadsLoopFunction(f, &r, &thread_lambda, trace));
  r.all_code = f.raw;
  for (const ProgramFile& pf : other_files)
    if (pf.source) r.all_code += "\n" + pf.text;
  if (r.projected) {
    for (const auto& op : f.analysis->ops)
      if ((op.api == "ncclCommInitAll" || op.api == "ncclCommInitRank") && op.args.size() > 1 && r.gpu_count.empty())
        r.gpu_count = Trim(op.args[1]);
    // A variable or a member (`opt.gpus`, a C benchmark's options); a thread's own count is not main's.
    if (r.threads || !std::regex_match(r.gpu_count, std::regex(R"([A-Za-z_]\w*(\s*(\.|->)\s*[A-Za-z_]\w*)*)")))
      r.gpu_count.clear();
    if (!r.gpu_count.empty()) trace->Add("the GPUs are counted by `" + r.gpu_count + "`: a loop up to it is run whole");
    CUCO_RETURN_IF_ERROR(ProjectionRefusal(f, other_files, r.all_code));
  }
  CUCO_RETURN_IF_ERROR(ParsedByClang(f));
  Result<TimedLoop> loop = LocateIteration(f, thread_lambda, &r, trace);
  if (!loop.ok()) {  // no iteration: a program communicating from its kernels or not at all says so
    Status why = CommunicatesFromTheHost(f);
    if (!why.ok()) return why;
    // A loop chosen by arguments the program was not given (the branches its defaults do not decide, or
    // those it does not take without arguments): what it reads without a default first.
    const std::string& m = loop.status().message();
    const bool by_arguments = m.find("program's defaults") != std::string::npos ||
                              m.find("started without arguments") != std::string::npos;
    const std::string unread = f.main_takes_args && by_arguments ? ArgumentNotGiven(f, 0) : "";
    return unread.empty() ? loop.status() : Status::InvalidArgument(unread + "; without them: " + loop.status().message());
  }
  r.loop = std::move(*loop);
  if (f.entry != "main") r.loop.main_takes_args = f.main_takes_args;  // main is another file's
  CUCO_RETURN_IF_ERROR(TasksOutsideTheIteration(f, r));
  if (r.loop.world_flag.empty() && r.loop.main_takes_args && !f.world_option.empty()) {
    r.loop.world_flag = f.world_option;
    r.guesses.push_back(fmt::format("`{}`: the program's GPU count ({} by default, {}): the harness passes its own rank "
                                    "count with it, so the program runs on as many GPUs as the harness has ranks",
                                    f.world_option, f.world.size, f.world.source));
  }
  r.captures_comm = CapturingLoop(r.all_code, r.comm).has_value();
  if (r.captures_comm) {
    trace->Add("the program captures its communication into CUDA graphs: its reference asks CUDA for 32 hardware queues");
    r.graph_launchers = GraphLaunchers(f);
  }
  DescribeLoop(f, &r);
  CUCO_RETURN_IF_ERROR(ArgumentsPassed(f, r.loop));
  for (const std::string& g : r.guesses) trace->Add(g);
  return r;
}

}  // namespace cuco::scaffold_internal
