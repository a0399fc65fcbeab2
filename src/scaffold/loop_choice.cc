#include "scaffold/loop_choice.h"

namespace cuco::scaffold_internal {
namespace {

// The statements of the block whose `{` is `open`: each one's first and last token.
std::vector<std::pair<size_t, size_t>> Statements(const std::vector<Tok>& t, size_t open) {
  std::vector<std::pair<size_t, size_t>> out;
  const size_t close = Match(t, open);
  for (size_t i = open + 1; i < close && i < t.size();) {
    size_t e = StatementEnd(t, i);
    if (e >= close) e = close - 1;
    out.push_back({i, e});
    i = e + 1;
  }
  return out;
}

// The `{` of the innermost block holding tokens [first, last].
size_t BlockOf(const std::vector<Tok>& t, size_t first, size_t last) {
  for (size_t i = first; i-- > 0;)
    if (t[i].text == "{" && Match(t, i) > last) return i;
  return t.size();
}

}  // namespace

std::vector<Branch> BranchesHolding(const std::vector<Tok>& t, size_t from, size_t to, size_t first, size_t last) {
  std::vector<Branch> out;
  for (size_t i = from; i < to && i < first; ++i) {
    if (!(t[i].ident && t[i].text == "if" && i + 1 < t.size() && t[i + 1].text == "(")) continue;
    const size_t close = Match(t, i + 1);
    if (close >= t.size()) continue;
    const size_t then_last = StatementEnd(t, close + 1);
    if (first > close && last <= then_last) {
      out.push_back({i + 1, close, true});
    } else if (then_last + 1 < t.size() && t[then_last + 1].text == "else") {
      const size_t else_first = then_last + 2;
      if (first >= else_first && last <= StatementEnd(t, else_first)) out.push_back({i + 1, close, false});
    }
  }
  return out;
}

std::vector<CommLoop> CommLoops(const std::vector<Tok>& t, size_t body_open, size_t body_close,
                                const std::set<std::string>& names) {
  std::vector<CommLoop> out;
  for (size_t i = body_open + 1; i < body_close;) {
    if (IsLoopAt(t, i)) {
      const size_t end = StatementEnd(t, i);
      if (end < t.size() && Calls(t, i, end, names)) {
        out.push_back({i, end, t[i].line, {}});
        i = end + 1;
        continue;
      }
    }
    ++i;
  }
  for (CommLoop& l : out) l.branches = BranchesHolding(t, body_open + 1, body_close, l.first, l.last);
  return out;
}


std::optional<std::pair<size_t, size_t>> GroupAround(const std::vector<Tok>& t, size_t /*block_open*/, size_t first,
                                                     size_t last) {
  const size_t open = BlockOf(t, first, last);
  if (open >= t.size()) return std::nullopt;
  const std::vector<std::pair<size_t, size_t>> st = Statements(t, open);
  size_t k = st.size();
  for (size_t i = 0; i < st.size(); ++i)
    if (st[i].first <= first && st[i].second >= last) k = i;
  if (k == st.size()) return std::nullopt;
  static const std::set<std::string> start = {"ncclGroupStart"}, end = {"ncclGroupEnd"};
  size_t from = st.size(), to = st.size();
  for (size_t i = k; i-- > 0;) {
    if (Calls(t, st[i].first, st[i].second, end)) break;
    if (Calls(t, st[i].first, st[i].second, start)) {
      from = i;
      break;
    }
  }
  for (size_t i = k + 1; i < st.size() && from < st.size(); ++i) {
    if (Calls(t, st[i].first, st[i].second, start)) break;
    if (Calls(t, st[i].first, st[i].second, end)) {
      to = i;
      break;
    }
  }
  if (from >= st.size() || to >= st.size()) return std::nullopt;
  return std::make_pair(st[from].first, st[to].second);
}

bool PerGpuLoop(const std::vector<Tok>& t, size_t loop, const std::string& gpu_count) {
  if (gpu_count.empty() || t[loop].text != "for" || loop + 1 >= t.size()) return false;
  const std::vector<Tok> count = Scan(gpu_count);  // a name, or a member chain (`opt.gpus`, `o->gpus`)
  const size_t close = Match(t, loop + 1);
  int semis = 0;
  for (size_t i = loop + 2; i < close && i < t.size(); ++i) {
    if (t[i].text == ";") ++semis;
    if (semis != 1 || (i > 0 && (t[i - 1].text == "." || t[i - 1].text == ">"))) continue;  // not a member's tail
    size_t k = 0;
    while (k < count.size() && i + k < close && t[i + k].text == count[k].text) ++k;
    const bool longer = i + k + 1 < close && (t[i + k].text == "." || (t[i + k].text == "-" && t[i + k + 1].text == ">"));
    if (k == count.size() && !longer) return true;
  }
  return false;
}

std::optional<std::pair<size_t, size_t>> CommRegion(const std::vector<Tok>& t, size_t open, size_t /*close*/,
                                                    const std::set<std::string>& names) {
  size_t first = t.size(), last = t.size();
  for (const auto& [b, e] : Statements(t, open)) {
    if (!Calls(t, b, e, names)) continue;
    if (first == t.size()) first = b;
    last = e;
  }
  if (first == t.size()) return std::nullopt;
  return std::make_pair(first, last);
}

}  // namespace cuco::scaffold_internal
