#include "scaffold/rank_split_loops.h"

#include <cctype>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "scaffold/region_hoist.h"
#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// Whether the statement at `i` is a loop cuco can serve: `for (` or `while (`.
bool ServableLoop(const std::vector<Tok>& t, size_t i) {
  return t[i].ident && (t[i].text == "for" || t[i].text == "while") && i + 1 < t.size() && t[i + 1].text == "(";
}

// The loop a branch's statement at `first` holds: the statement itself, or the last loop among the
// statements of its block (the statements before it are its rank's set-up). t.size() when there is
// none. *last: the branch statement's last token.
size_t ArmLoop(const std::vector<Tok>& t, size_t first, size_t* last) {
  *last = StatementEnd(t, first);
  if (*last >= t.size()) return t.size();
  if (t[first].text != "{") return ServableLoop(t, first) ? first : t.size();
  size_t loop = t.size();
  for (size_t s = first + 1; s < *last;) {
    const size_t e = StatementEnd(t, s);
    if (e >= *last) return t.size();
    if (ServableLoop(t, s)) loop = s;
    s = e + 1;
  }
  return loop;
}

// The loop's header, `for (...)` or `while (...)`, without its white space (the scan keeps no numbers).
std::string Header(const std::string& text, const std::vector<Tok>& t, size_t loop) {
  const size_t close = Match(t, loop + 1);
  std::string h;
  for (const char ch : text.substr(t[loop].begin, t[close].end - t[loop].begin))
    if (!std::isspace(static_cast<unsigned char>(ch))) h += ch;
  return h;
}

// Whether tokens [from, to] assign one of `names` (`x =`, `x +=`, `x++`, `++x`, `&x` handed on).
bool Sets(const std::vector<Tok>& t, size_t from, size_t to, const std::set<std::string>& names) {
  for (size_t i = from; i <= to && i < t.size(); ++i) {
    if (!t[i].ident || !names.count(t[i].text)) continue;
    const std::string next = i + 1 < t.size() ? t[i + 1].text : "";
    const std::string after = i + 2 < t.size() ? t[i + 2].text : "";
    const std::string prev = i > 0 ? t[i - 1].text : "", before = i > 1 ? t[i - 2].text : "";
    if ((next == "=" && after != "=") || ((next == "+" || next == "-") && after == next) || (prev == "&" && before != "&"))
      return true;
    if (after == "=" && (next == "+" || next == "-" || next == "*" || next == "/" || next == "|" || next == "&"))
      return true;
    if ((prev == "+" || prev == "-") && before == prev) return true;
  }
  return false;
}

}  // namespace

std::optional<RankSplit> AsRankSplit(const std::string& text, const std::vector<Tok>& t, const Branch& branch,
                                     const CommLoop& x, const CommLoop& y, std::string* why) {
  RankSplit s;
  if (branch.open == 0 || t[branch.open - 1].text != "if") {
    *why = "the branches are not an `if`'s";
    return std::nullopt;
  }
  s.if_token = branch.open - 1;
  std::set<std::string> read;  // what the conditions read
  // The arm whose statement starts at `first` (its condition `cond`, "" for the last else): false,
  // with *why, when it holds no loop or declares what its loop uses in a way that cannot move; *end
  // is its last token.
  std::set<std::string> declared;  // the hoisted declarations, one each
  auto take_arm = [&](std::string cond, size_t first, size_t* end) {
    RankSplit::Arm arm;
    arm.cond = std::move(cond);
    arm.loop = ArmLoop(t, first, end);
    if (arm.loop >= t.size()) {
      *why = "a branch holds no loop";
      return false;
    }
    arm.last = StatementEnd(t, arm.loop);
    if (arm.loop > first + 1) {  // set-up before the loop: run before the serve call
      const std::string loop_text = text.substr(t[arm.loop].begin, t[arm.last].end - t[arm.loop].begin);
      const HoistedRegion h = HoistDeclarations(text.substr(t[first + 1].begin, t[arm.loop].begin - t[first + 1].begin),
                                                loop_text);
      if (const std::string& name = h.kept; !name.empty()) {
        *why = fmt::format("the branch at line {} declares `{}` before its loop in a way cuco init cannot move "
                           "in front of the loop (auto, const, static, or several names)", t[first].line, name);
        return false;
      }
      for (size_t at = 0, next; at < h.declarations.size(); at = next) {  // one line each, once over the arms
        next = h.declarations.find('\n', at);
        next = next == std::string::npos ? h.declarations.size() : next + 1;
        const std::string d = Trim(h.declarations.substr(at, next - at));
        if (!d.empty() && declared.insert(d).second) s.declarations += d + "\n  ";
      }
      arm.before = Trim(h.region);
    }
    s.arms.push_back(arm);
    s.last = *end;
    return true;
  };
  for (size_t at = s.if_token;;) {  // `if (c) <loop>` at `at`, then `else if ...`, `else <loop>` or nothing
    const size_t open = at + 1, close = Match(t, open);
    for (size_t i = open + 1; i < close; ++i)
      if (t[i].ident) read.insert(t[i].text);
    size_t end = 0;
    bool taken = take_arm(Trim(text.substr(t[open].end, t[close].begin - t[open].end)), close + 1, &end);
    const bool more = taken && end + 2 < t.size() && t[end + 1].text == "else";
    if (more && t[end + 2].text == "if" && end + 3 < t.size() && t[end + 3].text == "(") {
      at = end + 2;
      continue;
    }
    if (more) taken = take_arm("", end + 2, &end);
    if (!taken) return std::nullopt;
    break;  // no (further) else: a rank no branch takes runs nothing
  }
  bool has_x = false, has_y = false;
  for (const RankSplit::Arm& a : s.arms) {
    has_x |= a.loop == x.first, has_y |= a.loop == y.first;
    if (Header(text, t, a.loop) != Header(text, t, s.arms.front().loop)) {
      *why = "the loops' headers differ";
      return std::nullopt;
    }
    if (Sets(t, a.loop, a.last, read)) {
      *why = fmt::format("the loop at line {} sets what a condition reads", t[a.loop].line);
      return std::nullopt;
    }
  }
  if (!has_x || !has_y) {
    *why = "a branch's loop is not the one that reaches the communication";
    return std::nullopt;
  }
  return s;
}

std::string BranchingBody(const RankSplit& split, const std::vector<std::string>& bodies) {
  std::string out = "{";
  for (size_t i = 0; i < split.arms.size() && i < bodies.size(); ++i) {
    const std::string& cond = split.arms[i].cond;
    const std::string head = i == 0 ? "if (" + cond + ") " : cond.empty() ? "else " : "else if (" + cond + ") ";
    out += "\n        " + head + bodies[i];
  }
  return out + "\n      }";
}

std::string BranchingPrologue(const RankSplit& split) {
  bool any = false;
  for (const RankSplit::Arm& a : split.arms) any = any || !a.before.empty();
  if (!any) return "";
  std::string out = split.declarations;
  for (size_t i = 0; i < split.arms.size(); ++i) {
    const std::string& cond = split.arms[i].cond;
    const std::string head = i == 0 ? "if (" + cond + ") " : cond.empty() ? " else " : " else if (" + cond + ") ";
    out += head + (split.arms[i].before.empty() ? std::string("{}") : "{\n    " + split.arms[i].before + "\n  }");
  }
  return out + "\n  ";
}

}  // namespace cuco::scaffold_internal
