#include "scaffold/program_harness.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <cctype>
#include <map>
#include <regex>
#include <set>

#include "scaffold/constants.h"
#include "scaffold/generated_text.h"
#include "scaffold/harness_sizes.h"
#include "scaffold/world_size.h"
#include "scaffold/loop_accesses.h"
#include "scaffold/loop_choice.h"
#include "scaffold/iteration_io.h"
#include "scaffold/main_rewrite.h"
#include "scaffold/projection.h"
#include "scaffold/swaps.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"
#include "util/text.h"
#include "workload/evolve_blocks.h"
#include "workload/program_seed.h"

namespace cuco::scaffold_internal {
namespace {

// The functions that issue NCCL communication (directly: `direct`) and every function that
// reaches one through its calls, with the NCCL calls themselves; main and `loop_fn` (the function
// holding the timed loop) left out.
std::set<std::string> CommNamesOf(const Analysis& a, const std::string& loop_fn, std::set<std::string>* direct) {
  std::set<std::string> names;
  for (const auto& op : a.ops)
    if (IsCommOp(op)) {
      names.insert(op.api);
      if (!op.function.empty()) names.insert(op.function), direct->insert(op.function);
    }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& op : a.ops)
      if (op.kind == "call" && names.count(op.api) && !op.function.empty() && names.insert(op.function).second) grew = true;
  }
  for (const std::string& outer : {std::string("main"), loop_fn}) {  // the loop's own function is not a block
    names.erase(outer);
    direct->erase(outer);
  }
  return names;
}

// A buffer expression main can bind: an lvalue over names main's text declares before the loop.
// A bare name must be declared a pointer there (`float *x`, `const half* y`): a std::vector of
// per-layer pointers indexed by the loop is not one buffer.
bool Bindable(const std::string& expr, const std::string& main_before_loop) {
  static const std::regex lvalue(R"(^([A-Za-z_]\w*)((\.|->)[A-Za-z_]\w*|\[[A-Za-z_0-9 +*-]+\])*$)");
  std::smatch m;
  if (!std::regex_match(expr, m, lvalue)) return false;
  const std::regex word("\\b" + m[1].str() + "\\b");
  if (!std::regex_search(main_before_loop, word)) return false;
  if (m[2].length() > 0) return true;
  const std::regex pointer(R"(\*\s*&?\s*(?:(?:const|volatile|__restrict__|__restrict)\s+)*)" + m[1].str() + "\\b");
  return std::regex_search(main_before_loop, pointer);
}

// The seed's spelling of the calls the harness owns (the stand-ins of cuco/program/candidate.h),
// so that the text inside the EVOLVE blocks names no stream, event, device, environment or exit call.
std::string CandidateSpellings(const std::string& text) {
  static const std::regex std_prefixed(R"(\bstd\s*::\s*(getenv|exit|abort)\b)");
  const std::string plain = std::regex_replace(text, std_prefixed, "$1");
  std::vector<std::pair<std::string, std::string>> renames;
  for (const char* n : {"StreamCreate", "StreamCreateWithFlags", "StreamCreateWithPriority", "StreamDestroy", "EventCreate",
                        "EventCreateWithFlags", "EventRecord", "EventRecordWithFlags", "StreamWaitEvent", "EventSynchronize",
                        "EventQuery", "EventElapsedTime", "EventDestroy", "SetDevice"})
    renames.push_back({std::string("cuda") + n, std::string("cuco_program::shim::") + n});
  renames.push_back({"getenv", "cuco_program::program_getenv"});
  renames.push_back({"exit", "cuco_program_exit"});
  renames.push_back({"abort", "cuco_program_abort"});
  return RenameIdentifiers(plain, renames);
}

// The sizes the program reads from its command line or environment, as the entry point passes
// them (TimedLoop::SizeFlag), each with a guess: its options (`--batch 512`, not the rank's or
// rank count's); its positional arguments, when every position up to the last is a number cuco
// found that is neither a rank nor a rank count (the non-sizes among them passed as they are) and
// it takes no flags; its environment variables. Sizes are unique by name.
std::vector<TimedLoop::SizeFlag> PassedSizes(const ProgramFacts& f, const TimedLoop& loop, std::vector<std::string>* guesses) {
  std::vector<TimedLoop::SizeFlag> out;
  std::set<std::string> names;
  auto size_of = [&](const FoundConstant& c) {
    return ClassifyConstant(c, f.world_vars) == ConstRole::kSize && names.insert(SizeName(c)).second ? SizeName(c)
                                                                                                       : std::string();
  };
  std::map<int, const FoundConstant*> positions;
  for (const FoundConstant& c : f.constants) {
    if (c.option && loop.main_takes_args && c.name != loop.rank_flag && c.name != loop.world_flag) {
      const std::string size = size_of(c);
      if (!size.empty()) out.push_back({c.name, size, c.value, 0, ""});
    } else if (!c.env.empty()) {
      const std::string size = size_of(c);
      if (!size.empty()) out.push_back({"", size, c.value, 0, c.env});
    } else if (c.argv_index > 0 && loop.main_takes_args) {
      positions.emplace(c.argv_index, &c);
    }
  }
  if (!positions.empty()) {
    std::string why;
    const bool flags = !loop.rank_flag.empty() || !loop.world_flag.empty() ||
                       std::any_of(out.begin(), out.end(), [](const TimedLoop::SizeFlag& z) { return !z.flag.empty(); });
    if (flags) why = "it also takes flags";
    for (int p = 1; why.empty() && p <= positions.rbegin()->first; ++p) {
      auto it = positions.find(p);
      if (it == positions.end()) {
        why = fmt::format("argv[{}] is not a number cuco found", p);
      } else {
        const ConstRole role = ClassifyConstant(*it->second, f.world_vars);
        if (role == ConstRole::kWorld || role == ConstRole::kIgnored)
          why = fmt::format("argv[{}] ({}) is not a size", p, it->second->name);
      }
    }
    if (!why.empty()) {
      guesses->push_back(fmt::format("{}:{}: the program's positional arguments are not passed ({}): it runs at their "
                                     "defaults",
                                     f.file, positions.begin()->second->line, why));
    } else {
      for (const auto& [p, c] : positions) out.push_back({"", size_of(*c), c->value, p, ""});
    }
  }
  for (const TimedLoop::SizeFlag& z : out) {
    if (z.size.empty())
      guesses->push_back(fmt::format("`{}`: not a size, passed as the program's default, {}", z.Spelling(), z.value));
    else if (!z.env.empty())
      guesses->push_back(fmt::format("`{}`: the size {} ({} in the program), what the program's getenv(\"{}\") answers",
                                     z.Spelling(), z.size, z.value, z.env));
    else if (z.position > 0)
      guesses->push_back(fmt::format("`{}`: the size {} ({} in the program), passed to it as its argument {}", z.Spelling(),
                                     z.size, z.value, z.position));
    else
      guesses->push_back(fmt::format("`{}`: the size {} ({} in the program), passed to it as `{} <size>`", z.flag, z.size,
                                     z.value, z.flag));
  }
  return out;
}

// The function of `file` that main calls exactly once and that reaches the communication (`comm`),
// the last such call in main: where a program that times in a helper (`benchmark(...)`) has its
// timed loop. "" when there is none.
std::string TimingFunction(const std::string& raw, const Analysis& a, const std::string& file,
                           const std::set<std::string>& comm) {
  size_t b = 0, e = 0;
  if (!DefinitionLines(raw, "main", &b, &e)) return "";
  const std::string main_def = raw.substr(b, e - b);
  std::map<std::string, int> times;
  std::vector<std::string> order;
  for (const auto& [name, args] : CallsIn(main_def))
    if (name != "main" && comm.count(name) && ++times[name] == 1) order.push_back(name);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const AnalyzedFunction* fn = FindFunction(a, *it);
    if (times[*it] == 1 && fn != nullptr && SourceFileName(fn->file) == file) return *it;
  }
  return "";
}

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

// The program captures its communication into a CUDA graph (cudaStreamBeginCapture ...
// cudaStreamEndCapture around a call of `comm`): launching the graph is what reaches it.
bool GraphCapturesCommunication(const std::string& raw, const std::set<std::string>& comm) {
  const std::string code = BlankCommentsAndLiterals(raw);
  for (size_t at = code.find("cudaStreamBeginCapture"); at != std::string::npos;
       at = code.find("cudaStreamBeginCapture", at + 1)) {
    const size_t end = code.find("cudaStreamEndCapture", at);
    if (end == std::string::npos) break;
    for (const auto& [name, args] : CallsIn(code.substr(at, end - at)))
      if (comm.count(name)) return true;
  }
  return false;
}

// Where a graph program's iteration is captured: the loop statement around the first
// cudaStreamBeginCapture ... cudaStreamEndCapture that calls one of `comm` (or that capture itself
// when no loop holds it), as bytes [first, second) of `raw`; nullopt when there is none.
std::optional<std::pair<size_t, size_t>> CapturingLoop(const std::string& raw, const std::set<std::string>& comm) {
  const std::vector<Tok> t = Scan(raw);
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "cudaStreamBeginCapture") continue;
    size_t j = i;
    while (j < t.size() && t[j].text != "cudaStreamEndCapture") ++j;
    if (j >= t.size() || !Calls(t, i, j, comm)) continue;
    for (size_t k = i; k-- > 0;) {  // the innermost loop holding both
      if (!(t[k].ident && (t[k].text == "for" || t[k].text == "while"))) continue;
      const size_t end = StatementEnd(t, k);
      if (end < t.size() && end >= j) return std::make_pair(t[k].begin, t[end].end);
    }
    return std::make_pair(t[i].begin, t[j].end);
  }
  return std::nullopt;
}

// The function of `file` whose definition holds `line` (the innermost), "" when none.
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

// The iteration the harness serves, and where: the loop of *loop_fn the rules choose (main_rewrite.h,
// loop_choice.h: the branches the program takes without arguments, a group or the GPUs run whole),
// or the timed loop of the function main calls once to time (*loop_fn becomes it), or, when no loop
// reaches the communication, the statements of *loop_fn that do. --loop (ProgramFacts::forced_loop_line)
// names the loop instead, in whichever function of main's file holds it. *comm: the names reaching
// the communication there (a graph's launch too, when the program captures it); *direct: the functions
// issuing NCCL calls themselves.
Result<TimedLoop> LocateIteration(const ProgramFacts& f, bool threads, size_t thread_lambda, const std::string& gpu_count,
                                  std::string* loop_fn, std::set<std::string>* comm, std::set<std::string>* direct) {
  const Analysis& a = *f.analysis;
  const ProgramDefaults defaults = DefaultsOf(f.code, {});
  LoopSearch search;
  search.gpu_count = gpu_count;
  search.defaults = &defaults;
  search.forced_line = f.forced_loop_line;
  auto names_in = [&](const std::string& fn, std::set<std::string>* d) {
    std::set<std::string> names = CommNamesOf(a, fn, d);
    if (GraphCapturesCommunication(f.raw, names)) names.insert({"cudaGraphLaunch", "cudaGraphExecLaunch"});
    return names;
  };
  if (f.forced_loop_line > 0) {
    const std::string holder = FunctionAt(f.raw, a, f.file, f.forced_loop_line);
    if (holder.empty())
      return Status::InvalidArgument(fmt::format("{}:{}: --loop names a line outside every function of {}", f.file,
                                                 f.forced_loop_line, f.file));
    if (holder != *loop_fn) *loop_fn = holder, thread_lambda = std::string::npos;
  }
  *comm = names_in(*loop_fn, direct);
  Result<TimedLoop> loop = FindTimedLoop(f.file, f.raw, *comm, *loop_fn, thread_lambda, search);
  auto not_found = [&] { return !loop.ok() && loop.status().code() == Status::Code::kNotFound; };
  // main times nothing itself: the loop of the function it calls once to time it, or of the function
  // it hands another file by pointer (`run_example(argc, argv, allreduce)`, called once per rank).
  std::string callee;
  if (not_found() && !threads && f.forced_loop_line == 0) {
    callee = TimingFunction(f.raw, a, f.file, *comm);
    if (callee.empty()) {
      size_t b = 0, e = 0;
      std::set<std::string> reaching;
      for (const auto& fn : a.functions)
        if (SourceFileName(fn.file) == f.file && fn.name != "main" && comm->count(fn.name)) reaching.insert(fn.name);
      if (DefinitionLines(f.raw, "main", &b, &e)) callee = PassedFunction(f.raw.substr(b, e - b), reaching);
    }
  }
  std::set<std::string> callee_direct, callee_comm;
  if (!callee.empty()) callee_comm = names_in(callee, &callee_direct);
  auto try_callee = [&](const LoopSearch& s) {
    if (callee.empty() || !not_found()) return;
    Result<TimedLoop> inner = FindTimedLoop(f.file, f.raw, callee_comm, callee, std::string::npos, s);
    if (inner.ok() || inner.status().code() != Status::Code::kNotFound)
      loop = std::move(inner), *loop_fn = callee, *comm = callee_comm, *direct = callee_direct;
  };
  try_callee(search);
  if (not_found()) {  // no loop communicates: the statements that do, in main or else in that function
    search.allow_region = true;
    loop = FindTimedLoop(f.file, f.raw, *comm, *loop_fn, thread_lambda, search);
    try_callee(search);
  }
  if (!loop.ok()) return Status::InvalidArgument(loop.status().message());
  return loop;
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

constexpr const char kRankIndex[] = "cuco_program::rank()";

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

// Marks each definition of `names` found in `text` as an EVOLVE block; the names marked go to *marked.
std::string MarkEvolve(const std::string& text, const std::vector<std::string>& names, std::vector<std::string>* marked) {
  std::vector<std::pair<size_t, size_t>> spans;
  for (const auto& n : names) {
    size_t b = 0, e = 0;
    if (DefinitionLines(text, n, &b, &e)) spans.push_back({b, e}), marked->push_back(n);
  }
  std::sort(spans.begin(), spans.end());
  std::string out;
  size_t at = 0;
  for (const auto& [b, e] : spans) {
    if (b < at) continue;  // overlapping (nested) definitions: the outer one holds it
    out += text.substr(at, b - at) + kEvolveStartLine + "\n" + text.substr(b, e - b) + "\n" + kEvolveEndLine;
    at = e;
  }
  return out + text.substr(at);
}

struct Tolerance {
  double rel_l2, max_rel;
  const char* why;
};
Tolerance ToleranceFor(const std::string& dtype) {
  if (dtype == "kBF16") return {0.02, 0.25, "bf16 outputs (8 significant bits): the reference sums in fp64, NCCL in bf16"};
  if (dtype == "kF16") return {0.01, 0.1, "fp16 outputs (11 significant bits)"};
  if (dtype == "kF64") return {1e-9, 1e-7, "fp64 outputs"};
  return {1e-4, 1e-2, "fp32 outputs: a change of summation order moves them by ~1e-7 relative; TF32 (~1e-3) fails"};
}

std::string HarnessWorkloadToml(const ProgramFacts& f, const std::string& loop_where,
                                const std::vector<TimedLoop::SizeFlag>& sizes) {
  const Tolerance tol = ToleranceFor(f.dtype);
  std::string t;
  t += fmt::format("# {}_harness: the program {} run by the harness, written by `cuco init`.\n", f.name, f.file);
  t += "# seed.cu is the program's own code (its timed loop is the iteration); reference.cu is the same code,\n";
  t += "# frozen, with every rank a thread of the supervisor and NCCL emulated (cuco/program/reference.h).\n";
  t += KeyLine("name = " + TomlQuoted(f.name + "_harness"));
  std::string colls;
  for (size_t i = 0; i < f.collectives.size(); ++i) colls += (i ? ", " : "") + f.collectives[i];
  t += KeyLine("description = " + TomlLiteralOrQuoted(fmt::format("{}, one harness iteration per pass of its timed loop ({}): {}",
                                                         f.file, loop_where, colls.empty() ? "no collective" : colls)));
  t += KeyLine("mode = \"harness\"");
  t += KeyLine("language = \"cuda\"");
  t += KeyLine("seed = \"seed.cu\"");
  t += KeyLine("reference = \"reference.cu\"");
  t += KeyLine(fmt::format("world_size = {}", f.world.size), f.world.source.empty() ? "2 assumed" : f.world.source);
  // A rank count the program holds as a constant is the only one it runs at.
  std::vector<int> ws = f.world.fixed ? std::vector<int>{f.world.size} : std::vector<int>{1, 2, 4, 8};
  if (std::find(ws.begin(), ws.end(), f.world.size) == ws.end()) ws.push_back(f.world.size), std::sort(ws.begin(), ws.end());
  // The rank counts the program refuses itself (`if (world % 2) exit(1);`) are left out.
  const std::map<int, std::string> refused = RefusedWorldSizes(f.code, f.file, f.world_vars, ws);
  std::string wss, left_out;
  for (int w : ws) {
    if (refused.count(w) && w != f.world.size) {
      left_out += fmt::format("{}{} ({})", left_out.empty() ? "" : ", ", w, refused.at(w));
      continue;
    }
    wss += (wss.empty() ? "" : ", ") + std::to_string(w);
  }
  if (!left_out.empty()) t += "# Left out, refused by the program: " + left_out + "\n";
  t += KeyLine("world_sizes = [" + wss + "]", "the rank counts to verify at; remove those the program refuses");
  t += "\n[build]\n";
  t += KeyLine("flags = " + TomlList(f.build_flags), "-O3 and the program's own flags");
  std::vector<std::string> libs;
  for (const auto& l : f.libs)
    if (l != "mpi") libs.push_back(l);
  t += KeyLine("libs = " + TomlList(libs), "MPI is answered by cuco/program/mpi.h");
  if (std::none_of(sizes.begin(), sizes.end(), [](const TimedLoop::SizeFlag& z) { return !z.size.empty(); })) {
    t += "\n# The program runs at its own sizes (its defaults): there are none to pass.\n[sizes.verify]\n\n[sizes.bench]\n";
  } else {
    t += "\n# The sizes the program reads from its options, arguments or environment, passed to it there\n"
         "# (`--size NAME=V` changes one).\n[sizes.verify]\n";
    for (const auto& z : sizes)
      if (!z.size.empty()) t += KeyLine(fmt::format("{} = {}", z.size, VerifySize(z.value)), z.Spelling() + ", smaller where it is large");
    t += "\n[sizes.bench]\n";
    for (const auto& z : sizes)
      if (!z.size.empty()) t += KeyLine(fmt::format("{} = {}", z.size, z.value), z.Spelling() + "'s default in the program");
  }
  t += "\n[tolerance]\n";
  t += fmt::format("# {}. max_abs is relative here: the worst element error over\n# the RMS of the reference's outputs.\n", tol.why);
  t += KeyLine(fmt::format("rel_l2 = {}", tol.rel_l2));
  t += KeyLine(fmt::format("max_abs = {}", tol.max_rel));
  t += "\n[timing]\nwarmup = 5\niters = 20\nverify_runs = 2\nverify_fraction = 0.25\n";
  t += "\n[limits]\ncompile_s = 600\nverify_s = 180\nbench_s = 300\n";
  return t;
}

std::string Readme(const ProgramFacts& f, const ProgramHarness& h) {
  std::string r = fmt::format("# {}_harness\n\nThe program `{}` as a harness-mode workload, written by `cuco init`.\n\n", f.name, f.file);
  r += "- `seed.cu`: the program's files one after the other; `main` runs once up to its timed loop (the\n"
       "  harness's setup), then each harness iteration runs the loop's body once on the harness's\n"
       "  buffers (`cuco/program/program.h`). Only the EVOLVE blocks may change in candidates.\n";
  r += "- `reference.cu`: the same code, frozen: every rank a thread of the supervisor on one GPU, NCCL\n"
       "  emulated between them. Inputs are fresh random values at the program's own scale (floats) or\n"
       "  the program's own values (integers); outputs are compared on every rank.\n\n";
  r += "What cuco init decided (correct it here, or in the program, and run `cuco init` again):\n\n";
  for (const auto& g : h.guesses) r += "- " + g + "\n";
  return r;
}

}  // namespace

Result<ProgramHarness> MakeProgramHarness(const ProgramFacts& f, const std::vector<ProgramFile>& other_files) {
  const Analysis& a = *f.analysis;
  // One process driving every GPU is run one GPU per rank (projection.h); with a thread per GPU,
  // every rank starts the threads and only its own GPU's thread works.
  const bool projected = f.launcher == "single";
  const bool threads = projected && f.launcher_source.find("a thread per GPU") != std::string::npos;
  std::string loop_fn = "main";  // the function holding the timed loop
  size_t thread_lambda = std::string::npos;  // or the `{` of the threads' lambda in main
  if (threads) {
    std::set<std::string> defined;
    for (const auto& fn : a.functions)
      if (SourceFileName(fn.file) == f.file) defined.insert(fn.name);
    size_t main_b = 0, main_e = 0;
    const std::string main_def = DefinitionLines(f.raw, "main", &main_b, &main_e) ? f.raw.substr(main_b, main_e - main_b) : "";
    loop_fn = ThreadFunction(main_def, defined);
    // The threads start in another file (a helper's pthread_create) with main's function by pointer.
    if (loop_fn.empty() && ThreadLambdaBody(main_def) == std::string::npos) loop_fn = PassedFunction(main_def, defined);
    if (loop_fn.empty()) {  // a lambda: its body, inside main, holds the timed loop
      const size_t body = main_def.empty() ? std::string::npos : ThreadLambdaBody(main_def);
      if (body == std::string::npos)
        return Status::InvalidArgument(f.launcher_source + ": the threads run neither a function of " + f.file +
                                       " nor a lambda written where they start, so cuco init cannot find their timed "
                                       "loop: start them with `std::thread(fn, ...)` or a lambda");
      loop_fn = "main";
      thread_lambda = main_b + body;
      // A lambda with no loop of its own that calls the program's function for a thread: that
      // function's loop (the text up to the first `}` is the whole body when it has no loop).
      const std::string lambda_text = main_def.substr(body, main_def.find('}', body) - body);
      for (const auto& [name, args] : CallsIn(lambda_text))
        if (defined.count(name) && name != "main" && lambda_text.find("for") == std::string::npos &&
            lambda_text.find("while") == std::string::npos) {
          loop_fn = name;
          thread_lambda = std::string::npos;
          break;
        }
    }
  }
  std::string all_code = f.raw;  // every source file of the program
  for (const ProgramFile& pf : other_files)
    if (pf.source) all_code += "\n" + pf.text;
  std::string gpu_count;  // the variable holding the number of GPUs (projected programs)
  if (projected) {
    for (const auto& op : a.ops)
      if ((op.api == "ncclCommInitAll" || op.api == "ncclCommInitRank") && op.args.size() > 1 && gpu_count.empty())
        gpu_count = Trim(op.args[1]);
    if (threads || !std::regex_match(gpu_count, std::regex(R"([A-Za-z_]\w*)"))) gpu_count.clear();  // a thread's own
    std::string peer = CrossGpuCopy(f.file, f.raw);
    for (const ProgramFile& pf : other_files)
      if (peer.empty() && pf.source) peer = CrossGpuCopy(pf.name, pf.text);
    if (!peer.empty())
      return Status::InvalidArgument(peer + ": a copy between GPUs outside NCCL; the harness runs each GPU of this program "
                                     "as a rank of its own, where such a copy has no meaning (use ncclSend/ncclRecv)");
    const std::set<std::string> guarded = GuardedNames(all_code, /*reference=*/true);  // both sides' (a superset)
    std::string qualified = QualifiedGuardedCall(f.file, f.raw, guarded);
    for (const ProgramFile& pf : other_files)
      if (qualified.empty() && pf.source) qualified = QualifiedGuardedCall(pf.name, pf.text, guarded);
    if (!qualified.empty())
      return Status::InvalidArgument(qualified + "(...): each rank does only its own GPU's part of this program, and cuco "
                                     "skips the other GPUs' calls through a macro of the call's name, which a call "
                                     "qualified with `::` does not reach; write it without `::`");
  }
  if (a.parse_path == "lexical") {
    // The file clang could not parse, and why (a header it did not find, named with its line).
    const std::string why = a.parse_failures.empty() ? f.file + ": libclang-14 did not load (`cuco doctor`)" : a.parse_failures[0];
    const bool header = why.find("' not found") != std::string::npos;
    return Status::InvalidArgument(why + "; clang could not parse the program, and the lexical scan's guesses of what "
                                   "the iteration reads and writes are too rough to bind buffers by" +
                                   (header ? ": give the header's folder (-I DIR in the build command after `--`)"
                                           : ": with libclang, cuco init makes the harness"));
  }
  std::set<std::string> direct, comm;
  Result<TimedLoop> loop = LocateIteration(f, threads, thread_lambda, gpu_count, &loop_fn, &comm, &direct);
  if (!loop.ok()) {  // no iteration: a program communicating from its kernels or not at all says so
    Status why = CommunicatesFromTheHost(f);
    return why.ok() ? loop.status() : why;
  }
  ProgramHarness h;
  {  // the program's own host timing in the loop: the harness times the iteration itself
    std::vector<size_t> dropped;
    const std::string body = DropHostTiming(loop->body, &dropped);
    const size_t body_at = f.raw.find(loop->body, loop->begin);
    for (size_t at : dropped)
      h.guesses.push_back(fmt::format("{}:{}: the program's own timing (a host clock) is left out of the iteration: the "
                                      "harness times it",
                                      f.file, body_at == std::string::npos ? loop->line : LineOf(f.raw, body_at + at)));
    loop->body = body;
  }
  loop->size_flags = PassedSizes(f, *loop, &h.guesses);
  if (projected)
    h.guesses.push_back(fmt::format("{}: each rank runs the program's host code and does only its own GPU's part: rank r "
                                    "is GPU r (cuco/program/impl/projection.h){}",
                                    f.launcher_source,
                                    gpu_count.empty() ? "" : fmt::format("; `{}` GPUs, so arrays indexed per GPU bind "
                                                                         "their rank's entry", gpu_count)));
  const std::string where = loop_fn == "main" ? "main" : threads ? loop_fn + " (each thread's function)"
                                                               : loop_fn + " (which main calls once)";
  if (loop->region)
    h.guesses.push_back(fmt::format("{}:{}: the iteration, in {}: {}; one harness iteration runs it", f.file, loop->line, where,
                                    loop->what));
  else
    h.guesses.push_back(fmt::format("{}:{}: the timed loop (the last loop of {} that reaches the communication{}): one "
                                    "harness iteration per pass",
                                    f.file, loop->line, where,
                                    loop->sweep_line == 0 ? ""
                                                          : fmt::format(", timed inside the untimed loop at line {}, whose "
                                                                        "first pass it runs in",
                                                                        loop->sweep_line)));

  // The iteration's accesses, in order, in main's terms: main's ops in the loop (and in the lambdas
  // it calls), each helper call followed into the helper.
  std::map<std::string, std::string> texts = {{f.file, f.raw}};
  for (const ProgramFile& pf : other_files) texts[SourceFileName(pf.name)] = pf.text;
  LoopAccesses flat(a, texts);
  // The code whose accesses are the iteration's: the loop served (and its lambdas), or, when it
  // launches CUDA graphs the program captured its communication into, the loop that captured them,
  // whose buffers are then bound by copy (a graph keeps the pointers it was captured with).
  size_t model_begin = loop->begin, model_end = loop->end;
  std::string model_body = loop->body;
  bool by_copy = false;
  if (loop->body.find("cudaGraphLaunch") != std::string::npos || loop->body.find("cudaGraphExecLaunch") != std::string::npos)
    if (auto cap = CapturingLoop(f.raw, comm)) {
      model_begin = cap->first, model_end = cap->second, by_copy = true;
      model_body = f.raw.substr(model_begin, model_end - model_begin);
      h.guesses.push_back(fmt::format("{}:{}: the iteration launches CUDA graphs captured at lines {}-{}: their buffers are "
                                      "the iteration's, bound by copy (the harness copies its inputs into the program's "
                                      "buffers and its outputs out of them: a graph keeps the pointers it was captured with)",
                                      f.file, loop->line, LineOf(f.raw, model_begin), LineOf(f.raw, model_end)));
    }
  std::vector<std::pair<int, int>> ranges = {{LineOf(f.raw, model_begin), LineOf(f.raw, model_end > model_begin ? model_end - 1 : model_end)}};
  for (const auto& l : loop->lambdas) ranges.push_back({l.line, l.end_line});
  // main's ops in the loop (and in the lambdas it calls), walked in the text's order.
  std::vector<const AnalyzedOp*> in_range;
  for (const auto& op : a.ops) {
    if (op.function != loop_fn || SourceFileName(op.file) != f.file) continue;
    for (const auto& [lo, hi] : ranges)
      if (op.line >= lo && op.line <= hi) {
        in_range.push_back(&op);
        break;
      }
  }
  std::string walked = model_body;
  for (const auto& l : loop->lambdas) walked = f.raw.substr(l.begin, l.end - l.begin) + "\n" + walked;
  std::vector<Access> accesses;
  // Local pointers and references in the loop and its lambdas name the buffer they alias
  // (`__half* y_mb = out + off;`, a projected program's `Stage& st = stages[s];`).
  flat.Walk(walked, in_range, loop_fn, LocalAliases(walked), 0, &accesses);
  const DeviceIndexing per_gpu(projected ? f.raw.substr(0, loop->begin) + walked : std::string(), gpu_count);
  // A buffer whose first access is a read is an input, one whose last access is a write an output.
  std::vector<std::string> order;
  std::map<std::string, bool> first_read, last_write;
  std::set<std::string> unnamed;
  // Code of the loop (and its lambdas) under an `if`: a rank may skip it (a prefill rank never
  // receives). A buffer written only there is an output some rank may not write.
  std::vector<std::pair<int, int>> conditional = ConditionalLines(f.raw, model_begin, model_end);
  for (const auto& l : loop->lambdas)
    for (const auto& r : ConditionalLines(f.raw, l.begin, l.end)) conditional.push_back(r);
  auto under_if = [&](int line) {
    for (const auto& [a0, a1] : conditional)
      if (line > 0 && line >= a0 && line <= a1) return true;
    return false;
  };
  // Pointers the loop swaps (`std::swap(a, a_new)`, double buffers): an access after a swap reaches
  // the buffer the other name held when the iteration started, which is what the binds name.
  std::vector<Swap> swaps = SwapsIn(f.raw, model_begin, model_end);
  for (const auto& l : loop->lambdas)
    for (const Swap& w : SwapsIn(f.raw, l.begin, l.end)) swaps.push_back(w);
  std::set<std::string> written, written_always;  // written at least once (outside every `if`)
  for (const Access& acc : accesses) {
    for (const auto& b0 : acc.reads) {
      const std::string b = per_gpu.Normalize(NameAtStart(b0, acc.line, swaps), "@");
      if (!first_read.count(b)) first_read[b] = true, order.push_back(b);
      last_write[b] = false;
    }
    for (const auto& b0 : acc.writes) {
      const std::string b = per_gpu.Normalize(NameAtStart(b0, acc.line, swaps), "@");
      if (!first_read.count(b)) first_read[b] = false, order.push_back(b);
      last_write[b] = true;
      written.insert(b);
      if (!under_if(acc.line)) written_always.insert(b);
    }
    unnamed.insert(acc.unnamed.begin(), acc.unnamed.end());
  }
  // Buffers the loop's function copies to the host after the loop (its own check or checksum):
  // what the program consumes at the end, so an output of the iteration when the iteration writes it.
  std::map<std::string, int> copied_out;
  for (const auto& op : a.ops)
    if (op.function == loop_fn && SourceFileName(op.file) == f.file && op.line > loop->end_line && op.kind == "copy" &&
        op.args.size() > 3 && op.args[3].find("DeviceToHost") != std::string::npos)
      for (const auto& r : op.reads) copied_out.emplace(per_gpu.Normalize(r, "@"), op.line);
  const std::string before_loop = NameableBeforeLoop(f.raw, loop->begin, loop_fn);
  std::vector<std::string> binds;
  for (const auto& marked_expr : order) {
    const bool in = first_read[marked_expr];
    const auto copied = last_write[marked_expr] || !written.count(marked_expr) ? copied_out.end() : copied_out.find(marked_expr);
    // A swapped buffer the iteration writes is what the next iteration reads under the other name (a
    // stencil's new grid, read by halo sends before the swap): an output, bound as input and output,
    // since the part it does not write (the boundary) is what the buffer held, on both sides.
    const bool swapped = Swapped(marked_expr, swaps);
    const bool out = copied != copied_out.end() ||
                     (swapped ? written.count(marked_expr) && FlowsOn(marked_expr, swaps, first_read) : last_write[marked_expr]);
    if (!in && !out) continue;  // scratch: the program's own buffer
    // "@": the index of a per-GPU array (projected programs): this rank's entry.
    std::string expr = marked_expr, probe = marked_expr;
    for (size_t at; (at = expr.find("[@]")) != std::string::npos;) expr.replace(at, 3, std::string("[") + kRankIndex + "]");
    for (size_t at; (at = probe.find("[@]")) != std::string::npos;) probe.replace(at, 3, "[0]");
    if (!Bindable(probe, before_loop) || (projected && per_gpu.NamesAnArray(marked_expr, all_code))) {
      unnamed.insert(expr);
      continue;
    }
    const std::string name = BindName(expr);
    // A projected program's output may be one some GPUs never write (a pipeline's first stage never
    // receives), and so may one written only under an `if`: bound as inout, such a rank's output is
    // its input on both sides.
    const bool maybe_unwritten = projected || !written_always.count(marked_expr) || swapped;
    const bool both = (in && out) || (maybe_unwritten && out);
    const char* how = both ? "inout" : in ? "input" : "output";
    binds.push_back(fmt::format("cuco_bind.{}{}(\"{}\", {});", how, by_copy ? "_copy" : "", name, expr));
    if (in || both) h.inputs.push_back(name);
    if (out) h.outputs.push_back(both ? name + "_out" : name);
    const std::string last =
        copied != copied_out.end()
            ? fmt::format("a read, and {}:{} copies it to the host after the loop", f.file, copied->second)
            : std::string(last_write[marked_expr] ? "a write" : "a read") +
                  (swapped && out ? ", and the next pass reads it through the swap" : "");
    h.guesses.push_back(fmt::format("`{}`: {} of the iteration (its first access {}, its last {}){}", expr,
                                    in && out ? "an input and an output" : in ? "an input" : "an output",
                                    in ? "a read" : "a write", last,
                                    both && !in ? projected ? "; bound as input and output, since a GPU may not write it"
                                                  : swapped   ? "; swapped with another pointer in the loop, and bound as "
                                                                "input and output: what the iteration does not write is "
                                                                "what it held"
                                                              : "; bound as input and output: it is written only under an "
                                                                "`if`, which a rank may skip"
                                                : swapped ? "; swapped with another pointer in the loop: bound by what it "
                                                            "holds when the iteration starts"
                                                          : ""));
  }
  for (const auto& u : unnamed)
    h.guesses.push_back(fmt::format("`{}`: a buffer of the iteration that main cannot bind (a helper's local, a class's member, a per-layer array's element): the "
                                    "program's own buffer is used, not refilled with fresh inputs nor compared", u));
  if (h.outputs.empty())
    return Status::InvalidArgument(fmt::format("{}:{}: no output of the iteration could be named in main, so nothing would be "
                                               "checked", f.file, loop->line));
  if (h.inputs.size() + h.outputs.size() > 16)
    return Status::InvalidArgument(fmt::format("{}:{}: the iteration has {} buffers; the harness takes at most 16", f.file,
                                               loop->line, h.inputs.size() + h.outputs.size()));

  // EVOLVE blocks: the functions issuing the communication, the program's functions they call and
  // those the loop (and its lambdas) call directly: the compute around the communication.
  std::vector<std::string> evolve(direct.begin(), direct.end());
  auto add = [&](const std::string& fn) {
    if (fn != "main" && fn != loop_fn && FindFunction(a, fn) && std::find(evolve.begin(), evolve.end(), fn) == evolve.end())
      evolve.push_back(fn);
  };
  for (const auto& op : a.ops) {
    if (op.kind != "kernel" && op.kind != "call") continue;
    if (direct.count(op.function)) add(op.api);
    if (op.function == loop_fn && SourceFileName(op.file) == f.file)
      for (const auto& [lo, hi] : ranges)
        if (op.line >= lo && op.line <= hi) add(op.api);
  }
  std::string main_text = RewriteMpiIncludes(RewriteMain(f.raw, *loop, binds));
  // A projected program's kernel launches run only while the rank's GPU is selected.
  auto guarded = [&](const std::string& file, const std::string& text) -> Result<std::string> {
    return projected ? GuardLaunches(file, threads ? RenameStdThread(text) : text) : Result<std::string>(text);
  };
  {
    Result<std::string> g = guarded(f.file, main_text);
    if (!g.ok()) return g.status();
    main_text = *g;
  }
  // A program that marks its own EVOLVE blocks keeps them, and gets no others.
  bool own_blocks = HasEvolveMarker(main_text);
  for (const ProgramFile& pf : other_files) own_blocks |= HasEvolveMarker(pf.text);
  if (own_blocks) evolve.clear();
  std::vector<std::string> marked;
  std::string seed_main = MarkEvolve(main_text, evolve, &marked);
  // NCCL calls written in the loop itself (not in a lambda of main, which gets its own block).
  bool comm_in_loop_body = false;
  for (const auto& op : a.ops)
    if (IsCommOp(op) && op.function == loop_fn && SourceFileName(op.file) == f.file && op.line >= loop->line &&
        op.line <= loop->end_line) {
      bool in_lambda = false;
      for (const auto& l : loop->lambdas) in_lambda |= op.line >= l.line && op.line <= l.end_line;
      comm_in_loop_body |= !in_lambda;
    }
  for (auto it = loop->lambdas.rbegin(); it != loop->lambdas.rend() && !own_blocks; ++it) {  // main's lambdas
    Result<std::string> lambda = guarded(f.file, f.raw.substr(it->begin, it->end - it->begin));
    if (!lambda.ok()) return lambda.status();
    const size_t at = seed_main.find(*lambda);
    if (at == std::string::npos) continue;
    const size_t b = seed_main.rfind('\n', at) + 1;
    const size_t e = seed_main.find('\n', at + lambda->size());
    seed_main = seed_main.substr(0, b) + kEvolveStartLine + "\n" + seed_main.substr(b, e - b) + "\n" + kEvolveEndLine +
                (e == std::string::npos ? "" : seed_main.substr(e));
    marked.push_back("main's lambda " + it->name);
  }
  std::string seed, reference;
  for (const ProgramFile& pf : other_files) {
    if (!pf.source) continue;
    Result<std::string> text_or = guarded(pf.name, RewriteMpiIncludes(pf.text));
    if (!text_or.ok()) return text_or.status();
    const std::string& text = *text_or;
    seed += "// ==== " + pf.name + " (the program's file) ====\n" + MarkEvolve(text, evolve, &marked) + "\n";
    reference += "// ==== " + pf.name + " (the program's file) ====\n" + text + "\n";
  }
  if (own_blocks) {
    marked.push_back("the program's own");
  } else if (marked.empty() || comm_in_loop_body) {  // the loop's body issues communication itself
    const size_t at = seed_main.find("  cuco_program::serve(");
    const size_t end = seed_main.find("});", at);
    seed_main = seed_main.substr(0, at) + kEvolveStartLine + "\n" + seed_main.substr(at, end + 3 - at) + "\n" +
                kEvolveEndLine + seed_main.substr(end + 3);
    marked.push_back("the timed loop's body");
  }
  seed += "// ==== " + f.file + " (the program's file; main rewritten by cuco init) ====\n" + seed_main;
  reference += "// ==== " + f.file + " (the program's file; main rewritten by cuco init) ====\n" + main_text;
  seed = CandidateSpellings(seed);
  h.evolve = marked;
  std::string evolved;
  for (size_t i = 0; i < marked.size(); ++i) evolved += (i ? ", " : "") + marked[i];
  h.guesses.push_back("EVOLVE blocks (what candidates may change): " + evolved);

  auto head = [&](const char* what) {
    return fmt::format("// {}_harness: {}, written by `cuco init` from the program's own files (cuco/program/program.h).\n",
                       f.name, what);
  };
  // A projected program: the flag before the harness's headers, the guards after them.
  std::string flag = projected ? "#define CUCO_PROGRAM_PROJECTED 1  // one GPU of the program per rank\n" : "";
  if (threads) flag += "#define CUCO_PROGRAM_THREADS 1  // a thread per GPU: each rank's own does the work\n";
  const std::string seed_guards = projected ? "\n" + ProjectionGuards(all_code, false) : "";
  const std::string reference_guards = projected ? "\n" + ProjectionGuards(all_code, true) : "";
  h.files.push_back({"seed.cu", head("the candidate file") +
                                    "// Frozen outside the EVOLVE blocks; main's timed loop is the harness's iteration.\n" + flag +
                                    std::string(kProgramSeedInclude) + "\n" + seed_guards + "\n" + seed});
  h.files.push_back({"reference.cu", head("the frozen reference") +
                                         "// The program itself, every rank a thread of the supervisor, NCCL emulated.\n" + flag +
                                         "#define CUCO_PROGRAM_WORKLOAD " + TomlQuoted(f.name + "_harness") +
                                         "\n#include <cuco/program/reference.h>\n" + reference_guards + "\n" + reference});
  h.files.push_back({"workload.toml", HarnessWorkloadToml(f, fmt::format("{}:{}", f.file, loop->line), loop->size_flags)});
  for (const ProgramFile& pf : other_files)
    if (!pf.source) h.files.push_back({pf.name, RewriteMpiIncludes(pf.text)});
  h.files.push_back({"README.md", Readme(f, h)});
  return h;
}

}  // namespace cuco::scaffold_internal
