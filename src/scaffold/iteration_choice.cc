#include "scaffold/iteration_choice.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "scaffold/feeding_compute.h"
#include "scaffold/handed_lambdas.h"
#include "scaffold/loop_choice.h"
#include "scaffold/program_text.h"
#include "scaffold/stage_loop.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {

// A host clock: the program's own timing, which the harness does itself (and the deny list keeps
// out of EVOLVE blocks).
bool HostClock(const Tok& t) {
  return t.ident && (t.text == "chrono" || t.text == "clock_gettime" || t.text == "gettimeofday");
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

namespace {

// A token that starts or reads a clock a program times with: a host clock, `cudaEventRecord`,
// `...::now()`, `MPI_Wtime`.
bool ReadsClock(const Tok& t) {
  return HostClock(t) || (t.ident && (t.text == "cudaEventRecord" || t.text == "now" || t.text == "MPI_Wtime"));
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
// work is known; *read_at, then, the token reading the clock.
int WorkBeforeTheNextClock(const std::vector<Tok>& t, size_t from, size_t to, const std::map<int, LineWork>* work,
                           size_t* read_at) {
  if (work == nullptr) return 0;
  int first = 0;
  for (size_t k = from + 1; k <= to && k < t.size(); ++k) {
    if (ReadsClock(t[k])) {
      *read_at = k;
      return first;
    }
    const auto w = work->find(t[k].line);
    if (first == 0 && w != work->end() && (w->second.compute || w->second.comm)) first = t[k].line;
  }
  return 0;
}

// Whether tokens [from, to) hold whole brace pairs only: statements of one block.
bool Balanced(const std::vector<Tok>& t, size_t from, size_t to) {
  int depth = 0;
  for (size_t k = from; k < to && k < t.size(); ++k) {
    depth += t[k].text == "{" ? 1 : t[k].text == "}" ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth == 0 && to > from;
}

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

// The loop --loop names (search.forced_line), with its twin in the other arm of an `if` each rank
// decides (a send loop and a receive loop) made one with it where the two can be (*split).
Result<const CommLoop*> ForcedLoop(const std::string& file, const std::string& text, const std::vector<Tok>& t,
                                   const std::vector<CommLoop>& loops, const LoopSearch& search, const ProgramDefaults& d,
                                   std::optional<RankSplit>* split) {
  for (const CommLoop& l : loops)
    if (l.line == search.forced_line) {
      Note(search, fmt::format("{}:{}: chosen: {}", file, l.line, search.forced_why));
      for (const CommLoop& other : loops)
        for (const Branch& a : other.branches)
          for (const Branch& b : l.branches)
            if (&other != &l && a.open == b.open && a.then != b.then && !*split &&
                BranchTruth(text, t[a.open].end, t[a.close].begin, d) == Truth::kPerRank) {
              std::string why;
              if ((*split = AsRankSplit(text, t, a, other, l, &why)))
                Note(search, fmt::format("{}:{}: with the loop at {}:{}, in the other branch of `if ({})`, which each rank "
                                         "decides for itself: served as one loop whose body branches by rank",
                                         file, l.line, file, other.line,
                                         Trim(text.substr(t[a.open].end, t[a.close].begin - t[a.open].end))));
            }
      return &l;
    }
  return Status::InvalidArgument(fmt::format("{}:{}: --loop names no loop that reaches the communication here; those that "
                                             "do: {}", file, search.forced_line,
                                             loops.empty() ? std::string("none") : LoopList(file, loops)));
}

// Among the loops that reach the communication: the one the harness serves. Loops in branches the
// program does not take when started without arguments are left out; of the others the last wins
// (a warm-up loop comes before the timed one), unless it sits in a branch whose other side holds
// another and cuco cannot tell which side runs: then it asks (--loop), listing them. Two loops in
// the branches of an `if` over the rank are served as one where they can be (*split, rank_split_loops.h).
Result<const CommLoop*> PickLoop(const std::string& file, const std::string& text, const std::vector<Tok>& t,
                                 const std::vector<CommLoop>& loops, const LoopSearch& search,
                                 std::optional<RankSplit>* split, std::vector<std::string>* earlier_other) {
  static const ProgramDefaults kNone;
  const ProgramDefaults& d = search.defaults != nullptr ? *search.defaults : kNone;
  if (search.forced_line > 0) return ForcedLoop(file, text, t, loops, search, d, split);
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

// Statements [first, last] of the block [body_open, body_close] taken out to the preprocessor
// conditionals they hold part of (`#ifdef FLAG printf(...); ncclGroupStart(); #endif` at an end),
// where what that adds are whole statements of the same block that call nothing but prints; as they
// were where not (set-up in the conditional stays set-up, and the choice is refused).
std::pair<size_t, size_t> ConditionalsWhole(const std::string& text, const std::vector<Tok>& t, size_t body_open,
                                            size_t body_close, std::pair<size_t, size_t> region) {
  const auto [b, e] = WithConditionalsWhole(text, t[region.first].begin, t[region.second].end);
  size_t first = region.first, last = region.second;
  while (first > body_open + 1 && t[first - 1].begin >= b) --first;
  while (last + 1 < body_close && t[last + 1].end <= e) ++last;
  static const std::set<std::string> kPrints = {"printf", "fprintf", "puts", "fputs", "fflush"};
  auto whole = [&](size_t from, size_t to) {  // tokens [from, to): statements of one block, printing at most
    int depth = 0;
    for (size_t i = from; i < to; ++i) {
      depth += t[i].text == "{" ? 1 : t[i].text == "}" ? -1 : 0;
      const bool call = t[i].ident && i + 1 < t.size() && t[i + 1].text == "(" && !KeywordBeforeParen(t[i].text);
      if (depth < 0 || (call && !kPrints.count(t[i].text))) return false;
    }
    return depth == 0;
  };
  if (StatementStart(t, first, body_open + 1) != first || !whole(first, region.first) || !whole(region.second + 1, last + 1) ||
      (last > region.second && t[last].text != ";" && t[last].text != "}"))
    return region;
  return {first, last};
}

// The statements from the function's first to its last that reach the communication, every
// ncclGroupStart/End around either end included, and every preprocessor conditional they hold part
// of where it can be; nullopt when none does.
std::optional<std::pair<size_t, size_t>> GroupedRegion(const std::string& text, const std::vector<Tok>& t, size_t body_open,
                                                       size_t body_close, const std::set<std::string>& names) {
  auto region = CommRegion(t, body_open, body_close, names);
  if (!region) return std::nullopt;
  if (auto g = GroupAround(t, body_open, region->first, region->first)) region->first = std::min(region->first, g->first);
  if (auto g = GroupAround(t, body_open, region->second, region->second)) region->second = std::max(region->second, g->second);
  return ConditionalsWhole(text, t, body_open, body_close, *region);
}

// Whether every loop reaching the communication is one grouped operation (a loop over peers or
// GPUs inside ncclGroupStart/End) and the function communicates beyond the last one's group
// (several one-shot steps, such as two grouped all-reduces with a kernel between): then no loop
// is an iteration, and the iteration is all the steps (the earlier groups are no warm-up).
bool OnlyGroupedSteps(const std::string& text, const std::vector<Tok>& t, size_t body_open, size_t body_close, const std::set<std::string>& names,
                      const std::vector<CommLoop>& loops) {
  for (const CommLoop& l : loops)
    if (!GroupAround(t, body_open, l.first, l.last)) return false;
  const auto last = GroupAround(t, body_open, loops.back().first, loops.back().last);
  const auto region = GroupedRegion(text, t, body_open, body_close, names);
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

// The calls of `names` tokens [from, to] make.
std::set<std::string> NamesCalled(const std::vector<Tok>& t, size_t from, size_t to, const std::set<std::string>& names) {
  std::set<std::string> called;
  for (size_t i = from; i <= to && i < t.size(); ++i)
    if (Calls(t, i, i, names)) called.insert(t[i].text);
  return called;
}

// A statement that only waits (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
// MPI_Barrier, in a checking macro or not): tokens [from, to].
bool OnlyWaits(const std::vector<Tok>& t, size_t from, size_t to) {
  for (size_t i = from; i <= to && i < t.size(); ++i)
    if (t[i].ident && (t[i].text == "cudaDeviceSynchronize" || t[i].text == "cudaStreamSynchronize" ||
                       t[i].text == "cudaEventSynchronize" || t[i].text == "MPI_Barrier"))
      return true;
  return false;
}

// In `region`, the statements of a function whose loops reach no communication: a clock started
// after the same calls ran once untimed (a warm-up) and read right after the calls again, past waits
// only (`warmup(...); cudaEventRecord(start); warmup(...); cudaEventRecord(stop);`). The clocked
// statements, tokens [first, region's last], are what the program times; nullopt where there is no
// such clock, or other calls ran before it.
std::optional<std::pair<size_t, size_t>> ClockedAfterAWarmUp(const std::vector<Tok>& t, std::pair<size_t, size_t> region,
                                                             const std::set<std::string>& names) {
  size_t clock_end = t.size();  // the last statement starting a clock inside the region
  for (size_t k = region.first; k <= region.second && k < t.size(); ++k)
    if (ReadsClock(t[k])) clock_end = StatementEnd(t, StatementStart(t, k, region.first));
  if (clock_end >= region.second) return std::nullopt;
  const size_t first = clock_end + 1;
  const std::set<std::string> before = NamesCalled(t, region.first, clock_end, names);
  const std::set<std::string> timed = NamesCalled(t, first, region.second, names);
  if (before.empty() || !std::includes(timed.begin(), timed.end(), before.begin(), before.end()) ||
      !Balanced(t, first, region.second + 1))
    return std::nullopt;
  for (size_t k = region.second + 1; k < t.size() && t[k].text != "}";) {
    const size_t end = StatementEnd(t, k);
    if (end >= t.size()) return std::nullopt;
    for (size_t i = k; i <= end; ++i)
      if (ReadsClock(t[i])) return std::make_pair(first, region.second);
    if (!OnlyWaits(t, k, end)) return std::nullopt;
    k = end + 1;
  }
  return std::nullopt;
}

// The loop [c->first, c->last] whose passes are stages or parts of the data (stage_loop.h): run
// whole, with the statements before it that prime it. `passes` says what its passes are.
void ServeStages(const std::string& file, const std::vector<Tok>& t, const std::string& passes,
                 const std::set<std::string>& names, const LoopSearch& search, Chosen* c) {
  const size_t prime = PrimingStart(t, c->first, names);
  c->region = true;
  c->what = fmt::format("lines {}-{}: the loop at line {} run whole, its passes {}{}", t[prime].line, t[c->last].line,
                        t[c->first].line, passes, prime < c->first ? ", with the statements before it that prime it" : "");
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
    // A clock started before the inner loop and read next only past more device work of the pass
    // (a ring's steps, then its final merge, timed together with MPI_Wtime; a training step's
    // micro-batches, then its optimizer) times what lies between: those statements are the
    // iteration, run in the outer loop's first pass. Where they are not one block's statements,
    // the whole pass is.
    size_t read = t.size();
    if (const int past = WorkBeforeTheNextClock(t, inner_end, c->last, search.work, &read); Timed(t, inner) && past > 0) {
      const size_t read_statement = StatementStart(t, read, inner_end + 1);
      if (Balanced(t, inner, read_statement)) {
        c->region = true;
        c->sweep_line = t[c->first].line;
        c->what = fmt::format("lines {}-{}, what the clock started before the loop at line {} times up to its read at line "
                              "{} (that loop, then the device work from line {}), run whole in the first pass of the "
                              "loop at line {}",
                              t[inner].line, t[read_statement - 1].line, t[inner].line, t[read].line, past,
                              t[c->first].line);
        c->first = inner, c->last = read_statement - 1;
        Note(search, file + ":" + std::to_string(t[inner].line) + ": " + c->what);
        return true;
      }
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

}  // namespace

Result<Chosen> ChooseIteration(const std::string& file, const std::string& text, const std::vector<Tok>& t, size_t body_open,
                               size_t body_close, const std::set<std::string>& names, const std::string& loop_function,
                               const LoopSearch& search, int fn_line) {
  std::vector<CommLoop> loops = CommLoops(t, body_open, body_close, names);
  AddNamedInnerLoop(t, names, search.forced_line, &loops);
  Chosen c;
  auto handed = [&](size_t from, size_t to) { return HandedIteration(file, t, from, to, names, loop_function, search, &c); };
  if (!loops.empty() && search.forced_line == 0 &&
      OnlyGroupedSteps(text, t, body_open, body_close, names, loops)) {
    const auto region = GroupedRegion(text, t, body_open, body_close, names);
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
    const std::string walk = search.forced_line == 0 && stage.empty() ? WalkVariable(t, c.first, c.last) : "";
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
      ServeStages(file, t,
                  fmt::format("the stages of one computation (each communicates with the root or peer its variable `{}` "
                              "picks)", stage),
                  names, search, &c);
    } else if (!walk.empty()) {
      ServeStages(file, t,
                  fmt::format("the parts of one computation over the data (its variable `{}` offsets the buffers each "
                              "pass works on, so one pass alone would leave the rest unwritten)", walk),
                  names, search, &c);
    }
    return c;
  }
  Note(search, fmt::format("{}:{}: no loop of {} reaches the communication", file, fn_line, loop_function));
  if (handed(body_open + 1, body_close - 1)) return c;
  // Each end extended to the group around it: two calls in one group (`CHECK(ncclGroupStart());
  // CHECK(ncclReduce(x..)); CHECK(ncclReduce(y..)); CHECK(ncclGroupEnd());`) are one operation.
  auto region = search.allow_region ? GroupedRegion(text, t, body_open, body_close, names) : std::nullopt;
  if (!region)
    return Status::NotFound(fmt::format(
        "{}:{}: no loop in {} calls the program's communication (a timed loop such as `for (...) step(...);` whose "
        "step reaches an NCCL call, through calls cuco can follow: not function pointers); cuco init makes the last "
        "such loop the harness's iteration",
        file, fn_line, loop_function));
  if (auto clocked = ClockedAfterAWarmUp(t, *region, names)) {
    c.first = clocked->first, c.last = clocked->second, c.region = true;
    c.what = fmt::format("lines {}-{}, what the program's clock times after running the same calls once untimed "
                         "at line {} (a warm-up), run whole (no loop of {} reaches the communication)",
                         t[c.first].line, t[c.last].line, t[region->first].line, loop_function);
  } else {
    ServeOnce(t, body_open, *region, loop_function, search, &c);
  }
  Note(search, file + ": " + c.what);
  return c;
}

}  // namespace cuco::scaffold_internal
