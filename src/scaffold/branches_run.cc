#include "scaffold/branches_run.h"

#include <algorithm>
#include <map>
#include <optional>

#include "scaffold/tokens.h"

namespace cuco::scaffold_internal {

namespace {

// The lines all of whose code lies in tokens [a, b].
void AddWholeLines(const std::vector<Tok>& t, size_t a, size_t b, std::vector<std::pair<int, int>>* out) {
  if (a > b || b >= t.size()) return;
  int first = t[a].line, last = t[b].line;
  if (a > 0 && t[a - 1].line == first) ++first;
  if (b + 1 < t.size() && t[b + 1].line == last) --last;
  if (first <= last) out->push_back({first, last});
}

// Whether the token at `i` is a lone `:` (a label's), not half of `::`.
bool LoneColon(const std::vector<Tok>& t, size_t i) {
  return t[i].text == ":" && !(i + 1 < t.size() && t[i + 1].text == ":" && t[i + 1].begin == t[i].end) &&
         !(i > 0 && t[i - 1].text == ":" && t[i - 1].end == t[i].begin);
}

// One `case` (or `default`) of a switch: its value, and its statements' tokens.
struct Case {
  std::optional<int64_t> value;  // nullopt: `default`
  bool known = true;             // false: a `case` whose value is not known
  size_t first = 0, last = 0;    // its statements (first > last: none)
};

// The cases of the switch body `{` at `open`, in order; empty where one is not a label cuco reads.
std::vector<Case> CasesOf(const std::string& text, const std::vector<Tok>& t, size_t open, const ProgramDefaults& d) {
  const size_t close = Match(t, open);
  std::vector<Case> cases;
  for (size_t i = open + 1; i < close && i < t.size(); ++i) {
    if (t[i].text == "{" || t[i].text == "(" || t[i].text == "[") {  // nested code: never a label of this switch
      i = Match(t, i);
      continue;
    }
    if (!t[i].ident || (t[i].text != "case" && t[i].text != "default")) continue;
    size_t colon = i + 1;
    while (colon < close && !LoneColon(t, colon)) ++colon;
    if (colon >= close) return {};
    Case c;
    if (t[i].text == "case") {
      c.value = ValueUnder(text.substr(t[i].end, t[colon].begin - t[i].end), d);
      c.known = c.value.has_value();
    }
    if (!cases.empty()) cases.back().last = i - 1;
    c.first = colon + 1;
    c.last = close - 1;
    cases.push_back(c);
    i = colon;
  }
  return cases;
}

// Whether the statements [first, last] end in a jump out of the case (no fall into the next).
bool EndsInJump(const std::vector<Tok>& t, size_t first, size_t last) {
  if (first > last) return false;
  const size_t s = StatementStart(t, last, first);
  return t[s].ident && (t[s].text == "break" || t[s].text == "return" || t[s].text == "continue" ||
                        t[s].text == "throw" || t[s].text == "goto");
}

// A `switch` at `i` over a value `d` decides: the cases it does not run into *not_run; false where
// the value or a case's is not known.
bool DecidedSwitch(const std::string& text, const std::vector<Tok>& t, size_t i, const ProgramDefaults& d,
                   std::vector<std::pair<int, int>>* not_run) {
  const size_t close = Match(t, i + 1);
  if (close + 1 >= t.size() || t[close + 1].text != "{") return false;
  const std::optional<int64_t> v = ValueUnder(text.substr(t[i + 1].end, t[close].begin - t[i + 1].end), d);
  if (!v) return false;
  const std::vector<Case> cases = CasesOf(text, t, close + 1, d);
  if (cases.empty()) return false;
  bool matched = false;
  for (const Case& c : cases) {
    if (!c.known) return false;
    matched |= c.value == v;
  }
  bool running = false;
  for (const Case& c : cases) {
    running = running || c.value == v || (!c.value && !matched);
    if (!running) AddWholeLines(t, c.first, c.last, not_run);
    if (EndsInJump(t, c.first, c.last)) running = false;
  }
  return true;
}

}  // namespace

BranchLines BranchLinesIn(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d) {
  const std::vector<Tok> t = Scan(text);
  BranchLines out;
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!t[i].ident || t[i].begin < begin || t[i].begin >= end || t[i + 1].text != "(") continue;
    if (t[i].text != "if" && t[i].text != "switch") continue;
    const size_t stmt_end = StatementEnd(t, i);
    const int last_line = stmt_end < t.size() ? t[stmt_end].line : t.back().line;
    if (t[i].text == "switch") {
      if (!DecidedSwitch(text, t, i, d, &out.not_run)) out.conditional.push_back({t[i].line, last_line});
      continue;
    }
    const size_t close = Match(t, i + 1);
    if (close + 1 >= t.size()) continue;
    const Truth truth = BranchTruth(text, t[i + 1].end, t[close].begin, d);
    if (truth != Truth::kTrue && truth != Truth::kFalse) {
      out.conditional.push_back({t[i].line, last_line});
      continue;
    }
    const size_t then_last = StatementEnd(t, close + 1);
    const bool has_else = then_last + 2 < t.size() && t[then_last + 1].text == "else";
    if (truth == Truth::kFalse) AddWholeLines(t, close + 1, then_last, &out.not_run);
    else if (has_else) AddWholeLines(t, then_last + 2, StatementEnd(t, then_last + 2), &out.not_run);
  }
  return out;
}

std::set<std::string> CalledOnlyWhereNeverRun(const std::string& text, size_t begin, size_t end, const ProgramDefaults& d) {
  const std::vector<std::pair<int, int>> not_run = BranchLinesIn(text, begin, end, d).not_run;
  auto never = [&](int line) {
    return std::any_of(not_run.begin(), not_run.end(), [&](const auto& r) { return line >= r.first && line <= r.second; });
  };
  std::map<std::string, bool> only_never;  // function -> whether each of its calls so far never runs
  const std::vector<Tok> t = Scan(text);
  for (size_t i = 0; i + 1 < t.size(); ++i)
    if (t[i].ident && t[i].begin >= begin && t[i].begin < end && (t[i + 1].text == "(" || t[i + 1].text == "<")) {
      auto [it, fresh] = only_never.emplace(t[i].text, true);
      it->second = it->second && never(t[i].line);
    }
  std::set<std::string> names;
  for (const auto& [name, only] : only_never)
    if (only) names.insert(name);
  return names;
}

}  // namespace cuco::scaffold_internal
