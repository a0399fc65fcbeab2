#include "scaffold/main_rewrite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <cctype>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <utility>

#include "scaffold/handed_lambdas.h"
#include "scaffold/loop_choice.h"
#include "scaffold/rank_split_loops.h"
#include "scaffold/region_hoist.h"
#include "scaffold/stage_loop.h"
#include "scaffold/tokens.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// A host clock: the program's own timing, which the harness does itself (and the deny list keeps
// out of EVOLVE blocks).
bool HostClock(const Tok& t) {
  return t.ident && (t.text == "chrono" || t.text == "clock_gettime" || t.text == "gettimeofday");
}

// A token that starts or reads a clock a program times with: a host clock, `cudaEventRecord`,
// `...::now()`, `MPI_Wtime`.
bool ReadsClock(const Tok& t) {
  return HostClock(t) || (t.ident && (t.text == "cudaEventRecord" || t.text == "now" || t.text == "MPI_Wtime"));
}

// The device or communication work a statement does: a CUDA/library/NCCL/MPI call or a launch.
bool DoesWork(const std::vector<Tok>& t, size_t from, size_t to) {
  for (size_t i = from; i <= to && i < t.size(); ++i) {
    if (t[i].text == "<" && i + 2 <= to && t[i + 1].text == "<" && t[i + 2].text == "<") return true;
    if (!t[i].ident) continue;
    for (const char* p : {"nccl", "cuda", "cublas", "cudnn", "MPI_"})
      if (t[i].text.rfind(p, 0) == 0) return true;
  }
  return false;
}

// The statement just before the loop at `loop_tok` starts a clock (`cudaEventRecord(start)`,
// `t0 = now()`, `MPI_Wtime()`): the program times it.
bool Timed(const std::vector<Tok>& t, size_t loop_tok) {
  if (loop_tok == 0 || t[loop_tok - 1].text != ";") return false;
  const size_t b = StatementStart(t, loop_tok - 1);
  for (size_t k = b; k < loop_tok; ++k)
    if (ReadsClock(t[k])) return true;
  return false;
}

// The loop at `loop_tok` reads a clock in its own body (not in a loop nested in it): it times each
// pass itself (`start = now(); ncclBruck(...); stop = now();` inside `for (j < runs)`).
bool TimedPerPass(const std::vector<Tok>& t, size_t loop_tok) {
  if (!IsLoopAt(t, loop_tok)) return false;
  const size_t end = LoopBodyLast(t, loop_tok);
  for (size_t k = LoopBodyFirst(t, loop_tok); k < end && k < t.size(); ++k) {
    if (t[k].ident && (t[k].text == "for" || t[k].text == "while" || t[k].text == "do")) {
      k = StatementEnd(t, k);
      continue;
    }
    if (ReadsClock(t[k])) return true;
  }
  return false;
}

// `--loop` naming a loop inside one of `loops` (the warm-up solves inside a loop over modes) that
// reaches the communication itself: that loop joins `loops`, in the branches of its outer one.
void AddNamedInnerLoop(const std::vector<Tok>& t, const std::set<std::string>& names, int line, std::vector<CommLoop>* loops) {
  if (line <= 0 || std::any_of(loops->begin(), loops->end(), [&](const CommLoop& l) { return l.line == line; })) return;
  for (const CommLoop& outer : *loops)
    for (size_t i = outer.first + 1; i < outer.last; ++i)
      if (t[i].line == line && IsLoopAt(t, i)) {
        const size_t end = StatementEnd(t, i);
        if (end <= outer.last && Calls(t, i, end, names)) {
          loops->push_back({i, end, line, outer.branches});
          return;
        }
      }
}

// Tokens (from, to] up to the first that reads a clock: the line of the first holding device work
// or communication (`work`, DeviceWorkByLine), 0 when none does, no clock is read there, or no
// work is known.
int WorkBeforeTheNextClock(const std::vector<Tok>& t, size_t from, size_t to, const std::map<int, LineWork>* work) {
  if (work == nullptr) return 0;
  int first = 0;
  for (size_t k = from + 1; k <= to && k < t.size(); ++k) {
    if (ReadsClock(t[k])) return first;
    const auto w = work->find(t[k].line);
    if (first == 0 && w != work->end() && (w->second.compute || w->second.comm)) first = t[k].line;
  }
  return 0;
}

// What the harness serves: a loop (one iteration per pass) or statements run whole (`region`).
struct Chosen {
  size_t first = 0, last = 0;
  int sweep_line = 0;
  std::vector<std::string> earlier_other;  // TimedLoop::earlier_other
  bool region = false;
  std::string what;
  std::optional<RankSplit> split;  // two loops, one per branch of a per-rank `if`, served as one
};

void Note(const LoopSearch& search, std::string line) {
  if (search.trace != nullptr && (search.trace->empty() || search.trace->back() != line))  // a second search repeats
    search.trace->push_back(std::move(line));
}

// The NCCL calls tokens [first, last] make themselves (ncclGroupStart/End left out).
std::set<std::string> OwnNcclCalls(const std::vector<Tok>& t, size_t first, size_t last) {
  std::set<std::string> calls;
  for (size_t i = first; i < last && i + 1 < t.size(); ++i)
    if (t[i].ident && t[i].text.rfind("nccl", 0) == 0 && t[i + 1].text == "(" && t[i].text != "ncclGroupStart" &&
        t[i].text != "ncclGroupEnd")
      calls.insert(t[i].text);
  return calls;
}

std::string LoopList(const std::string& file, const std::vector<CommLoop>& loops) {
  std::string out;
  for (const CommLoop& l : loops) out += fmt::format("{}{}:{}", out.empty() ? "" : ", ", file, l.line);
  return out;
}

// Among the loops that reach the communication: the one the harness serves. Loops in branches the
// program does not take when started without arguments are left out; of the others the last wins
// (a warm-up loop comes before the timed one), unless it sits in a branch whose other side holds
// another and cuco cannot tell which side runs: then it asks (--loop), listing them. Two loops in
// the branches of an `if` over the rank are served as one where they can be (*split, rank_split_loops.h).
Result<const CommLoop*> PickLoop(const std::string& file, const std::string& text, const std::vector<Tok>& t,
                                 const std::vector<CommLoop>& loops, const LoopSearch& search,
                                 std::optional<RankSplit>* split, std::vector<std::string>* earlier_other) {
  if (search.forced_line > 0) {
    for (const CommLoop& l : loops)
      if (l.line == search.forced_line) {
        Note(search, fmt::format("{}:{}: chosen: --loop names it", file, l.line));
        return &l;
      }
    return Status::InvalidArgument(fmt::format("{}:{}: --loop names no loop that reaches the communication here; those that "
                                               "do: {}", file, search.forced_line,
                                               loops.empty() ? std::string("none") : LoopList(file, loops)));
  }
  static const ProgramDefaults kNone;
  const ProgramDefaults& d = search.defaults != nullptr ? *search.defaults : kNone;
  std::vector<const CommLoop*> live;
  std::string skipped;
  for (const CommLoop& l : loops) {
    bool taken = true;
    for (const Branch& b : l.branches) {
      const Truth truth = BranchTruth(text, t[b.open].end, t[b.close].begin, d);
      if ((truth == Truth::kTrue && !b.then) || (truth == Truth::kFalse && b.then)) taken = false;
    }
    if (taken) {
      live.push_back(&l);
      continue;
    }
    skipped += fmt::format("{}{}:{}", skipped.empty() ? "" : ", ", file, l.line);
    Note(search, fmt::format("{}:{}: rejected: it sits in a branch the program does not take when started without "
                             "arguments, as the harness starts it",
                             file, l.line));
  }
  if (live.empty())
    return Status::InvalidArgument(fmt::format("{}:{}: no loop that reaches the communication runs when the program is "
                                               "started without arguments, as the harness starts it (the branches of {} "
                                               "are not taken then); choose one with `cuco init --loop FILE:LINE`",
                                               file, loops.front().line, skipped));
  const CommLoop* best = live.back();
  for (const CommLoop* other : live) {
    if (other == best) continue;
    for (const Branch& a : other->branches)
      for (const Branch& b : best->branches)
        if (a.open == b.open && a.then != b.then) {
          const Truth truth = BranchTruth(text, t[a.open].end, t[a.close].begin, d);
          const std::string cond = Trim(text.substr(t[a.open].end, t[a.close].begin - t[a.open].end));
          if (truth == Truth::kPerRank) {
            std::string why;
            if ((*split = AsRankSplit(text, t, a, *other, *best, &why))) {
              Note(search, fmt::format("{}:{}: chosen: the loops at {}:{} and {}:{}, one in each branch of `if ({})`, "
                                       "which each rank decides for itself, served as one loop whose body branches by rank",
                                       file, t[a.open].line, file, other->line, file, best->line, cond));
              return best;
            }
            return Status::InvalidArgument(fmt::format(
                "{}:{}: the loops at {}:{} and {}:{} reaching the communication sit in the two branches of `if ({})`, "
                "which each rank decides for itself, while the harness serves one loop every rank runs, and cuco init "
                "cannot make them one ({}; it can when each branch holds only its loop, their headers are alike and no "
                "loop sets what a condition reads): write one loop whose body branches by rank (`for (...) {{ if ({}) "
                "... else ... }}`)",
                file, t[a.open].line, file, other->line, file, best->line, cond, why, cond));
          }
          return Status::InvalidArgument(fmt::format(
              "{}:{}: the loops at {}:{} and {}:{} reaching the communication sit in the two branches of `if ({})`, which "
              "cuco cannot decide from the program's defaults; cuco init serves one loop: choose it with `cuco init --loop "
              "FILE:LINE`",
              file, t[a.open].line, file, other->line, file, best->line, cond));
        }
  }
  const std::set<std::string> best_calls = OwnNcclCalls(t, best->first, best->last);
  for (const CommLoop* other : live) {
    if (other == best) continue;
    // Loops each issuing NCCL calls themselves, none the same (a broadcast, then a gather of what
    // it sent): the earlier is a step before the timed one, not its warm-up.
    const std::set<std::string> own = OwnNcclCalls(t, other->first, other->last);
    const bool other_calls = !own.empty() && !best_calls.empty() &&
                             std::none_of(own.begin(), own.end(), [&](const std::string& c) { return best_calls.count(c); });
    if (!other_calls) {
      Note(search, fmt::format("{}:{}: rejected: a loop that runs before the last one (a warm-up)", file, other->line));
      continue;
    }
    earlier_other->push_back(fmt::format("line {} ({})", other->line, fmt::join(own, ", ")));
    Note(search, fmt::format("{}:{}: not served: it runs before the last loop and issues other NCCL calls ({}) than it "
                             "({}): a step before it, not a warm-up, which the harness runs once in its set-up; "
                             "`cuco init --loop {}:{}` serves it instead",
                             file, other->line, fmt::join(own, ", "), fmt::join(best_calls, ", "), file, other->line));
  }
  Note(search, fmt::format("{}:{}: chosen: the last loop reaching the communication that runs", file, best->line));
  return best;
}

// The statements from the function's first to its last that reach the communication, every
// ncclGroupStart/End around either end included; nullopt when none does.
std::optional<std::pair<size_t, size_t>> GroupedRegion(const std::vector<Tok>& t, size_t body_open, size_t body_close,
                                                       const std::set<std::string>& names) {
  auto region = CommRegion(t, body_open, body_close, names);
  if (!region) return std::nullopt;
  if (auto g = GroupAround(t, body_open, region->first, region->first)) region->first = std::min(region->first, g->first);
  if (auto g = GroupAround(t, body_open, region->second, region->second)) region->second = std::max(region->second, g->second);
  return region;
}

// Whether every loop reaching the communication is one grouped operation (a loop over peers or
// GPUs inside ncclGroupStart/End) and the function communicates beyond the last one's group
// (several one-shot steps, such as two grouped all-reduces with a kernel between): then no loop
// is an iteration, and the iteration is all the steps (the earlier groups are no warm-up).
bool OnlyGroupedSteps(const std::vector<Tok>& t, size_t body_open, size_t body_close, const std::set<std::string>& names,
                      const std::vector<CommLoop>& loops) {
  for (const CommLoop& l : loops)
    if (!GroupAround(t, body_open, l.first, l.last)) return false;
  const auto last = GroupAround(t, body_open, loops.back().first, loops.back().last);
  const auto region = GroupedRegion(t, body_open, body_close, names);
  return region && (region->first < last->first || region->second > last->second);
}

// A host array the loop's passes read in a condition and then set (a task scheduler's flags:
// `if (!done[k]) { ...; done[k] = true; }`, the array declared before the loop): its name, the line
// of the first condition reading it and of the first pass setting it. Such passes are not
// repetitions of one iteration (each later pass finds the flags the earlier ones set), so none of
// them can stand for the iteration. nullopt when the loop [first, last] has none.
struct PassSetFlag {
  std::string name;
  int read_line = 0, set_line = 0;
};
std::optional<PassSetFlag> FlagsThePassesSet(const std::vector<Tok>& t, size_t body_open, size_t first, size_t last) {
  std::set<std::string> before;  // the names the function spells before the loop
  for (size_t k = body_open; k < first && k < t.size(); ++k)
    if (t[k].ident) before.insert(t[k].text);
  std::map<std::string, int> read_in_condition;
  for (size_t k = first + 1; k + 1 <= last && k + 1 < t.size(); ++k) {
    if (t[k].ident && (t[k].text == "if" || t[k].text == "while") && t[k + 1].text == "(") {
      const size_t close = Match(t, k + 1);
      for (size_t m = k + 2; m < close && m + 1 < t.size(); ++m)
        if (t[m].ident && before.count(t[m].text) && t[m + 1].text == "[" && MemberObject(t, m) >= t.size())
          read_in_condition.emplace(t[m].text, t[m].line);
    }
    if (!t[k].ident || t[k + 1].text != "[" || !read_in_condition.count(t[k].text) || MemberObject(t, k) < t.size()) continue;
    const size_t close = Match(t, k + 1);
    if (close + 2 >= t.size() || close > last) continue;
    const std::string& op = t[close + 1].text;
    const bool assigns = (op == "=" && t[close + 2].text != "=") ||
                         ((op == "+" || op == "-" || op == "|" || op == "&") && t[close + 2].text == "=");
    if (assigns) return PassSetFlag{t[k].text, read_in_condition[t[k].text], t[k].line};
  }
  return std::nullopt;
}

// Ok, or kInvalidArgument naming the line when the passes of the loop at tokens [first, last] set
// the flags they read (FlagsThePassesSet: a task scheduler), so that no pass stands for the others.
Status PassesRepeat(const std::string& file, const std::vector<Tok>& t, size_t body_open, size_t first, size_t last) {
  const auto flag = FlagsThePassesSet(t, body_open, first, last);
  if (!flag) return Status::Ok();
  const int line = t[first].line;
  return Status::InvalidArgument(fmt::format(
      "{}:{}: each pass of the loop at line {} decides what to do from `{}` (read at line {}), which the passes "
      "themselves set (line {}): its passes are not repetitions of one iteration (a task scheduler), so no pass "
      "can stand for the harness's iteration; name a loop whose passes repeat the same work with --loop file:line",
      file, line, line, flag->name, flag->read_line, flag->set_line));
}

// The checks a loop served alone gets, for each loop of a per-rank `if` made one (rank_split_loops.h):
// passes that set the flags they read (a task scheduler) are no iteration, and a loop inside
// ncclGroupStart/End (its arm's statements before and after it) or over the GPUs is one operation,
// never served a pass at a time. kInvalidArgument naming the line, or Ok.
Status SplitArmsServable(const std::string& file, const std::vector<Tok>& t, size_t body_open, const RankSplit& split,
                         const LoopSearch& search) {
  for (const RankSplit::Arm& a : split.arms) {
    const int line = t[a.loop].line;
    CUCO_RETURN_IF_ERROR(PassesRepeat(file, t, body_open, a.loop, a.last));
    const bool grouped = GroupAround(t, body_open, a.loop, a.last).has_value();
    if (grouped || PerGpuLoop(t, a.loop, search.gpu_count))
      return Status::InvalidArgument(fmt::format(
          "{}:{}: the loop at line {}, one of those in the branches of `if ({})` that each rank decides for itself, "
          "is {}: one operation, which cuco init cannot serve a pass at a time beside the other branch's loop; write "
          "one loop whose body branches by rank (`for (...) {{ if ({}) ... else ... }}`)",
          file, line, line, split.arms.front().cond,
          grouped ? "inside ncclGroupStart/End" : "a loop over the program's GPUs",
          split.arms.front().cond));
  }
  return Status::Ok();
}

// A lambda in tokens [from, to] handed to a helper that calls it once a pass (handed_lambdas.h):
// its body is the iteration (*c), served from the helper's first call (its warm-up) on. False, and
// *c untouched, when there is none.
bool HandedIteration(const std::string& file, const std::vector<Tok>& t, size_t from, size_t to,
                     const std::set<std::string>& names, const std::string& loop_function, const LoopSearch& search,
                     Chosen* c) {
  if (search.repeaters == nullptr || search.forced_line != 0) return false;
  const auto l = LastHandedLambda(t, from, to, *search.repeaters, names);
  if (!l || l->close <= l->open + 1) return false;
  c->first = l->open + 1, c->last = l->close - 1, c->region = true;
  c->what = fmt::format("lines {}-{}, the body of the lambda {} hands {} at line {}, which calls it once a pass (the "
                        "harness takes over at the helper's first call)",
                        t[c->first].line, t[c->last].line, loop_function, l->callee, t[l->open].line);
  Note(search, file + ": " + c->what);
  return true;
}

// When no loop communicates: the statements `region` holds, run whole, from the compute feeding them
// (feeding_compute.h) where the search knows the program's device work.
void ServeOnce(const std::vector<Tok>& t, size_t body_open, std::pair<size_t, size_t> region,
               const std::string& loop_function, const LoopSearch& search, Chosen* c) {
  const size_t feeding =
      search.work ? FeedingComputeStart(t, body_open, region.first, region.second, *search.work) : region.first;
  const std::string span =
      feeding < region.first
          ? fmt::format("from the compute at line {} that produces what the communication reads to the last statement of {} "
                        "that reaches it",
                        t[feeding].line, loop_function)
          : fmt::format("from the first to the last statement of {} that reaches the communication", loop_function);
  c->first = feeding, c->last = region.second, c->region = true;
  c->what = fmt::format("lines {}-{}, {}, run whole (no loop of {} does: the program communicates once)", t[c->first].line,
                        t[c->last].line, span, loop_function);
}

// The loop [c->first, c->last] whose passes are stages (stage_loop.h, its variable `stage`): run
// whole, with the statements before it that prime it.
void ServeStages(const std::string& file, const std::vector<Tok>& t, const std::string& stage,
                 const std::set<std::string>& names, const LoopSearch& search, Chosen* c) {
  const size_t prime = PrimingStart(t, c->first, names);
  c->region = true;
  c->what = fmt::format("lines {}-{}: the loop at line {} run whole, its passes the stages of one computation (each "
                        "communicates with the root or peer its variable `{}` picks){}",
                        t[prime].line, t[c->last].line, t[c->first].line, stage,
                        prime < c->first ? ", with the statements before it that prime it" : "");
  c->first = prime, c->sweep_line = 0;
  Note(search, file + ": " + c->what);
}

// A loop that is not timed itself but holds one that is (a sweep over message sizes around
// `cudaEventRecord(start); for (i < iters) ncclAllReduce(...);`, or around a loop timing each of its
// passes): the timed one becomes the iteration, [c->first, c->last]. True when a lambda handed to a
// repeater inside it is the iteration instead (`handed` set *c: it is complete).
bool DescendIntoSweeps(const std::string& file, const std::vector<Tok>& t, const std::set<std::string>& names,
                       const LoopSearch& search, const std::function<bool(size_t, size_t)>& handed, Chosen* c) {
  while (search.forced_line == 0 && !Timed(t, c->first)) {
    size_t inner = t.size(), inner_end = t.size();
    const size_t body = LoopBodyFirst(t, c->first);
    for (size_t i = body; i < c->last; ++i)
      if (IsLoopAt(t, i)) {
        const size_t end = StatementEnd(t, i);
        if (end < c->last && Calls(t, i, end, names) && (Timed(t, i) || TimedPerPass(t, i))) inner = i, inner_end = end;
      }
    if (inner >= t.size()) {
      const int outer_line = t[c->first].line;
      if (handed(body, c->last)) {
        if (c->sweep_line == 0) c->sweep_line = outer_line;
        return true;
      }
      break;
    }
    // A clock started by the outer body's first statement times the whole pass (a step of
    // micro-batches): the outer loop is the iteration, not a sweep around a timed one.
    const size_t clock = StatementStart(t, inner - 1);
    if (t[body].text == "{" && clock == body + 1) break;
    // So does a clock started before the inner loop and read next only past more device work of
    // the pass (a ring's steps, then its final merge, timed together with MPI_Wtime).
    if (const int past = WorkBeforeTheNextClock(t, inner_end, c->last, search.work); Timed(t, inner) && past > 0) {
      Note(search, fmt::format("{}:{}: the clock started before the loop at line {} is read next only after the "
                               "device work at line {}: each pass of the loop at line {} is the timed unit, not a sweep",
                               file, t[inner].line, t[inner].line, past, t[c->first].line));
      break;
    }
    if (c->sweep_line == 0) c->sweep_line = t[c->first].line;
    Note(search, fmt::format("{}:{}: not timed itself; the timed loop inside it, at line {}, is the iteration (a sweep)",
                             file, t[c->first].line, t[inner].line));
    c->first = inner, c->last = inner_end;
  }
  return false;
}

Result<Chosen> ChooseIteration(const std::string& file, const std::string& text, const std::vector<Tok>& t, size_t body_open,
                               size_t body_close, const std::set<std::string>& names, const std::string& loop_function,
                               const LoopSearch& search, int fn_line) {
  std::vector<CommLoop> loops = CommLoops(t, body_open, body_close, names);
  AddNamedInnerLoop(t, names, search.forced_line, &loops);
  Chosen c;
  auto handed = [&](size_t from, size_t to) { return HandedIteration(file, t, from, to, names, loop_function, search, &c); };
  if (!loops.empty() && search.forced_line == 0 &&
      OnlyGroupedSteps(t, body_open, body_close, names, loops)) {
    const auto region = GroupedRegion(t, body_open, body_close, names);
    c.first = region->first, c.last = region->second, c.region = true;
    c.what = fmt::format("lines {}-{}, from the first to the last statement of {} that reaches the communication, run "
                         "whole (the loops reaching it, {}, each run inside ncclGroupStart/End: grouped steps, not "
                         "iterations)",
                         t[c.first].line, t[c.last].line, loop_function, LoopList(file, loops));
    Note(search, file + ": " + c.what);
    return c;
  }
  if (!loops.empty()) {
    Note(search, fmt::format("the loops of {} reaching the communication: {}", loop_function, LoopList(file, loops)));
    Result<const CommLoop*> l = PickLoop(file, text, t, loops, search, &c.split, &c.earlier_other);
    if (!l.ok()) return l.status();
    c.first = (*l)->first, c.last = (*l)->last;
    if (c.split) {  // the whole `if`: its two loops are one
      if (Status why = SplitArmsServable(file, t, body_open, *c.split, search); !why.ok()) return why;
      c.first = c.split->if_token, c.last = c.split->last;
      std::string lines;
      for (size_t i = 0; i < c.split->arms.size(); ++i)
        lines += fmt::format("{}{}", i == 0 ? "" : i + 1 == c.split->arms.size() ? " and " : ", ",
                             t[c.split->arms[i].loop].line);
      c.what = fmt::format("the loops at lines {} of {}, one in each branch of `if ({})`, which each rank decides "
                           "for itself, served as one loop whose body branches by rank",
                           lines, loop_function, c.split->arms.front().cond);
      return c;
    }
    if (DescendIntoSweeps(file, t, names, search, handed, &c)) return c;
    const int loop_line = t[c.first].line;
    if (search.forced_line == 0) CUCO_RETURN_IF_ERROR(PassesRepeat(file, t, body_open, c.first, c.last));
    // A loop over peers or GPUs inside ncclGroupStart/End is one grouped operation, and a loop over
    // the GPUs of a program driving them all is every GPU's part: run whole, never one pass of it.
    // So is a loop whose passes are stages of one computation (stage_loop.h), with what primes it.
    const std::string stage = search.forced_line == 0 ? StageVariable(t, c.first, c.last) : "";
    if (auto g = GroupAround(t, body_open, c.first, c.last)) {
      c.region = true;
      c.what = fmt::format("the grouped NCCL calls of lines {}-{} (ncclGroupStart ... ncclGroupEnd around the loop at line "
                           "{}), run whole: one grouped operation, not an iteration per pass",
                           t[g->first].line, t[g->second].line, loop_line);
      c.first = g->first, c.last = g->second, c.sweep_line = 0;
      Note(search, file + ": " + c.what);
    } else if (PerGpuLoop(t, c.first, search.gpu_count)) {
      c.region = true;
      c.what = fmt::format("the loop over the program's GPUs at line {}, run whole: each pass is one GPU's part", loop_line);
      c.sweep_line = 0;
      Note(search, file + ": " + c.what);
    } else if (!stage.empty()) {
      ServeStages(file, t, stage, names, search, &c);
    }
    return c;
  }
  Note(search, fmt::format("{}:{}: no loop of {} reaches the communication", file, fn_line, loop_function));
  if (handed(body_open + 1, body_close - 1)) return c;
  // Each end extended to the group around it: two calls in one group (`CHECK(ncclGroupStart());
  // CHECK(ncclReduce(x..)); CHECK(ncclReduce(y..)); CHECK(ncclGroupEnd());`) are one operation.
  auto region = search.allow_region ? GroupedRegion(t, body_open, body_close, names) : std::nullopt;
  if (!region)
    return Status::NotFound(fmt::format(
        "{}:{}: no loop in {} calls the program's communication (a timed loop such as `for (...) step(...);` whose "
        "step reaches an NCCL call, through calls cuco can follow: not function pointers); cuco init makes the last "
        "such loop the harness's iteration",
        file, fn_line, loop_function));
  ServeOnce(t, body_open, *region, loop_function, search, &c);
  Note(search, file + ": " + c.what);
  return c;
}

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

// A function's definition in `t`: `name (` ... `)` `{`; the token of its name (its body's `{` in
// *body), or t.size(). A member (`a.name(`, `p->name(`, `C::name(`) is not it; a return type ending
// in `>` (`std::vector<T> name(`) is.
size_t Definition(const std::vector<Tok>& t, const std::string& name, size_t* body) {
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!(t[i].ident && t[i].text == name && t[i + 1].text == "(")) continue;
    const bool arrow = i > 1 && t[i - 1].text == ">" && t[i - 2].text == "-" && t[i - 2].end == t[i - 1].begin;
    if (i > 0 && (t[i - 1].text == "." || arrow || t[i - 1].text == ":")) continue;
    const size_t close = Match(t, i + 1);
    if (close + 1 < t.size() && t[close + 1].text == "{") {
      *body = close + 1;
      return i;
    }
  }
  return t.size();
}

// Whether the function whose name is token `at` of `t` takes parameters: not `()` nor `(void)`.
bool TakesArguments(const std::vector<Tok>& t, size_t at) {
  const size_t params_close = Match(t, at + 1);
  return params_close > at + 2 && !(params_close == at + 3 && t[at + 2].text == "void");
}

}  // namespace

Result<TimedLoop> FindTimedLoop(const std::string& file, const std::string& text, const std::set<std::string>& comm_names,
                                const std::string& loop_function, size_t within, const LoopSearch& search) {
  const std::vector<Tok> t = Scan(text);
  size_t main_body = t.size();
  const size_t main_at = Definition(t, "main", &main_body);
  if (main_at >= t.size() && !search.main_elsewhere)
    return Status::InvalidArgument(file + ": no `main` defined here; give the file that defines main first");
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
    fn_at = Definition(t, loop_function, &body_open);
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
  loop.region = chosen->region;
  loop.what = chosen->what;
  if (loop.region) {  // statements run whole: no loop variable to hold
    const size_t main_end = t[main_body < t.size() ? Match(t, main_body) : body_close].begin;
    const HoistedRegion h = HoistDeclarations(text.substr(t[best].begin, t[best_end].end - t[best].begin),
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
  const std::string serve = "/* cuco init: the program's timed loop, one harness iteration per call of the body */\n  " +
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

std::string DropHostTiming(const std::string& body, std::vector<size_t>* dropped) {
  const std::vector<Tok> t = Scan(body);
  if (t.empty() || t.front().text != "{") return body;
  const size_t close = Match(t, 0);
  struct Statement {
    size_t first, last;
    bool timing;
    std::string declares;  // `auto start = ...`: start
  };
  std::vector<Statement> statements;
  for (size_t i = 1; i < close;) {
    const size_t e = std::min(StatementEnd(t, i), close - 1);
    bool clock = false;
    for (size_t k = i; k <= e; ++k) clock |= HostClock(t[k]);
    Statement st{i, e, clock && !DoesWork(t, i, e), ""};
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
  // A variable a timing statement declares must not be used by a statement that stays.
  for (const Statement& d : statements) {
    if (!d.timing || d.declares.empty()) continue;
    for (const Statement& k : statements)
      if (!k.timing)
        for (size_t x = k.first; x <= k.last; ++x)
          if (t[x].ident && t[x].text == d.declares) return body;
  }
  std::string out = body;
  for (const Statement& st : statements) {
    if (!st.timing) continue;
    for (size_t c = t[st.first].begin; c < t[st.last].end; ++c)
      if (out[c] != '\n') out[c] = ' ';
    if (dropped != nullptr) dropped->push_back(t[st.first].begin);
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
  const size_t at = Definition(t, "main", &body);
  return at >= t.size() || TakesArguments(t, at);
}

std::string RewriteMpiIncludes(const std::string& text) {
  static const std::regex inc(R"((^|\n)([ \t]*#[ \t]*include[ \t]*)[<"]mpi\.h[>"])");
  return std::regex_replace(text, inc, "$1$2<cuco/program/mpi.h>");
}

std::vector<std::pair<int, int>> ConditionalLines(const std::string& text, size_t begin, size_t end) {
  const std::vector<Tok> t = Scan(text);
  std::vector<std::pair<int, int>> out;
  for (size_t i = 0; i < t.size(); ++i)
    if (t[i].ident && t[i].text == "if" && t[i].begin >= begin && t[i].begin < end) {
      const size_t e = StatementEnd(t, i);
      out.push_back({t[i].line, e < t.size() ? t[e].line : t.back().line});
    }
  return out;
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
