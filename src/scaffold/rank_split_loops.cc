#include "scaffold/rank_split_loops.h"

#include <cctype>

#include "util/source_text.h"

namespace cuco::scaffold_internal {
namespace {

// The loop a branch's statement at `first` is: the statement itself, or the one statement of its
// block. t.size() when it is anything else.
size_t OnlyLoop(const std::vector<Tok>& t, size_t first, size_t* last) {
  *last = StatementEnd(t, first);
  if (*last >= t.size()) return t.size();
  size_t loop = first;
  if (t[first].text == "{") {
    loop = first + 1;
    if (StatementEnd(t, loop) + 1 != *last) return t.size();  // more than one statement in the block
  }
  const bool is_loop = t[loop].ident && (t[loop].text == "for" || t[loop].text == "while") && loop + 1 < t.size() &&
                       t[loop + 1].text == "(";
  return is_loop ? loop : t.size();
}

// The loop's header, `for (...)` or `while (...)`, without its white space (the scan keeps no numbers).
std::string Header(const std::string& text, const std::vector<Tok>& t, size_t loop) {
  const size_t close = Match(t, loop + 1);
  std::string h;
  for (const char ch : text.substr(t[loop].begin, t[close].end - t[loop].begin))
    if (!std::isspace(static_cast<unsigned char>(ch))) h += ch;
  return h;
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
  s.cond = Trim(text.substr(t[branch.open].end, t[branch.close].begin - t[branch.open].end));
  size_t then_end = 0, else_end = 0;
  s.then_loop = OnlyLoop(t, branch.close + 1, &then_end);
  if (then_end + 1 >= t.size() || t[then_end + 1].text != "else") {
    *why = "the `if` has no else";
    return std::nullopt;
  }
  s.else_loop = OnlyLoop(t, then_end + 2, &else_end);
  if (s.then_loop >= t.size() || s.else_loop >= t.size()) {
    *why = "a branch holds more than its loop";
    return std::nullopt;
  }
  const bool ours = (s.then_loop == x.first && s.else_loop == y.first) || (s.then_loop == y.first && s.else_loop == x.first);
  if (!ours) {
    *why = "a branch's loop is not the one that reaches the communication";
    return std::nullopt;
  }
  if (Header(text, t, s.then_loop) != Header(text, t, s.else_loop)) {
    *why = "the two loops' headers differ";
    return std::nullopt;
  }
  s.then_last = StatementEnd(t, s.then_loop);
  s.else_last = StatementEnd(t, s.else_loop);
  s.last = else_end;
  return s;
}

}  // namespace cuco::scaffold_internal
