#include "scaffold/main_rewrite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <utility>

#include "scaffold/carried_scalars.h"
#include "scaffold/iteration_choice.h"
#include "scaffold/program_text.h"
#include "scaffold/rank_split_loops.h"
#include "scaffold/region_hoist.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// A counter of passes the loop's body [body_first, body_last] steps at its top level (`++pass;`,
// `iter++;`) and reads elsewhere too, declared outside the body, other than the loop's variable
// `loop_var`; "" when none. `in_condition`, when not empty: only one the loop's condition tests.
std::string BodyCounter(const std::vector<Tok>& t, size_t body_first, size_t body_last, const std::string& loop_var,
                        const std::set<std::string>& in_condition) {
  int depth = 0;
  for (size_t i = body_first; i <= body_last; ++i) {
    if (t[i].text == "{") ++depth;
    if (t[i].text == "}") --depth;
    const bool top = depth == (t[body_first].text == "{" ? 1 : 0);
    if (!top || !t[i].ident || t[i].text == loop_var || i + 2 > body_last) continue;
    if (!in_condition.empty() && !in_condition.count(t[i].text)) continue;
    const bool post = t[i + 1].text == "+" && t[i + 2].text == "+";
    const bool pre = i >= 2 && t[i - 1].text == "+" && t[i - 2].text == "+";
    if (!post && !pre) continue;
    int mentions = 0;
    bool declared = false;  // `int pass = 0;` in the body: a variable of one pass
    for (size_t j = body_first; j <= body_last; ++j)
      if (t[j].ident && t[j].text == t[i].text) ++mentions, declared |= j > 0 && t[j - 1].ident && t[j - 1].text != "return";
    if (!declared && (mentions > 1 || !in_condition.empty())) return t[i].text;
  }
  return "";
}

// The body of the loop at tokens [best, best_end] and what every harness iteration holds at its first
// value: a `for` loop's variable (its declaration and first value), a `while` loop's counter, and a
// counter of passes the body steps and reads (`float* c = (pass & 1) ? pong : ping; ++pass;`).
void HoldLoopVariable(const std::string& text, const std::vector<Tok>& t, size_t best, size_t best_end, TimedLoop* loop) {
  const size_t body_first = LoopBodyFirst(t, best);
  const size_t body_last = t[best].text == "do" ? LoopBodyLast(t, best) : best_end;
  loop->body = text.substr(t[body_first].begin, t[body_last].end - t[body_first].begin);
  if (t[body_first].text != "{") loop->body = "{ " + loop->body + " }";
  if (t[best].text == "for") {
    const size_t header_close = Match(t, best + 1);
    const std::string header = text.substr(t[best + 1].end, t[header_close].begin - t[best + 1].end);
    static const std::regex decl(R"(^\s*((?:const\s+)?(?:unsigned\s+|signed\s+|long\s+)*[A-Za-z_][\w:]*)\s+([A-Za-z_]\w*)\s*(=|\{))");
    std::smatch m;
    if (std::regex_search(header, m, decl) && header.find(';') != std::string::npos) {
      std::string type = m[1].str();
      if (type == "auto" || type == "const auto") type = "int64_t";
      loop->loop_var_decl = type + " " + m[2].str();
      // Its first value: `= 0` up to the first `;`, or `{0}`.
      const size_t from = static_cast<size_t>(m.position(3) + m.length(3));
      const size_t to = header.find(m[3].str() == "{" ? '}' : ';', from);
      if (to != std::string::npos) loop->loop_var_init = Trim(header.substr(from, to - from));
    }
    const std::string var = loop->loop_var_decl.empty() ? "" : loop->loop_var_decl.substr(loop->loop_var_decl.rfind(' ') + 1);
    loop->pinned_counter = BodyCounter(t, body_first, body_last, var, {});
  } else {
    // A `while` or `do` loop: a counter the body steps at its top level (`iter++;`) and the condition
    // tests, held at its value when the loop starts, as a for loop's variable is (every harness
    // iteration is the first pass).
    std::set<std::string> in_condition;
    const size_t cond_open = LoopConditionOpen(t, best);
    for (size_t i = cond_open + 1; cond_open < t.size() && i < Match(t, cond_open); ++i)
      if (t[i].ident) in_condition.insert(t[i].text);
    if (!in_condition.empty()) loop->pinned_counter = BodyCounter(t, body_first, body_last, "", in_condition);
  }
}

// A counter of passes one of main's lambdas the loop calls steps at its top level and reads
// (`const int buf = pass & 1; ++pass;`), declared before it: held as a counter of the loop's own body
// is (BodyCounter). "" when none.
std::string LambdaCounter(const std::vector<Tok>& t, const std::vector<TimedLoop::Lambda>& lambdas) {
  for (const TimedLoop::Lambda& l : lambdas) {
    const std::string counter = BodyCounter(t, l.body_open, l.body_close, "", {});
    if (!counter.empty()) return counter;
  }
  return "";
}

// main's lambdas (in the body [body_open, body_close]) that reach the communication, counted as comm
// names (added to *names): `name = [...](...) {...};`.
std::vector<TimedLoop::Lambda> CommLambdas(const std::vector<Tok>& t, size_t body_open, size_t body_close,
                                           const std::set<std::string>& comm_names, std::set<std::string>* names) {
  std::vector<TimedLoop::Lambda> lambdas;
  for (size_t i = body_open + 1; i + 2 < body_close; ++i) {
    if (!(t[i].ident && t[i + 1].text == "=" && t[i + 2].text == "[")) continue;
    size_t k = Match(t, i + 2) + 1;
    if (k < t.size() && t[k].text == "(") k = Match(t, k) + 1;
    while (k < t.size() && t[k].ident) ++k;  // mutable, noexcept
    if (k + 1 < t.size() && t[k].text == "-" && t[k + 1].text == ">")  // a trailing return type, up to the body
      while (k < t.size() && t[k].text != "{" && t[k].text != ";" && t[k].text != "(") ++k;
    if (k >= t.size() || t[k].text != "{") continue;
    const size_t close = Match(t, k);
    if (close >= t.size() || !Calls(t, k, close, comm_names)) continue;
    const size_t first = StatementStart(t, i, body_open + 1);  // the statement's first token
    size_t last = close;
    while (last + 1 < t.size() && t[last].text != ";") ++last;
    names->insert(t[i].text);
    lambdas.push_back({t[i].text, t[first].begin, t[last].end, t[first].line, t[last].line, k, close});
  }
  return lambdas;
}

// Whether the function whose name is token `at` of `t` takes parameters: not `()` nor `(void)`.
bool TakesArguments(const std::vector<Tok>& t, size_t at) {
  const size_t params_close = Match(t, at + 1);
  return params_close > at + 2 && !(params_close == at + 3 && t[at + 2].text == "void");
}

// Why `file` cannot be served: it defines no main. A file of GoogleTest tests (`TEST(Suite, Name) {`)
// runs from GoogleTest's main (gtest_main), which holds none of the program: that is said, with the first test.
Status NoMainHere(const std::string& file, const std::string& text) {
  static const std::regex test(R"(\b(TEST|TEST_F|TEST_P)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)\s*\{)");
  const std::string code = StripComments(text);
  std::smatch m;
  if (std::regex_search(code, m, test))
    return Status::InvalidArgument(fmt::format(
        "{}:{}: no `main` defined here: the file holds GoogleTest tests (`{}({}, {})` first), which GoogleTest's own "
        "main runs; cuco init serves a program's main: write a main that runs the test's body and give its file first",
        file, LineOf(code, static_cast<size_t>(m.position(0))), m[1].str(), m[2].str(), m[3].str()));
  return Status::InvalidArgument(file + ": no `main` defined here, nor in the other files given; give the file that "
                                        "defines main");
}

}  // namespace

Result<TimedLoop> FindTimedLoop(const std::string& file, const std::string& text, const std::set<std::string>& comm_names,
                                const std::string& loop_function, size_t within, const LoopSearch& search) {
  const std::vector<Tok> t = Scan(text);
  size_t main_body = t.size();
  const size_t main_at = FunctionDefinition(t, "main", &main_body);
  if (main_at >= t.size() && !search.main_elsewhere) return NoMainHere(file, text);
  TimedLoop loop;
  if (main_at < t.size()) {
    loop.main_name = t[main_at].begin;
    loop.main_takes_args = TakesArguments(t, main_at);
  } else {
    loop.main_name = std::string::npos;
  }
  size_t body_open = main_body, fn_at = main_at;
  if (within != std::string::npos) {  // a lambda's body: the `{` at byte `within`
    body_open = t.size();
    for (size_t i = 0; i < t.size(); ++i)
      if (t[i].begin == within && t[i].text == "{") body_open = i;
    if (body_open >= t.size())
      return Status::InvalidArgument(file + ": cuco init could not find the body of the threads' lambda");
    fn_at = body_open;
  } else if (loop_function != "main") {
    fn_at = FunctionDefinition(t, loop_function, &body_open);
    if (fn_at >= t.size())
      return Status::InvalidArgument(fmt::format("{}: `{}` (the function that holds the iteration) is not defined in the "
                                                 "file that defines main; put them in one file",
                                                 file, loop_function));
  }
  const size_t body_close = Match(t, body_open);
  // main's lambdas that reach the communication count as comm names.
  std::set<std::string> names = comm_names;
  const std::vector<TimedLoop::Lambda> lambdas = CommLambdas(t, body_open, body_close, comm_names, &names);
  Result<Chosen> chosen = ChooseIteration(file, text, t, body_open, body_close, names, loop_function, search, t[fn_at].line);
  if (!chosen.ok()) return chosen.status();
  const size_t best = chosen->first, best_end = chosen->last;
  const int sweep_line = chosen->sweep_line;
  // Flags for the rank and the rank count: string literals such as "--rank", "--world", in main or
  // in the function of main's file that parses its arguments (`parseArgs(argc, argv)`); comments
  // are not read.
  static const std::regex flag(R"re("(--?(rank|world|world[-_]size|nranks|nprocs|num[-_]ranks|local[-_]rank))")re");
  const std::string uncommented = BlankComments(text);
  for (auto it = std::sregex_iterator(uncommented.begin(), uncommented.end(), flag); it != std::sregex_iterator(); ++it) {
    const std::string name = (*it)[1].str();
    const bool local = name.find("local") != std::string::npos;
    if ((*it)[2].str() == "rank" && !local && loop.rank_flag.empty()) loop.rank_flag = name;
    if ((*it)[2].str() != "rank" && !local && loop.world_flag.empty()) loop.world_flag = name;
  }
  loop.begin = t[best].begin;
  loop.end = t[best_end].end;
  loop.line = t[best].line;
  loop.end_line = t[best_end].line;
  loop.sweep_line = sweep_line;
  loop.earlier_other = chosen->earlier_other;
  for (const auto& l : lambdas)
    if (Calls(t, best, best_end, {l.name})) loop.lambdas.push_back(l);
  std::vector<std::pair<size_t, size_t>> lambda_bodies;
  for (const auto& l : loop.lambdas) lambda_bodies.push_back({l.body_open, l.body_close});
  loop.random_state = RandomStateDrawn(t, body_open, best, best_end, lambda_bodies);
  loop.region = chosen->region;
  loop.what = chosen->what;
  if (loop.region) {  // statements run whole: no loop variable to hold
    const size_t main_end = t[main_body < t.size() ? Match(t, main_body) : body_close].begin;
    // A conditional's directives just outside its statements (`#ifdef FLAG` before them, `#endif`
    // after) are served with them: only directive lines lie between.
    const auto [b, e] = WithConditionalsWhole(text, loop.begin, loop.end);
    if ((best == 0 || t[best - 1].end <= b) && (best_end + 1 >= t.size() || t[best_end + 1].begin >= e)) {
      const std::string lines = fmt::format("lines {}-{}", loop.line, loop.end_line);
      loop.begin = b, loop.end = e, loop.line = LineOf(text, b), loop.end_line = LineOf(text, e > b ? e - 1 : b);
      if (loop.what.rfind(lines, 0) == 0) loop.what.replace(0, lines.size(), fmt::format("lines {}-{}", loop.line, loop.end_line));
    }
    const HoistedRegion h = HoistDeclarations(text.substr(loop.begin, loop.end - loop.begin),
                                              t[best_end].end < main_end ? text.substr(t[best_end].end, main_end - t[best_end].end) : "");
    loop.hoisted = h.declarations;
    loop.body = "{\n  " + h.region + "\n      }";
    return loop;
  }
  if (const auto& s = chosen->split) {  // `for (header) { if (c1) <body 1> else ... }`
    std::vector<std::string> bodies;
    for (auto arm = s->arms.rbegin(); arm != s->arms.rend(); ++arm) {  // the first arm's last: its loop variable is held
      HoldLoopVariable(text, t, arm->loop, arm->last, &loop);
      bodies.insert(bodies.begin(), loop.body);
    }
    loop.body = BranchingBody(*s, bodies);
    loop.hoisted = BranchingPrologue(*s);
    for (const RankSplit::Arm& a : s->arms) loop.served_lines.push_back({t[a.loop].line, t[a.last].line});
    return loop;
  }
  HoldLoopVariable(text, t, best, best_end, &loop);
  if (loop.pinned_counter.empty()) loop.pinned_counter = LambdaCounter(t, loop.lambdas);
  std::set<std::string> own = {loop.pinned_counter};  // held already
  if (!loop.loop_var_decl.empty()) own.insert(loop.loop_var_decl.substr(loop.loop_var_decl.rfind(' ') + 1));
  loop.carried = CarriedScalars(t, body_open, best, best_end, lambda_bodies, own);
  return loop;
}

std::string RewriteMain(const std::string& text, const TimedLoop& loop, const std::vector<std::string>& binds) {
  std::string binds_text;
  for (const auto& b : binds) binds_text += "\n        " + b;
  std::string body = LoopJumpsAsReturn(loop.body);  // the served body is a function's: `continue`, `break` end the pass
  std::string pin = loop.hoisted;
  if (!loop.pinned_counter.empty()) {  // the loop's counter, at its value when the loop starts
    const std::string held = "cuco_pinned_" + loop.pinned_counter;
    pin += fmt::format("const auto {} = {};\n  ", held, loop.pinned_counter);
    body = fmt::format("{{\n        {} = {};\n        {}\n      }}", loop.pinned_counter, held, body);
  }
  body = HoldRandomState(loop.random_state, body, &pin);
  body = HoldCopies(loop.carried, body, &pin);
  if (!loop.loop_var_decl.empty()) {
    const std::string var = loop.loop_var_decl.substr(loop.loop_var_decl.rfind(' ') + 1);
    const std::string type = loop.loop_var_decl.substr(0, loop.loop_var_decl.rfind(' '));
    // Every harness iteration is the loop's first pass: its result is a function of its inputs,
    // whichever pass the harness runs (a variable counting passes would choose the data).
    const std::string first =
        loop.loop_var_init.empty() ? "cuco_program::iteration()" : "(" + loop.loop_var_init + ")";
    body = fmt::format("{{\n        {} = static_cast<{}>({});\n        (void){};\n        {}\n      }}",
                       loop.loop_var_decl, type, first, var, body);
  }
  const std::string serve = std::string(loop.region ? "/* cuco init: the program's statements served whole, one "
                                                      "harness iteration per call of the body */\n  "
                                                    : "/* cuco init: the program's timed loop, one harness iteration "
                                                      "per call of the body */\n  ") +
                            pin +
                            fmt::format("cuco_program::serve(\n"
                                        "      [&](cuco_program::Binder& cuco_bind) {{{}\n      }},\n"
                                        "      [&]() {});",
                                        binds_text, body);
  std::string out;  // main renamed and the loop replaced, in the order they stand in the text
  if (loop.main_name == std::string::npos)  // main is another file's (renamed there)
    out = text.substr(0, loop.begin) + serve + text.substr(loop.end);
  else if (loop.main_name < loop.begin)
    out = text.substr(0, loop.main_name) + "cuco_program_main" +
          text.substr(loop.main_name + 4, loop.begin - loop.main_name - 4) + serve + text.substr(loop.end);
  else  // the loop is in a function defined before main (a thread per GPU's function)
    out = text.substr(0, loop.begin) + serve + text.substr(loop.end, loop.main_name - loop.end) + "cuco_program_main" +
          text.substr(loop.main_name + 4);
  out += "\n// cuco init: the program's entry point, called on the program's own thread.\n";
  std::string envs;  // sizes the program reads from its environment: what its getenv answers
  std::vector<const TimedLoop::SizeFlag*> positional, options;
  for (const TimedLoop::SizeFlag& f : loop.size_flags) {
    if (!f.env.empty())
      envs += fmt::format("  cuco_program::env_size(\"{}\", \"{}\", {});\n", f.env, f.size, f.value);
    else if (f.position > 0)
      positional.push_back(&f);
    else
      options.push_back(&f);
  }
  std::stable_sort(positional.begin(), positional.end(),
                   [](const TimedLoop::SizeFlag* a, const TimedLoop::SizeFlag* b) { return a->position < b->position; });
  if (!loop.main_takes_args ||
      (loop.rank_flag.empty() && loop.world_flag.empty() && positional.empty() && options.empty())) {
    const std::string params = loop.main_takes_args ? "int argc, char** argv" : "int, char**";
    const std::string call = loop.main_takes_args ? "cuco_program_main(argc, argv)" : "cuco_program_main()";
    out += envs.empty() ? fmt::format("static int cuco_program_entry({}) {{ return {}; }}\n", params, call)
                        : fmt::format("static int cuco_program_entry({}) {{\n{}  return {};\n}}\n", params, envs, call);
  } else {  // the program takes its rank, rank count and sizes as arguments: the harness's
    out += "static int cuco_program_entry(int, char** argv) {\n" + envs;
    out += "  std::string cuco_rank = std::to_string(cuco_program::rank()), cuco_world = std::to_string(cuco_program::world());\n";
    out += "  std::vector<char*> args = {argv[0]};\n";
    for (size_t i = 0; i < positional.size(); ++i) {
      const TimedLoop::SizeFlag& f = *positional[i];
      if (f.world || f.rank) {
        out += f.world ? "  args.push_back(cuco_world.data());\n" : "  args.push_back(cuco_rank.data());\n";
        continue;
      }
      out += f.size.empty()
                 ? fmt::format("  static char arg{0}[] = \"{1}\";\n  args.push_back(arg{0});\n", i,
                               f.given.empty() ? std::to_string(f.value) : f.given)
                 : fmt::format("  std::string arg{0} = std::to_string(cuco_program::size_or(\"{1}\", {2}));\n"
                               "  args.push_back(arg{0}.data());\n",
                               i, f.size, f.value);
    }
    if (!loop.rank_flag.empty())
      out += fmt::format("  static char rank_flag[] = \"{}\";\n  args.push_back(rank_flag);\n  args.push_back(cuco_rank.data());\n",
                         loop.rank_flag);
    if (!loop.world_flag.empty())
      out += fmt::format("  static char world_flag[] = \"{}\";\n  args.push_back(world_flag);\n  args.push_back(cuco_world.data());\n",
                         loop.world_flag);
    for (size_t i = 0; i < options.size(); ++i) {
      const TimedLoop::SizeFlag& f = *options[i];
      out += fmt::format(
          "  static char size_flag{0}[] = \"{1}\";\n  std::string size{0} = std::to_string(cuco_program::size_or(\"{2}\", {3}));\n"
          "  args.push_back(size_flag{0});\n  args.push_back(size{0}.data());\n",
          i, f.flag, f.size, f.value);
    }
    out += "  args.push_back(nullptr);\n";
    out += "  return cuco_program_main(static_cast<int>(args.size()) - 1, args.data());\n}\n";
  }
  return out;
}

HostOnly ProfilerOrPause(const std::vector<Tok>& t, size_t from, size_t to) {
  static const std::set<std::string> profiler = {"cudaProfilerStart", "cudaProfilerStop", "cuProfilerStart",
                                                 "cuProfilerStop"};
  static const std::set<std::string> pause = {"sleep_for", "sleep_until", "usleep", "nanosleep"};
  HostOnly kind = HostOnly::kNone;
  for (size_t k = from; k <= to && k < t.size(); ++k) {
    if (!t[k].ident) continue;
    if (profiler.count(t[k].text)) {
      kind = HostOnly::kProfiler;
    } else if (pause.count(t[k].text) || (t[k].text == "sleep" && k + 1 <= to && t[k + 1].text == "(")) {
      if (kind == HostOnly::kNone) kind = HostOnly::kPause;
    } else if (DoesWork(t, k, k)) {
      return HostOnly::kNone;  // other device or library work in the same statement
    }
  }
  return kind;
}

std::string DropHostTiming(const std::string& body, std::vector<DroppedStatement>* dropped) {
  const std::vector<Tok> t = Scan(body);
  if (t.empty() || t.front().text != "{") return body;
  const size_t close = Match(t, 0);
  struct Statement {
    size_t first, last;
    bool timing;
    HostOnly host_only;  // a profiler's start or stop, or a pause
    std::string declares;  // `auto start = ...`: start
  };
  std::vector<Statement> statements;
  for (size_t i = 1; i < close;) {
    const size_t e = std::min(StatementEnd(t, i), close - 1);
    bool clock = false;
    for (size_t k = i; k <= e; ++k) clock |= HostClock(t[k]);
    Statement st{i, e, clock && !DoesWork(t, i, e), ProfilerOrPause(t, i, e), ""};
    int depth = 0;
    for (size_t k = i; k <= e && st.timing; ++k) {
      if (t[k].text == "(" || t[k].text == "[" || t[k].text == "{") ++depth;
      if (t[k].text == ")" || t[k].text == "]" || t[k].text == "}") --depth;
      if (depth == 0 && t[k].text == "=" && k > i + 1 && t[k - 1].ident && k + 1 <= e && t[k + 1].text != "=") {
        st.declares = t[k - 1].text;
        break;
      }
    }
    statements.push_back(st);
    i = e + 1;
  }
  // A variable a timing statement declares must not be used by a statement that stays: the clock
  // then stays whole (a profiler's start or stop, or a pause, leaves regardless).
  bool clock_stays = false;
  for (const Statement& d : statements) {
    if (!d.timing || d.declares.empty()) continue;
    for (const Statement& k : statements)
      if (!k.timing)
        for (size_t x = k.first; x <= k.last; ++x) clock_stays |= t[x].ident && t[x].text == d.declares;
  }
  std::string out = body;
  for (const Statement& st : statements) {
    const bool profiler_or_pause = st.host_only != HostOnly::kNone;
    if (!profiler_or_pause && (!st.timing || clock_stays)) continue;
    for (size_t c = t[st.first].begin; c < t[st.last].end; ++c)
      if (out[c] != '\n') out[c] = ' ';
    if (dropped != nullptr) dropped->push_back({t[st.first].begin, profiler_or_pause ? st.host_only : HostOnly::kClock});
  }
  return out;
}

std::string TimedLoop::SizeFlag::Spelling() const {
  if (!env.empty()) return "$" + env;
  if (position > 0) return "argv[" + std::to_string(position) + "]";
  return flag;
}

bool MainTakesArguments(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  size_t body = 0;
  const size_t at = FunctionDefinition(t, "main", &body);
  return at >= t.size() || TakesArguments(t, at);
}

std::string RewriteMpiIncludes(const std::string& text) {
  static const std::regex inc(R"((^|\n)([ \t]*#[ \t]*include[ \t]*)[<"]mpi(-ext)?\.h[>"])");
  return std::regex_replace(text, inc, "$1$2<cuco/program/mpi.h>");
}

bool InLineRanges(const std::vector<std::pair<int, int>>& ranges, int line) {
  for (const auto& [first, last] : ranges)
    if (line > 0 && line >= first && line <= last) return true;
  return false;
}

std::vector<IfElseArms> IfElseArmsIn(const std::string& text, size_t begin, size_t end) {
  const std::vector<Tok> t = Scan(text);
  std::vector<IfElseArms> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == "if" && t[i].begin >= begin && t[i].begin < end && t[i + 1].text == "(")) continue;
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size()) continue;
    const size_t then_end = StatementEnd(t, close + 1);
    if (then_end + 2 >= t.size() || t[then_end + 1].text != "else") continue;
    const size_t else_end = StatementEnd(t, then_end + 2);
    if (else_end >= t.size()) continue;
    out.push_back({{t[close + 1].line, t[then_end].line}, {t[then_end + 2].line, t[else_end].line}});
  }
  return out;
}

bool DefinitionLines(const std::string& text, const std::string& name, size_t* begin, size_t* end) {
  const std::vector<Tok> t = Scan(text);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == name && t[i + 1].text == "(")) continue;
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size() || t[close + 1].text != "{") continue;
    // The declaration starts after the `;`, `}` or `{` before it (a call is never followed by `{`).
    const size_t k = StatementStart(t, i);
    const size_t last = Match(t, close + 1);
    if (last >= t.size()) return false;
    size_t b = t[k].begin;
    while (b > 0 && text[b - 1] != '\n') --b;
    size_t e = t[last].end;
    while (e < text.size() && text[e] != '\n') ++e;
    *begin = b;
    *end = e;
    return true;
  }
  return false;
}

std::string OpenRecords(const std::string& text, const std::set<std::string>& records) {
  if (records.empty()) return text;
  const std::vector<Tok> t = Scan(text);
  std::vector<std::pair<size_t, std::pair<size_t, std::string>>> edits;  // at, (bytes replaced, with)
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!(t[i].text == "class" || t[i].text == "struct") || !t[i + 1].ident || !records.count(t[i + 1].text)) continue;
    // The body's `{` after at most a base clause: a declaration (`;`) or a type named in a function's
    // or variable's declaration (`class X* make() {`, `struct X x = {...}`) has none.
    size_t open = i + 2;
    while (open < t.size() && t[open].text != "{" && t[open].text != ";" && t[open].text != "(" &&
           t[open].text != "*" && t[open].text != "&" && t[open].text != "=")
      ++open;
    if (open >= t.size() || t[open].text != "{") continue;
    const size_t close = Match(t, open);
    if (close >= t.size()) continue;
    if (t[i].text == "class") edits.push_back({t[open].end, {0, " public: /* cuco init: members made public */"}});
    for (size_t k = open + 1; k + 1 < close; ++k)
      if ((t[k].text == "private" || t[k].text == "protected") && t[k + 1].text == ":" &&
          !(k + 2 < t.size() && t[k + 2].text == ":" && t[k + 2].begin == t[k + 1].end))
        edits.push_back({t[k].begin, {t[k].end - t[k].begin, "public /* cuco init: was " + t[k].text + " */"}});
  }
  std::sort(edits.begin(), edits.end());  // a nested record's labels are its outer one's too: once each
  edits.erase(std::unique(edits.begin(), edits.end()), edits.end());
  std::string out = text;
  for (auto e = edits.rbegin(); e != edits.rend(); ++e) out.replace(e->first, e->second.first, e->second.second);
  return out;
}

std::vector<std::pair<std::string, std::string>> CallsIn(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  for (CallSite& c : CallSitesIn(text)) out.push_back({std::move(c.name), std::move(c.args)});
  return out;
}

namespace {

// The object a call named by t[i] is made on, with its `.` or `->`: a chain of names, members and
// subscripts ending just before the call's name; "" when there is none.
std::string CallObject(const std::string& text, const std::vector<Tok>& t, size_t i) {
  // The tokens of a `.` or `->` (one token a character) just before t[at]: 1, 2, or 0 for none.
  const auto accessor = [&](size_t at) -> size_t {
    if (at >= 1 && t[at - 1].text == ".") return 1;
    if (at >= 2 && t[at - 1].text == ">" && t[at - 2].text == "-" && t[at - 2].end == t[at - 1].begin) return 2;
    return 0;
  };
  size_t a = accessor(i);
  if (a == 0) return "";
  size_t start = i;  // the chain's first token, once one is read
  for (size_t k = i - a; k > 0;) {
    --k;  // the chain's token before the accessor
    if (t[k].text == "]") {  // a subscript: back to its `[`
      int depth = 0;
      for (;; --k) {
        depth += t[k].text == "]" ? 1 : t[k].text == "[" ? -1 : 0;
        if (depth == 0 || k == 0) break;
      }
      if (depth != 0 || k == 0) return "";
      continue;
    }
    if (!t[k].ident) return "";
    start = k;
    if ((a = accessor(k)) == 0) break;
    k -= a;
  }
  return start == i ? "" : text.substr(t[start].begin, t[i].begin - t[start].begin);
}

}  // namespace

std::vector<CallSite> CallSitesIn(const std::string& text) {
  const std::vector<Tok> t = Scan(text);
  std::vector<CallSite> out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].ident) continue;
    size_t open = i + 1;
    const auto launch = [&](size_t at) {
      return at + 2 < t.size() && t[at].text == "<" && t[at + 1].text == "<" && t[at + 2].text == "<";
    };
    if (t[open].text == "<" && !launch(open)) {  // template arguments: kernel<256><<<...>>>, f<float>(...)
      int angles = 0, parens = 0;
      size_t k = open;
      for (; k < t.size() && k < open + 64; ++k) {
        const std::string& x = t[k].text;
        if (x == ";" || x == "{" || x == "}") break;
        if (x == "(") ++parens;
        if (x == ")" && --parens < 0) break;
        if (parens == 0 && x == "<") ++angles;
        if (parens == 0 && x == ">" && --angles == 0) break;
      }
      if (k < t.size() && angles == 0 && t[k].text == ">") open = k + 1;
    }
    if (open < t.size() && launch(open)) {
      // kernel<<<...>>>(args)
      size_t k = open + 3;
      int closing = 0;
      while (k < t.size() && closing < 3) closing = t[k].text == ">" ? closing + 1 : 0, ++k;
      open = k;
    }
    if (open >= t.size() || t[open].text != "(") continue;
    const size_t close = Match(t, open);
    if (close >= t.size()) continue;
    out.push_back({t[i].text, text.substr(t[open].end, t[close].begin - t[open].end), CallObject(text, t, i)});
  }
  return out;
}

}  // namespace cuco::scaffold_internal
